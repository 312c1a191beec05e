"""Every starter kernel through the Python runtime on sw_emu and hw_emu, against numpy:
random data, one element, a tail that is not a multiple of 16, non-default scalars and
the special values (every pair for binary kernels), with the op table's accuracy."""

from __future__ import annotations

import numpy as np
import pytest
from runtime_support import device_for, hw_params, sw_variants, variant

from fpgakern.ir.dtypes import DTYPES
from fpgakern.runtime.check import run_case
from fpgakern.verify import stimulus


def _check_all_cases(qualname: str, rung: int, dtype: str, target: str) -> None:
    handle = device_for(qualname, rung, dtype, target).kernel(qualname)
    p = variant(qualname, rung, dtype)
    failures = []
    for case in stimulus.cases(p.kernel, DTYPES[dtype], size=300, lanes=16):
        verdict = run_case(handle, dtype, case)
        if not verdict.passed:
            failures.append(f"{case.label}: {verdict.summary()}")
        info = handle.last_call
        assert info is not None and info.target == target
        if target == "hw_emu":
            assert info.cycles is not None and info.cycles > 0
        else:
            assert info.cycles is None
    assert not failures, failures


@pytest.mark.parametrize(("qualname", "rung", "dtype"), sw_variants(),
                         ids=[f"{q}@{r}:{d}" for q, r, d in sw_variants()])
def test_sw_emu_matches_numpy(qualname, rung, dtype):
    _check_all_cases(qualname, rung, dtype, "sw_emu")


@pytest.mark.parametrize(("qualname", "rung", "dtype"), hw_params())
def test_hw_emu_matches_numpy(qualname, rung, dtype):
    _check_all_cases(qualname, rung, dtype, "hw_emu")


def test_rung3_splits_over_four_cus():
    handle = device_for("binary_ops/add", 3, "float32", "hw_emu").kernel("binary_ops/add")
    a = np.arange(1001, dtype=np.float32)
    out = handle(a, a, alpha=0.5)
    np.testing.assert_array_equal(out, a + np.float32(0.5) * a)
    info = handle.last_call
    assert info.compute_units == 4 and len(info.cu_cycles) == 4
    assert handle(a[:2], a[:2]).size == 2 and handle.last_call.compute_units == 2


def test_one_million_add_rung3_hw_emu_with_cycles():
    """The README's example: 1M float32 elements over 4 CUs on hw_emu, with cycles. (How
    fast the emulation runs is benchmarks/sim_speed.py's business, not a test's.)"""
    handle = device_for("binary_ops/add", 3, "float32", "hw_emu").kernel("binary_ops/add")
    rng = np.random.default_rng(6)
    a, b = (rng.standard_normal(1_000_000).astype(np.float32) for _ in range(2))
    out = handle(a, b, alpha=2.0)
    np.testing.assert_array_equal(out, (a + np.float32(2.0) * b).astype(np.float32))
    cycles = handle.last_call.cycles
    # 250 000 elements per CU at about one element per cycle, plus latency.
    assert 250_000 <= cycles < 300_000, cycles


def test_reduction_returns_0d_and_combines_cus():
    handle = device_for("reduce_ops/sum", 3, "int32", "sw_emu").kernel("reduce_ops/sum")
    x = np.arange(-500, 501, dtype=np.int32)
    out = handle(x)
    assert out.shape == () and int(out) == 0
    big = np.full(8, 2**30, dtype=np.int32)
    assert int(handle(big)) == np.int32(0)  # 8 * 2**30 wraps to 0, as int32 adds do
    empty = handle(np.zeros(0, dtype=np.int32))
    assert int(empty) == 0  # no CU runs: the identity


@pytest.mark.parametrize("rung", [2, 3])
def test_mean_of_nothing_is_nan_on_one_cu_and_on_several(rung):
    """torch.mean of no element is NaN. With no element no CU runs, also where a single
    CU would divide by n itself (rung 2): the host finishes the identity, -0 / 0."""
    handle = device_for("reduce_ops/mean", rung, "float32", "sw_emu").kernel("reduce_ops/mean")
    assert np.isnan(handle(np.zeros(0, dtype=np.float32)))
    assert float(handle(np.array([1.0, 2.0], dtype=np.float32))) == 1.5


def test_hw_emu_read_latency_changes_cycles_not_results():
    from fpgakern.runtime import open_plans

    p = variant("unary_ops/neg", 2, "float32")
    x = np.linspace(-3, 3, 4000, dtype=np.float32)
    cycles = {}
    for latency in (16, 256):
        handle = open_plans([p], "hw_emu", read_latency=latency).kernel("unary_ops/neg")
        np.testing.assert_array_equal(handle(x), -x)
        cycles[latency] = handle.last_call.cycles
    assert cycles[256] > cycles[16]
