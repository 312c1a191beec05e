"""AXI protocol under stress: random backpressure, unaligned tails, 4 KiB crossings.

cocotbext-axi's AxiRam (with pause generators on all five channels of every master)
and the fast model with random stalls. Buffers start a few beats before a 4 KiB page
boundary, so every transfer must split its bursts there; the sizes leave partial tail
words (WSTRB must mask them); guard bytes around every output (AxiRam) and the fast
model's own checks catch any byte written outside a buffer.
"""

from __future__ import annotations

import pytest

from fpgakern.ladder import plan
from fpgakern.verify.rtlsim import simulate

TAILS = [1, 17, 53]  # single element, partial 512-bit words, a partial burst
# The default run stresses one rung of each top-template family (sequential 0-1, dataflow
# 2-3, 512-bit lanes 4-5; tests/variant_selection.py) in int32; -m slow every rung, float32.
FAMILY_RUNGS = (0, 2, 4)


def _rungs(dtype: str = "int32") -> list:
    return [pytest.param(r, marks=() if r in FAMILY_RUNGS and dtype == "int32"
                         else pytest.mark.slow) for r in range(5)]


def _offset(library, kernel: str, rung: int, dtype: str) -> int:
    beat = plan(library.get(kernel), rung, dtype).arch.port_bits // 8
    return 4096 - 3 * beat  # three beats, then the page boundary


@pytest.mark.parametrize("rung", _rungs())
def test_axiram_backpressure(library, rung, sim_run_dir):
    kernel, dtype = "binary_ops/add", "int32"
    size = 300 if rung == 4 else 150
    result = simulate(plan(library.get(kernel), rung, dtype), size=size, memory="axiram",
                      labels=["random"], extra_sizes=TAILS, backpressure=0.3,
                      buffer_offset=_offset(library, kernel, rung, dtype), seed=rung + 11,
                      run_dir=sim_run_dir)
    assert result.passed, result.message
    assert [c["label"] for c in result.cases] == ["random", "size_1", "size_17", "size_53"]


@pytest.mark.parametrize(("kernel", "rung", "dtype"), [
    ("reduce_ops/sum", 2, "float32"), ("reduce_ops/max", 4, "int32"),
    ("unary_ops/relu", 4, "float32"),
])
def test_axiram_backpressure_other_shapes(library, kernel, rung, dtype, sim_run_dir):
    result = simulate(plan(library.get(kernel), rung, dtype), size=200, memory="axiram",
                      labels=["random"], extra_sizes=TAILS, backpressure=0.3,
                      buffer_offset=_offset(library, kernel, rung, dtype), seed=5,
                      run_dir=sim_run_dir)
    assert result.passed, result.message


@pytest.mark.parametrize(("rung", "dtype"), [
    pytest.param(*p.values, d, marks=p.marks, id=f"{d}-{p.values[0]}")
    for d in ("float32", "int32") for p in _rungs(d)])
def test_fast_model_random_stalls(library, rung, dtype, sim_run_dir):
    """Same build as the library test: stalls on every channel, 4 KiB-straddling buffers."""
    kernel = "binary_ops/add"
    result = simulate(plan(library.get(kernel), rung, dtype), size=200, labels=["random"],
                      extra_sizes=[*TAILS, 1000], stall_permille=300,
                      buffer_offset=_offset(library, kernel, rung, dtype), seed=rung + 3,
                      run_dir=sim_run_dir)
    assert result.passed, result.message


def test_stalls_cost_cycles(library, sim_run_dir):
    """The stall knob really throttles the kernel (else the test above proves nothing)."""
    kernel = library.get("binary_ops/add")
    calm = simulate(plan(kernel, 4, "int32"), size=4000, labels=["random"], run_dir=sim_run_dir)
    stalled = simulate(plan(kernel, 4, "int32"), size=4000, labels=["random"], stall_permille=500,
                       run_dir=sim_run_dir)
    assert calm.passed and stalled.passed
    assert stalled.cycles > 1.5 * calm.cycles, (calm.cycles, stalled.cycles)
