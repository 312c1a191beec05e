"""The command line end to end: through click's runner and as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

from fpgakern import __version__
from fpgakern.cli import main


def run(*args, cwd=None):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_version():
    result = run("--version")
    assert result.exit_code == 0 and __version__ in result.output


def test_help_lists_commands_and_examples():
    result = run("--help")
    assert result.exit_code == 0
    for word in ("build", "list", "show", "fpgakern build binary_ops/add --opt 4"):
        assert word in result.output


def test_list_shows_every_kernel(library):
    result = run("list", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    names = {k["kernel"] for c in data["categories"] for k in c["kernels"]}
    assert names == {k.qualname for k in library.kernels}
    table = run("list").output
    assert "binary_ops" in table and "sigmoid" in table and "rungs: 0 naive" in table


def test_build_writes_manifest_and_passes_csim(tmp_path):
    result = run("build", "binary_ops/add", "--opt", "4", "--out", str(tmp_path), "--json",
                 "--until", "csim")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["schema_version"] == 1
    assert {r["dtype"] for r in data["variants"]} == {"float32", "int32", "complex64"}
    assert all(r["passed"] for r in data["variants"])
    out = tmp_path / "binary_ops" / "add" / "opt4" / "float32"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["csim"]["passed"] is True and "cases pass" in manifest["csim"]["detail"]
    assert manifest["top"] == "add_f32" and manifest["rung_name"] == "vectorized"
    listed = {a["path"] for a in manifest["artifacts"]}
    assert {"add_f32.cpp", "add_f32_tb.cpp", "fpgakern_ops.h"} <= listed
    from fpgakern.util.files import sha256_file
    for artifact in manifest["artifacts"]:
        assert sha256_file(out / artifact["path"]) == artifact["sha256"]


def test_build_rung3_ships_link_config(tmp_path):
    result = run("build", "unary_ops/exp", "--opt", "3", "--out", str(tmp_path), "--until",
                 "csim")
    assert result.exit_code == 0, result.output
    config = tmp_path / "unary_ops" / "exp" / "opt3" / "float32" / "link.cfg"
    assert "nk=exp_f32:4" in config.read_text()


def test_build_unknown_kernel_is_a_usage_error():
    result = CliRunner().invoke(main, ["build", "binary_ops/nope"])
    assert result.exit_code == 2
    assert "unknown kernel 'binary_ops/nope'" in result.output


def test_build_wrong_dtype_is_a_usage_error():
    result = CliRunner().invoke(main, ["build", "unary_ops/exp", "--dtype", "int32"])
    assert result.exit_code == 2 and "has no dtype 'int32'" in result.output


def test_build_needs_a_selection():
    result = CliRunner().invoke(main, ["build"])
    assert result.exit_code == 2 and "--all" in result.output


def test_show_prints_generated_code():
    result = run("show", "binary_ops/add", "--opt", "2", "--plain")
    assert result.exit_code == 0 and "#pragma HLS DATAFLOW" in result.output
    cfg = run("show", "binary_ops/add", "--opt", "3", "--what", "link-config", "--plain")
    assert "nk=add_f32:4" in cfg.output


def test_malformed_spec_subprocess_one_line_exit_2(tmp_path):
    specs = tmp_path / "kernel_specs" / "binary_ops"
    specs.mkdir(parents=True)
    (specs / "add.yaml").write_text(
        "kernel: add\ndoc: d\ninputs: [a, b]\noutputs: [out]\nscalars:\n  alpha: 1\n"
        "dtypes: [float32, float33]\nexpression: a + alpha * b\n")
    done = subprocess.run([sys.executable, "-m", "fpgakern", "build", "binary_ops/add"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: kernel_specs/binary_ops/add.yaml:7: dtypes: unknown dtype 'float33' "
        "(known: float32, int32, complex64)")
    assert "Traceback" not in done.stderr + done.stdout


def test_build_subprocess_main_job(tmp_path):
    done = subprocess.run([sys.executable, "-m", "fpgakern", "build", "binary_ops/add", "--opt",
                           "4", "--out", str(tmp_path), "--until", "csim"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "6 tasks" in done.stdout and "6 passed" in done.stdout
    assert "add_f32.cpp" in done.stdout and "5 cases pass" in done.stdout


def test_run_of_no_elements_where_the_reduction_has_no_value(tmp_path):
    """max, min, argmax, argmin of nothing: one line, exit 2, nothing built; sum of
    nothing is its identity and runs."""
    for kernel in ("reduce_ops/max", "reduce_ops/argmin"):
        result = CliRunner().invoke(main, ["run", kernel, "-n", "0", "--build-dir",
                                           str(tmp_path)])
        assert result.exit_code == 2, result.output
        assert f"{kernel}: the {kernel.split('/')[1]} of no elements has no value" in \
            result.output
        assert "Traceback" not in result.output and not any(tmp_path.iterdir())
