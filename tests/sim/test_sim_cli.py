"""``fpgakern sim`` end to end: table, --json, a mismatch, a skip, errors, waves."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from fpgakern import paths
from fpgakern.cli import main
from fpgakern.verify.rtlsim.models import wave_format

REQUIRED = {"kernel", "rung", "dtype", "size", "passed", "cycles", "elements_per_cycle",
            "ideal_elements_per_cycle", "sim_cycles_per_second"}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder (run dirs land in its build/) using the real kernel library."""
    os.symlink(paths.SOURCE_ROOT / "kernel_specs", tmp_path / "kernel_specs")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args):
    return CliRunner().invoke(main, ["sim", *args], catch_exceptions=False)


def test_table(project):
    result = run("binary_ops/add", "--opt", "2", "--dtype", "int32", "--size", "200")
    assert result.exit_code == 0, result.output
    for word in ("binary_ops/add", "int32", "pass", "1 passed, 0 failed, 0 skipped",
                 "elem/cycle", "% ideal"):
        assert word in result.output
    assert (project / "build" / "binary_ops" / "add" / "opt2" / "int32" / "sim-fast" /
            "result.json").exists()


def test_json(project):
    result = run("binary_ops/add", "--opt", "4", "--dtype", "int32", "--size", "200",
                 "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    assert len(rows) == 1 and set(rows[0]) >= REQUIRED
    row = rows[0]
    assert row["passed"] is True and row["kernel"] == "binary_ops/add" and row["rung"] == 4
    assert row["cycles"] > 0 and row["ideal_elements_per_cycle"] == 16.0
    assert 0 < row["elements_per_cycle"] <= 16.0
    assert row["sim_cycles_per_second"] > 0


def test_mismatch_shows_values_and_hex(project, mutate_rtl):
    mutate_rtl("add_i32_datapath.sv", r"(assign y\[[^\]]*\] = )(\w+);", r"\1\2 ^ 32'h1;")
    result = run("binary_ops/add", "--opt", "2", "--dtype", "int32", "--size", "200")
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.output and "values differ" in result.output
    assert "expected" in result.output and "got" in result.output and "(0x" in result.output


def test_skipped_kernel_is_reported(project, monkeypatch):
    import fpgakern.backends.rtl.generate as gen
    from fpgakern.backends.rtl.schedule import NoRtlOperator

    def no_operator(plan, out_dir):
        raise NoRtlOperator("no RTL operator for exp float32 yet")

    monkeypatch.setattr(gen, "generate", no_operator)
    result = run("unary_ops/exp", "--opt", "2", "--json")
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["results"][0]
    assert row["passed"] is None and row["status"] == "skipped"
    assert "no RTL operator" in row["message"]
    table = run("unary_ops/exp", "--opt", "2")
    assert table.exit_code == 0 and "skip" in table.output and "no RTL operator" in table.output


def test_unknown_kernel_is_one_line():
    result = CliRunner().invoke(main, ["sim", "binary_ops/nope"])
    assert result.exit_code == 2
    assert "unknown kernel 'binary_ops/nope'" in result.output
    assert "Traceback" not in result.output


def test_opt_excludes_all_rungs():
    result = CliRunner().invoke(main, ["sim", "binary_ops/add", "--opt", "1", "--all-rungs"])
    assert result.exit_code == 2 and "exclude" in result.output


def test_waves(project):
    result = run("unary_ops/neg", "--opt", "0", "--dtype", "int32", "--size", "50", "--waves")
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if ln.startswith("waves"))
    path = project / line.split(": ", 1)[1].strip()
    # FST when the compiler finds lz4.h (Verilator's FST writer needs it), else VCD.
    assert path.suffix == "." + wave_format() and path.stat().st_size > 1000
    if path.suffix == ".vcd":
        assert b"$enddefinitions" in path.read_bytes()[:200_000]


def test_platform_bounds_the_ideal_by_bandwidth(project):
    """--platform gives the memory the card's bandwidth: rung 4 add with its three ports
    on one u250 DDR4 channel is memory-bound (5.35 elements/cycle), and the rate stays
    under it; --bank-per-port spreads them over three channels."""
    result = run("binary_ops/add", "--opt", "4", "--dtype", "float32", "--size", "16384",
                 "--platform", "u250", "--json")
    assert result.exit_code == 0, result.output
    (r,) = json.loads(result.output)["results"]
    assert r["platform"] == "u250" and not r["bank_per_port"]
    assert r["ideal_elements_per_cycle"] == pytest.approx(19.25e9 / 300e6 / 12)
    assert 0.8 * r["ideal_elements_per_cycle"] < r["elements_per_cycle"] \
        <= 1.01 * r["ideal_elements_per_cycle"]
    spread = run("binary_ops/add", "--opt", "4", "--dtype", "float32", "--size", "16384",
                 "--platform", "u250", "--bank-per-port", "--json")
    (s,) = json.loads(spread.output)["results"]
    assert s["bank_per_port"] and s["elements_per_cycle"] > 2.5 * r["elements_per_cycle"]


def test_bank_per_port_needs_a_platform(project):
    result = run("binary_ops/add", "--opt", "4", "--bank-per-port")
    assert result.exit_code == 2 and "give --platform" in result.output
