"""``fpgakern run``: builds the variant when missing, runs it, checks it, prints cycles."""

from __future__ import annotations

import json

from click.testing import CliRunner

from fpgakern.cli import main


def test_run_builds_then_runs_on_both_targets(tmp_path):
    runner = CliRunner()
    args = ["run", "binary_ops/add", "--opt", "3", "--size", "5000", "--build-dir",
            str(tmp_path), "--scalar", "alpha=2", "--json"]
    done = runner.invoke(main, [*args, "--target", "sw_emu"])
    assert done.exit_code == 0, done.output
    sw = json.loads(done.output)
    assert sw["passed"] and sw["compute_units"] == 4 and sw["cycles"] is None
    assert (tmp_path / "binary_ops" / "add" / "opt3" / "float32" / "manifest.json").is_file()
    done = runner.invoke(main, [*args, "--target", "hw_emu"])
    assert done.exit_code == 0, done.output
    hw = json.loads(done.output)
    assert hw["passed"] and len(hw["cu_cycles"]) == 4 and hw["cycles"] >= 1250


def test_run_text_output_and_bad_scalar(tmp_path):
    runner = CliRunner()
    done = runner.invoke(main, ["run", "unary_ops/neg", "--opt", "2", "--size", "100",
                                "--target", "hw_emu", "--build-dir", str(tmp_path)])
    assert done.exit_code == 0, done.output
    assert "matches numpy" in done.output and "cycles" in done.output
    done = runner.invoke(main, ["run", "binary_ops/add", "--scalar", "alpha", "--build-dir",
                                str(tmp_path)])
    assert done.exit_code == 2 and "NAME=NUMBER" in done.output
