"""``top:``: kernels named the way existing XRT host programs name them (issue 18).

``tests/data/hello_project/kernel_specs/hello/`` holds ``vadd`` (``top: vadd``, int32, the
hello-world's ``in1, in2, out``) and ``vmul`` (``top: {float32: vmul, int32: vmul_int}``).
Every name derived from the top follows it: the HLS function and files, the RTL module,
the .xo and its kernel.xml, the link config's ``nk=``, the xclbin's kernel and CUs, the
host wrapper class, the emulation models, the build manifest; and ``fpgakern build``,
``sim``, ``link``, ``run`` (sw_emu, hw_emu) and ``fpgakern.runtime`` find the kernel as
``vadd``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import fpgakern.runtime as rt
from fpgakern.cli import main
from fpgakern.errors import UsageError
from fpgakern.link import inspect as link_inspect
from fpgakern.link import linker, platforms, resolve
from fpgakern.spec.library import Library
from fpgakern.tools import verilator

HELLO = Path(__file__).parent / "data" / "hello_project"
# The hello-world host, also run by tests/runtime/test_host_xrt_examples.py.
HELLO_HOST = Path(__file__).parent / "runtime" / "hosts" / "hello_vadd.cpp"
needs_verilator = pytest.mark.skipif(verilator.missing() is not None,
                                     reason=str(verilator.missing()))


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project, built: vadd at rung 2 through every step (its RTL simulated), vmul
    at rung 1 for both dtypes up to the .xo."""
    root = tmp_path_factory.mktemp("hello") / "hello_project"
    shutil.copytree(HELLO, root)
    specs, out = str(root / "kernel_specs"), str(root / "build")
    steps = [("hello/vadd", "--opt", "2"),
             ("hello/vmul", "--opt", "1", "--until", "xo")]
    if verilator.missing() is not None:
        steps[0] += ("--until", "xo")
    for args in steps:
        code, output = cli("build", *args, "--specs", specs, "--out", out)
        assert code == 0, output
    return root


def variant(root: Path, kernel: str, rung: int, dtype: str) -> Path:
    return root / "build" / "hello" / kernel / f"opt{rung}" / dtype


def test_every_generated_name_follows_the_top(project):
    folder = variant(project, "vadd", 2, "int32")
    assert 'extern "C" void vadd(' in (folder / "vadd.cpp").read_text()
    assert "vadd(" in (folder / "vadd_tb.cpp").read_text()
    assert "module vadd" in (folder / "rtl" / "vadd.sv").read_text()
    host = (folder / "host" / "vadd_host.hpp").read_text()
    assert "class vadd_host" in host and 'kernel_name = "vadd"' in host
    assert (folder / "host" / "vadd_host_main.cpp").is_file()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["top"] == "vadd"
    with zipfile.ZipFile(folder / "vadd.xo") as xo:
        kernel_xml = next(n for n in xo.namelist() if n.endswith("kernel.xml"))
        assert 'name="vadd"' in xo.read(kernel_xml).decode()
    assert not list(folder.rglob("*vadd_i32*")), "a name kept the dtype tag"
    # one top per dtype from a mapping
    assert 'extern "C" void vmul(' in (variant(project, "vmul", 1, "float32") / "vmul.cpp"
                                       ).read_text()
    assert 'extern "C" void vmul_int(' in (variant(project, "vmul", 1, "int32")
                                           / "vmul_int.cpp").read_text()


@needs_verilator
def test_build_simulated_the_rtl_and_fpgakern_sim_runs(project):
    manifest = json.loads((variant(project, "vadd", 2, "int32") / "manifest.json").read_text())
    assert manifest["steps"]["sim"]["passed"], manifest["steps"]["sim"]
    code, output = cli("sim", "hello/vadd", "--opt", "1", "--size", "200",
                       "--specs", str(project / "kernel_specs"))
    assert code == 0, output
    assert "1 passed" in output


@pytest.fixture(scope="module")
def xclbins(project) -> dict[str, Path]:
    """vadd linked for sw_emu and hw_emu with ``fpgakern link``, from the built .xo."""
    out = {}
    for target in ("sw_emu", "hw_emu"):
        path = project / f"vadd.{target}.xclbin"
        code, output = cli("link", "hello/vadd@opt2", "-p", "u250", "-t", target,
                           "-o", str(path), "--specs", str(project / "kernel_specs"),
                           "--build-dir", str(project / "build"))
        assert code == 0, output
        assert "vadd:vadd_1" in output
        out[target] = path
    return out


