"""Row kernels (row_map, row_reduction) in RTL simulation against the float64 oracle
under each spec's rows accuracy (docs/rtl.md, "Row kernels")."""

from __future__ import annotations

from pathlib import Path

import pytest

from fpgakern.ladder import plan
from fpgakern.spec.library import Library
from fpgakern.verify.rtlsim import simulate


def test_row_shapes_and_special_rows(library, sim_run_dir):
    """layer_norm at rung 4 (16 lanes, per-column tables) on rows of 1, 5, 16, 33 and 256
    columns, special and all-equal rows, no columns and no rows, under the spec's bound."""
    result = simulate(plan(library.get("nn_ops/layer_norm"), 4, "float32"), size=512,
                      run_dir=sim_run_dir)
    assert result.passed, result.message
    labels = {c["label"] for c in result.cases}
    assert {"cols_1", "cols_5", "cols_16", "cols_33", "special", "equal", "no_cols",
            "no_rows"} <= labels
    # One read of everything: x (1 row of 512 = 32 beats) and one row of weight and bias.
    main = next(c for c in result.cases if c["label"] == "random")
    assert sum(p["read_beats"] for p in main["ports"].values()) == 32 + 2 * 32
    assert sum(p["write_beats"] for p in main["ports"].values()) == 32


@pytest.mark.slow
@pytest.mark.parametrize("kernel", ["nn_ops/softmax", "nn_ops/log_softmax",
                                    "nn_ops/layer_norm", "nn_ops/rms_norm",
                                    "nn_ops/row_sum", "nn_ops/row_mean"])
@pytest.mark.parametrize("rung", [0, 1, 2, 3, 4])
def test_row_kernels_every_rung(library, kernel, rung, sim_run_dir):
    result = simulate(plan(library.get(kernel), rung, "float32"), size=2048, run_dir=sim_run_dir)
    assert result.passed, result.message


# Several full-shaped inputs, read in lockstep (docs/rtl.md, "Row kernels"): layer_norm of
# the fused prefix relu(a * sigmoid(a) + bias + x), sum(a * b) along rows, and
# (a - max(a)) * g.
LOCKSTEP = Library(Path(__file__).parents[1] / "data" / "lockstep_project" / "kernel_specs")


def _lockstep_case(kernel: str, rung: int, sim_run_dir: Path) -> None:
    k = LOCKSTEP.get(kernel)
    result = simulate(plan(k, rung, "float32"), size=2048, run_dir=sim_run_dir)
    assert result.passed, result.message
    # Each full input read once (2 rows of 1024), each per-column input one row.
    row_beats = 1024 // plan(k, rung, "float32").arch.lanes
    layout = k.layout
    main = next(c for c in result.cases if c["label"] == "random")
    reads = sum(p["read_beats"] for p in main["ports"].values())
    assert reads == row_beats * (2 * len(layout.full_inputs) + len(layout.channel_inputs))


# fused_ln at rung 4 (25 s of model) nightly: test_library_sim's layer_norm-4 holds the
# lanes form of the rows kind in the default run.
@pytest.mark.parametrize(("kernel", "rung"), [("fused/fused_ln", 1),
                                              pytest.param("fused/fused_ln", 4,
                                                           marks=pytest.mark.slow),
                                              ("fused/row_dot", 2), ("fused/gated_shift", 1)])
def test_several_full_inputs(kernel, rung, sim_run_dir):
    """Rung 1 reads both inputs in chunks through one gmem; rungs 2 and 4 each on a port
    of its own, at 1 and 16 lanes. fused_ln's row FIFOs keep its prefix (computed once in
    stage 0), gated_shift's both inputs' beats."""
    _lockstep_case(kernel, rung, sim_run_dir)


@pytest.mark.slow
@pytest.mark.parametrize("kernel", ["fused/fused_ln", "fused/row_dot", "fused/gated_shift"])
@pytest.mark.parametrize("rung", [0, 1, 2, 3, 4])
def test_several_full_inputs_every_rung(kernel, rung, sim_run_dir):
    _lockstep_case(kernel, rung, sim_run_dir)
