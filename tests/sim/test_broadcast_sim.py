"""Broadcast kernels in RTL simulation beyond the library run (tests/sim/test_library_sim.py
simulates every rung on the standard cases): AXI stress with buffers straddling a 4 KiB
page, and a mutated channel walk that the cases must catch."""

from __future__ import annotations

import pytest

from fpgakern.ladder import plan
from fpgakern.verify.rtlsim import simulate

# The cases whose channel walks differ most: a channel per element, more channels than
# lanes with a short inner run, inner runs longer than a beat and not a multiple of it.
WALKS = ["inner_1", "channels_17", "shape_3x16x33", "shape_2x3x5"]


def _offset(library, kernel: str, rung: int) -> int:
    beat = plan(library.get(kernel), rung, "float32").arch.port_bits // 8
    return 4096 - 3 * beat  # three beats, then the page boundary


@pytest.mark.parametrize("rung", [1, 4])
def test_axiram_backpressure(library, rung, sim_run_dir):
    kernel = "nn_ops/batch_norm"
    result = simulate(plan(library.get(kernel), rung, "float32"), memory="axiram",
                      labels=WALKS, backpressure=0.3,
                      buffer_offset=_offset(library, kernel, rung), seed=rung + 7,
                      run_dir=sim_run_dir)
    assert result.passed, result.message
    assert sorted(c["label"] for c in result.cases) == sorted(WALKS)


@pytest.mark.slow
@pytest.mark.parametrize("rung", [0, 2, 3])
def test_fast_model_random_stalls(library, rung, sim_run_dir):
    kernel = "nn_ops/bias_add"
    result = simulate(plan(library.get(kernel), rung, "float32"), labels=WALKS,
                      stall_permille=300, buffer_offset=_offset(library, kernel, rung),
                      seed=rung + 3, run_dir=sim_run_dir)
    assert result.passed, result.message


def test_channel_walk_errors_are_caught(library, mutate_rtl, sim_run_dir):
    """A walk that carries into the next channel one element late must fail."""
    mutate_rtl("fk_channel_walk.sv", r"carry = sum >= \{1'b0, inner_q\};",
               "carry = sum > {1'b0, inner_q};")
    result = simulate(plan(library.get("nn_ops/bias_add"), 4, "float32"), labels=WALKS,
                      build_speed="quick", run_dir=sim_run_dir)
    assert result.passed is False
    failed = {c["label"] for c in result.cases if not c["passed"]}
    assert {"channels_17", "shape_3x16x33"} <= failed, result.cases