def test_link_names_the_kernel_and_its_cus_by_the_top(project, xclbins):
    report = link_inspect.inspect_path(xclbins["sw_emu"])
    assert [k["name"] for k in report["kernels"]] == ["vadd"]
    assert [ip["m_name"] for ip in report["ip_layout"]] == ["vadd:vadd_1"]
    assert [a["name"] for a in report["kernels"][0]["instances"][0]["args"]] == \
        ["in1", "in2", "out", "n"]
    code, output = cli("link", "hello/vadd@opt2", "-p", "u250", "--toolchain", "vitis",
                       "--dry-run", "-o", str(project / "v.xclbin"),
                       "--specs", str(project / "kernel_specs"),
                       "--build-dir", str(project / "build"))
    assert code == 0, output
    assert "nk=vadd:1" in output


@pytest.mark.parametrize("target", ["sw_emu", pytest.param("hw_emu", marks=needs_verilator)])
def test_fpgakern_run_on_the_xclbin(project, xclbins, monkeypatch, target):
    monkeypatch.chdir(project)
    code, output = cli("run", "hello/vadd", "--target", target, "-n", "1000",
                       "--xclbin", str(xclbins[target]), "--specs", str(project / "kernel_specs"),
                       "--build-dir", str(project / "build"), "--json")
    assert code == 0, output
    doc = json.loads(output)
    assert doc["top"] == "vadd"


@pytest.mark.parametrize("target", ["sw_emu", pytest.param("hw_emu", marks=needs_verilator)])
def test_runtime_finds_the_kernel_by_the_hosts_name(project, xclbins, monkeypatch, target):
    monkeypatch.chdir(project)
    dev = rt.open(xclbins[target], target=target, specs=project / "kernel_specs")
    kernel = dev.kernel("vadd")
    in1 = np.arange(-50, 950, dtype=np.int32)
    in2 = 7 * in1
    np.testing.assert_array_equal(kernel(in1, in2), in1 + in2)
    assert kernel.last_call.top == "vadd"
    assert kernel.target("int32").library.name == f"libfkemu_vadd_{target}.so"


