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


def test_run_of_a_shaped_kernel_takes_a_shape(tmp_path):
    """batch_norm's x as (4, 16, 33) over 4 CUs; softmax's default: --size as rows of 1024."""
    runner = CliRunner()
    done = runner.invoke(main, ["run", "nn_ops/batch_norm", "--opt", "3", "--shape", "4,16,33",
                                "--target", "hw_emu", "--build-dir", str(tmp_path), "--json"])
    assert done.exit_code == 0, done.output
    result = json.loads(done.output)
    assert result["passed"] and result["size"] == 4 * 16 * 33
    assert result["compute_units"] == 4 and result["cycles"] > 0
    done = runner.invoke(main, ["run", "nn_ops/softmax", "--opt", "2", "--size", "4096",
                                "--target", "sw_emu", "--build-dir", str(tmp_path), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["passed"]
    for args, message in [(["nn_ops/softmax", "--shape", "3,x"], "write the extents"),
                          (["nn_ops/batch_norm", "--shape", "5"], "does not fit"),
                          (["binary_ops/add", "--shape", "5,5"], "takes flat inputs")]:
        done = runner.invoke(main, ["run", *args, "--build-dir", str(tmp_path)])
        assert done.exit_code == 2 and message in done.output, done.output
