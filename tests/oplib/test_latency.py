"""Every elementwise op with an RTL entry in the op table: the measured latency equals the
table's, a new operand set is accepted every cycle (II=1), and random ce stalls change
nothing but timing."""

from __future__ import annotations

import numpy as np
import pytest

from fpgakern.ir.ops import OPS
from fpgakern.verify import opsim

U32 = np.uint32
N = 3000

CASES = [(op.name, dtype) for op in OPS.values() if op.kind == "elementwise"
         for dtype in sorted(op.rtl)]


def _operands(op_name: str, dtype: str, rng: np.random.Generator) -> list[np.ndarray]:
    arity = OPS[op_name].arity
    if dtype == "float32":
        return _condition_bit(op_name, _some_equal([opsim.fp32_random(rng, N)
                                                    for _ in range(arity)]))
    operands = [opsim.int32_random(rng, N) for _ in range(arity)]
    if op_name in ("shl", "shr"):  # random 32-bit amounts would nearly all be out of range
        operands[1] = opsim.shift_amounts(rng, N)
    return _condition_bit(op_name, _some_equal(operands))


def _condition_bit(op_name: str, operands: list[np.ndarray]) -> list[np.ndarray]:
    """A condition operand (where's) drives a 1-bit port: keep bit 0 only."""
    if OPS[op_name].condition:
        operands[0] = operands[0] & U32(1)
    return operands


def _some_equal(operands: list[np.ndarray]) -> list[np.ndarray]:
    """Make every third pair equal, so that eq/ne/le/ge outputs vary (random pairs are
    almost never equal, and a constant output stream would match at every shift)."""
    if len(operands) > 1:
        operands[1][::3] = operands[0][::3]
    return operands


def _ordered(bits: np.ndarray) -> np.ndarray:
    """float32 bits -> integers whose difference counts ulps."""
    b = bits.astype(np.int64)
    return np.where(b & 0x8000_0000, 0x8000_0000 - b, b)


def _matcher(op_name: str, dtype: str):
    """Exact ops: equal bits (NaN = NaN). ulp-bounded ops: within their bound."""
    accuracy = OPS[op_name].accuracy_for(dtype)
    if accuracy.kind != "ulp":
        return None

    def within(got: np.ndarray, want: np.ndarray) -> np.ndarray:
        nan_g = (got & U32(0x7FFF_FFFF)) > U32(0x7F80_0000)
        nan_w = (want & U32(0x7FFF_FFFF)) > U32(0x7F80_0000)
        close = np.abs(_ordered(got) - _ordered(want)) <= accuracy.ulps
        return (nan_g & nan_w) | (~nan_g & ~nan_w & close)

    return within


@pytest.mark.parametrize(("op_name", "dtype"), CASES, ids=[f"{o}-{d}" for o, d in CASES])
def test_latency_matches_op_table(op_name, dtype, rng):
    impl = OPS[op_name].rtl[dtype]
    operands = _operands(op_name, dtype, rng)
    want = opsim.reference_bits(op_name, dtype, operands)
    out_bits = 1 if want.dtype == np.bool_ else 32
    float_result = (OPS[op_name].result_dtype or dtype) == "float32"
    measured = opsim.measure_latency(impl.module, operands, want, out_bits=out_bits,
                                     nan_equal=float_result, match=_matcher(op_name, dtype))
    assert measured == impl.latency, f"{impl.module}: op table says {impl.latency}"


@pytest.mark.parametrize(("op_name", "dtype"), CASES, ids=[f"{o}-{d}" for o, d in CASES])
def test_stalls_change_only_timing(op_name, dtype, rng):
    """II=1 with ce: a random ce pattern (about a third of the cycles stalled, with junk on
    the inputs) yields exactly the results of the unstalled run."""
    impl = OPS[op_name].rtl[dtype]
    operands = _operands(op_name, dtype, rng)
    out_bits = 1 if OPS[op_name].result_dtype == "bool" else 32
    plain = opsim.simulate_operator(impl.module, operands, impl.latency, out_bits=out_bits)
    pattern = rng.random(997) > 0.35
    stalled = opsim.simulate_operator(impl.module, operands, impl.latency, out_bits=out_bits,
                                      stall_pattern=pattern)
    assert np.array_equal(plain, stalled)