def test_the_generated_host_program_runs_the_top(project, xclbins, tmp_path):
    from fpgakern.runtime import emu

    image = xclbins["sw_emu"]
    emu.prepare(image, ("sw_emu",), specs=project / "kernel_specs")
    program = emu.compile_host(variant(project, "vadd", 2, "int32") / "host"
                               / "vadd_host_main.cpp", tmp_path / "vadd_host")
    env = dict(os.environ, XCL_EMULATION_MODE="sw_emu")
    env.pop("FPGAKERN_EMU_CONFIG", None)
    done = subprocess.run([str(program), "-x", str(image), "-n", "1000"], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("vadd: 1000 elements")


def test_two_kernels_of_one_top_in_one_link_are_an_error(project):
    library = Library(project / "kernel_specs")
    inputs = resolve.resolve(["hello/vadd@opt1", "hello/vadd@opt2"], library,
                             project / "build")
    with pytest.raises(UsageError, match=r"kernel vadd is named twice .* both have the "
                                         r"hardware top 'vadd'"):
        linker.link(inputs, platforms.load("u250"), None, "sw_emu")


def test_an_argument_on_a_bank_range(project, tmp_path):
    """The hello-world's in1 on four HBM pseudo-channels: four CONNECTIVITY entries, one
    group MBG[0:3] in GROUP_TOPOLOGY that in1's GROUP_CONNECTIVITY entry points at."""
    cfg = tmp_path / "hbm.cfg"
    cfg.write_text("[connectivity]\nsp=vadd_1.in1:HBM[0:3]\nsp=vadd_1.in2:HBM[4]\n"
                   "sp=vadd_1.out:HBM[5]\n")
    image = tmp_path / "vadd.xclbin"
    code, output = cli("link", "hello/vadd@opt2", "-p", "u55c", "-t", "sw_emu",
                       "--config", str(cfg), "-o", str(image),
                       "--specs", str(project / "kernel_specs"),
                       "--build-dir", str(project / "build"))
    assert code == 0, output
    report = link_inspect.inspect_path(image)
    assert report["errors"] == []
    in1 = report["kernels"][0]["instances"][0]["args"][0]
    assert in1["memory"] == ["HBM[0]", "HBM[1]", "HBM[2]", "HBM[3]"]
    assert in1["memory_groups"] == ["MBG[0:3]"]
    group = report["group_memories"][-1]
    assert (group["tag"], group["size"], group["base_address"]) == ("MBG[0:3]", "0x80000000",
                                                                    "0x0")
    assert report["group_connectivity"][0] == {
        "arg_index": "0", "m_ip_layout_index": "0",
        "mem_data_index": str(len(report["memories"]))}


def test_fpgakern_list_shows_the_tops(project, monkeypatch):
    monkeypatch.chdir(project)
    code, output = cli("list", "--specs", str(project / "kernel_specs"))
    assert code == 0, output
    assert "int32 (top vadd)" in output and "(top vmul_int)" in output
    code, output = cli("list", "--specs", str(project / "kernel_specs"), "--json")
    kernels = {k["kernel"]: k for c in json.loads(output)["categories"] for k in c["kernels"]}
    assert kernels["hello/vadd"]["tops"] == {"int32": "vadd"}


@pytest.mark.parametrize("target", ["sw_emu", pytest.param("hw_emu", marks=needs_verilator)])
def test_a_hello_world_host_runs_unmodified(project, xclbins, tmp_path, target):
    """``xrt::kernel(device, uuid, "vadd")``, group_id, bo, map, sync, run, wait: the
    shape of the published XRT hello-world hosts, with no fpgakern line in it."""
    from fpgakern.runtime import emu

    image = xclbins[target]
    emu.prepare(image, (target,), specs=project / "kernel_specs")
    program = emu.compile_host(HELLO_HOST, tmp_path / "hello")
    env = dict(os.environ, XCL_EMULATION_MODE=target)
    env.pop("FPGAKERN_EMU_CONFIG", None)
    done = subprocess.run([str(program), str(image)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "TEST PASSED" in done.stdout


def test_a_library_link_skips_an_old_tops_files(project):
    """A spec whose top: changed leaves the old top's .xo in the variant folder; --library
    takes the one the latest build made (its manifest's top)."""
    folder = variant(project, "vadd", 2, "int32")
    stale = folder / "vadd_i32.xo"
    shutil.copy(folder / "vadd.xo", stale)
    try:
        inputs, skipped = resolve.library_inputs(project / "build")
    finally:
        stale.unlink()
    assert not skipped
    assert sorted(i.kernel.name for i in inputs) == ["vadd", "vmul", "vmul_int"]
    assert [Path(i.xo).name for i in inputs if i.kernel.name == "vadd"] == ["vadd.xo"]


def test_a_relink_rewrites_the_emulation_files(project, tmp_path):
    """Relinking vadd into the same file with another CU count (and then for another
    platform) rewrites fpgakern_emu.cfg and emconfig.json from the new link: the config
    names the new xclbin's UUID, the host runs on it, and the earlier link's config put
    back beside the new xclbin is refused rather than run."""
    from fpgakern.runtime import emu

    folder = tmp_path / "relink"
    folder.mkdir()
    image, config, emconfig = (folder / "vadd.xclbin", folder / emu.CONFIG_NAME,
                               folder / emu.EMCONFIG_NAME)
    two_cus = tmp_path / "two.cfg"
    two_cus.write_text("[connectivity]\nnk=vadd:2\n")

    def link(platform: str, *extra: str) -> str:
        code, output = cli("link", "hello/vadd@opt2", "-p", platform, "-t", "sw_emu",
                           "-o", str(image), *extra, "--specs", str(project / "kernel_specs"),
                           "--build-dir", str(project / "build"))
        assert code == 0, output
        assert f"wrote {config}" in output and str(emconfig) in output
        return output

    def stamped() -> str:
        return next(line.split()[1] for line in config.read_text().splitlines()
                    if line.startswith("xclbin "))

    program = emu.compile_host(HELLO_HOST, tmp_path / "hello")
    env = dict(os.environ, XCL_EMULATION_MODE="sw_emu")
    env.pop("FPGAKERN_EMU_CONFIG", None)
    env.pop("EMCONFIG_PATH", None)

    def run_host() -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(program), str(image)], capture_output=True, text=True,
                              env=env, cwd=folder, timeout=300)

    output = link("u250")
    assert "vadd:vadd_1" in output and "vadd_2" not in output
    first, first_config = stamped(), config.read_text()
    assert first == str(emu.xclbin_uuid(image))
    assert "TEST PASSED" in run_host().stdout

    output = link("u250", "--config", str(two_cus))
    assert "vadd:vadd_1" in output and "vadd:vadd_2" in output
    second = stamped()
    assert second == str(emu.xclbin_uuid(image)) != first
    assert "TEST PASSED" in run_host().stdout

    config.write_text(first_config)  # the earlier link's config beside the new xclbin
    stale = run_host()
    assert stale.returncode != 0
    assert f"was prepared for another link (xclbin UUID {first})" in stale.stderr
    assert f"(UUID {second})" in stale.stderr

    assert json.loads(emconfig.read_text())["Platform"]["Boards"][0]["Devices"][0]["Name"] \
        == platforms.load("u250").vbnv
    link("u55c")
    assert json.loads(emconfig.read_text())["Platform"]["Boards"][0]["Devices"][0]["Name"] \
        == platforms.load("u55c").vbnv
    assert stamped() == str(emu.xclbin_uuid(image))
    assert "TEST PASSED" in run_host().stdout
