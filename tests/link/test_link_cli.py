"""fpgakern link / inspect end to end (click's CliRunner), and v++ command lines."""

from __future__ import annotations

import json
import os
import shlex
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from link_support import DATA, SAMPLES

from fpgakern.cli import main
from fpgakern.link import axlf, vitis, xo

MUST_SHOW = ["binary_ops/add@opt3", "unary_ops/exp", "reduce_ops/sum"]


def run(*args: str, env: dict | None = None):
    result = CliRunner().invoke(main, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception  # never a traceback
    return result


def test_link_then_inspect(tmp_path):
    out = tmp_path / "lib.xclbin"
    result = run("link", *MUST_SHOW, "--platform", "u250", "-o", str(out),
                 "--build-dir", str(tmp_path / "build"))
    assert result.exit_code == 0, result.output
    assert "open flow" in result.output and "6 CUs of 3 kernels" in result.output
    report = run("inspect", str(out))
    assert report.exit_code == 0, report.output
    assert report.output.count("Instance add_f32_") == 4
    data = json.loads(run("inspect", str(out), "--json").output)
    assert [k["name"] for k in data["kernels"]] == ["add_f32", "exp_f32", "sum_f32"]
    dump = tmp_path / "ip.json"
    assert run("inspect", str(out), "--dump-section", "IP_LAYOUT:JSON", "-o",
               str(dump)).exit_code == 0
    assert json.loads(dump.read_text())["ip_layout"]["m_count"] == "6"


def test_same_inputs_same_bytes_through_the_cli(tmp_path):
    a, b = tmp_path / "a" / "lib.xclbin", tmp_path / "b" / "lib.xclbin"
    for out in (a, b):
        out.parent.mkdir()
        assert run("link", *MUST_SHOW, "-p", "u250", "-o", str(out), "--build-dir",
                   str(tmp_path / "build"), env={"SOURCE_DATE_EPOCH": "1700000000"}
                   ).exit_code == 0
    assert a.read_bytes() == b.read_bytes()
    assert axlf.read(a.read_bytes()).header["m_timeStamp"] == 1700000000


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_inspect_samples(path):
    result = run("inspect", str(path))
    if path.name == "dpu_RP_0.xclbin":
        assert result.exit_code == 1
        assert "IP_LAYOUT index 2 is out of range" in result.output
        assert "inconsistencies between sections" in result.output
    else:
        assert result.exit_code == 0, result.output


def test_inspect_damaged_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.xclbin"
    bad.write_bytes((DATA / "kv260-smartcam.xclbin").read_bytes()[:1000])
    result = run("inspect", str(bad))
    assert result.exit_code == 1
    assert result.output.strip().startswith("error:") and "truncated" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_link_config_errors_name_file_and_line(tmp_path):
    cfg = tmp_path / "link.cfg"
    cfg.write_text("[connectivity]\nnk=add_f32:4\nsp=add_f32_1.a:QDR[0]\n")
    result = run("link", "binary_ops/add", "-p", "u250", "--config", str(cfg), "-o",
                 str(tmp_path / "x.xclbin"), "--build-dir", str(tmp_path / "build"))
    assert result.exit_code == 2
    assert "link.cfg:3:" in result.output and "no memory 'QDR[0]'" in result.output


def test_link_xo_paths_and_rung3_link_cfg(tmp_path, make_plan, build_xo):
    build = tmp_path / "build"
    add3 = build_xo(make_plan("binary_ops/add", 3), tmp_path)
    (add3.parent / "link.cfg").write_text("[connectivity]\nnk=add_f32:4\n")
    exp = build_xo(make_plan("unary_ops/exp", 4), tmp_path)
    out = tmp_path / "x.xclbin"
    result = run("link", str(add3), str(exp), "-p", "u55c", "-o", str(out))
    assert result.exit_code == 0, result.output
    names = [ip["m_name"] for ip in json.loads(run("inspect", str(out), "--json").output)
             ["ip_layout"]]
    assert names == [*(f"add_f32:add_f32_{i}" for i in range(1, 5)), "exp_f32:exp_f32_1"]
    # the same through kernel names: the built .xo and its link.cfg are found
    named = run("link", "binary_ops/add@opt3", "-p", "u55c", "-o", str(tmp_path / "n.xclbin"),
                "--build-dir", str(build))
    assert named.exit_code == 0 and "4 CUs" in named.output


def test_library_links_the_highest_built_rung(tmp_path, make_plan, build_xo):
    build = tmp_path / "build"
    for name, rung, dtype in (("binary_ops/add", 2, "float32"), ("binary_ops/add", 4, "float32"),
                              ("binary_ops/add", 4, "int32"), ("unary_ops/exp", 4, "float32")):
        build_xo(make_plan(name, rung, dtype), tmp_path)
    broken = build / "reduce_ops" / "sum" / "opt4" / "float32" / "sum_f32.xo"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"not a zip")
    out = tmp_path / "torch.xclbin"
    result = run("link", "--library", "-p", "u250", "-o", str(out), "--build-dir", str(build))
    assert result.exit_code == 0, result.output
    assert "reduce_ops/sum@opt4:float32: left out" in result.output
    kernels = json.loads(run("inspect", str(out), "--json").output)["kernels"]
    assert sorted(k["name"] for k in kernels) == ["add_f32", "add_i32", "exp_f32"]
    add = next(k for k in kernels if k["name"] == "add_f32")
    assert add["ports"][0]["data_width"] == 512  # opt4, not opt2


def test_usage_errors(tmp_path):
    assert run("link", "-p", "u250", "-o", "x.xclbin").exit_code == 2
    bad = run("link", "binary_ops/add", "-p", "nope", "-o", "x.xclbin")
    assert bad.exit_code == 2 and "unknown platform 'nope'" in bad.output
    odd = run("link", "binary_ops/add@opt9", "-p", "u250", "-o", "x.xclbin")
    assert odd.exit_code == 2 and "does not build rung 9" in odd.output


# --- real Vitis: command lines, checked with a fake v++ that records its arguments ---

FAKE_VPP = """#!/bin/sh
printf '%s\\n' "$@" > "$FAKE_VPP_LOG"
out=""
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out="$2"; fi
  shift
done
[ -n "$out" ] && echo fake > "$out"
exit "${FAKE_VPP_EXIT:-0}"
"""


@pytest.fixture
def fake_vpp(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "v++"
    script.write_text(FAKE_VPP)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "vpp.log"
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_VPP_LOG", str(log))
    return log


def _built(tmp_path, make_plan, build_xo) -> Path:
    build_xo(make_plan("binary_ops/add", 3), tmp_path)
    build_xo(make_plan("unary_ops/exp", 4), tmp_path)
    return tmp_path / "build"


def test_vitis_dry_run_prints_config_and_command(tmp_path, make_plan, build_xo):
    build = _built(tmp_path, make_plan, build_xo)
    out = tmp_path / "lib.xclbin"
    result = run("link", "binary_ops/add@opt3", "unary_ops/exp", "-p", "u250", "-t", "hw_emu",
                 "--toolchain", "vitis", "--dry-run", "-o", str(out), "--build-dir", str(build))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert f"# write {tmp_path / 'lib.cfg'}" in lines
    assert "#   nk=add_f32:4" in lines and "#   sp=add_f32_4.m_axi_gmem2:DDR[3]" in lines
    command = shlex.split(lines[-1])
    assert command[:8] == ["v++", "-l", "-t", "hw_emu", "--platform",
                           "xilinx_u250_gen3x16_xdma_4_1_202210_1", "--config",
                           str(tmp_path / "lib.cfg")]
    assert command[-2:] == [str(build / "binary_ops/add/opt3/float32/add_f32.xo"),
                            str(build / "unary_ops/exp/opt4/float32/exp_f32.xo")]
    assert command[command.index("-o") + 1] == str(out)
    assert not out.exists() and not (tmp_path / "lib.cfg").exists()


def test_vitis_link_runs_vpp(tmp_path, make_plan, build_xo, fake_vpp):
    build = _built(tmp_path, make_plan, build_xo)
    out = tmp_path / "lib.xclbin"
    result = run("link", "binary_ops/add@opt3", "unary_ops/exp", "-p", "u250",
                 "--toolchain", "vitis", "-o", str(out), "--build-dir", str(build))
    assert result.exit_code == 0, result.output
    args = fake_vpp.read_text().splitlines()
    assert args == ["-l", "-t", "hw", "--platform", "xilinx_u250_gen3x16_xdma_4_1_202210_1",
                    "--config", str(tmp_path / "lib.cfg"), "--temp_dir",
                    str(tmp_path / "_x.hw.xilinx_u250_gen3x16_xdma_4_1_202210_1"),
                    "-o", str(out), str(build / "binary_ops/add/opt3/float32/add_f32.xo"),
                    str(build / "unary_ops/exp/opt4/float32/exp_f32.xo")]
    cfg = (tmp_path / "lib.cfg").read_text()
    assert "nk=add_f32:4" in cfg and "sp=exp_f32_1.m_axi_gmem0:DDR[0]" in cfg
    assert out.read_text() == "fake\n"


def test_vitis_failure_is_a_tool_error(tmp_path, make_plan, build_xo, fake_vpp, monkeypatch):
    build = _built(tmp_path, make_plan, build_xo)
    monkeypatch.setenv("FAKE_VPP_EXIT", "3")
    result = run("link", "unary_ops/exp", "-p", "u250", "--toolchain", "vitis", "-o",
                 str(tmp_path / "e.xclbin"), "--build-dir", str(build))
    assert result.exit_code == 1 and "failed with exit code 3" in result.output


def test_vitis_without_vpp(tmp_path, make_plan, build_xo, monkeypatch):
    build = _built(tmp_path, make_plan, build_xo)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = run("link", "unary_ops/exp", "-p", "u250", "--toolchain", "vitis", "-o",
                 str(tmp_path / "e.xclbin"), "--build-dir", str(build))
    assert result.exit_code == 1 and "v++ is not on PATH" in result.output


def test_vitis_needs_built_xo(tmp_path):
    result = run("link", "unary_ops/exp", "-p", "u250", "--toolchain", "vitis", "--dry-run",
                 "-o", str(tmp_path / "e.xclbin"), "--build-dir", str(tmp_path / "none"))
    assert result.exit_code == 2 and "run fpgakern build on them first" in result.output


def test_compile_command_line(make_plan, tmp_path, fake_vpp):
    p = make_plan("binary_ops/add", 4)
    src = tmp_path / "src"
    sources = [src / "add_f32.cpp", src / "fpgakern_ops.h"]
    out = tmp_path / "add_f32.xo"
    inv = vitis.compile_invocation(p, sources, out, platform="xilinx_u250_x", target="hw_emu")
    cfg = tmp_path / "add_f32.compile.cfg"
    assert inv.commands == (("v++", "-c", "-t", "hw_emu", "--platform", "xilinx_u250_x",
                             "-k", "add_f32", "--config", str(cfg), "--temp_dir",
                             str(tmp_path / "_x.hw_emu.xilinx_u250_x"), f"-I{src}", "-o",
                             str(out), str(src / "add_f32.cpp")),)
    vitis.execute(inv)
    assert fake_vpp.read_text().splitlines() == list(inv.commands[0][1:])
    # The config runs the Tcl that turns combined floating-point operators off.
    pre_tcl = tmp_path / "add_f32.hls_pre.tcl"
    assert cfg.read_text().splitlines()[1:] == ["[hls]", f"pre_tcl={pre_tcl}"]
    assert "config_op fmadd -impl none" in pre_tcl.read_text()
    assert xo.relative_path(p).name == "add_f32.xo"
