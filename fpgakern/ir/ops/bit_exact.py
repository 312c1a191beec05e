"""The table's bit-exact rounding, sign, reciprocal, clamp and where entries, with their
references."""

from __future__ import annotations

import numpy as np

from fpgakern.ir.ops.model import BOTH, FLOAT, Op, RtlImpl, VitisImpl, _fp_core
from fpgakern.ir.ops.references import _is_float, _maximum, _minimum

# Elementwise operators whose result IEEE (or integer arithmetic) fixes exactly, each
# checked against torch itself on special values (tests/oplib/test_exact_ops.py).


def _trunc(x: np.ndarray) -> np.ndarray:
    """torch.trunc (and floor, ceil, round below): integral floats are exact, so numpy's
    result is IEEE's, signed zeros included (trunc(-0.5) = -0); an integer is unchanged."""
    with np.errstate(invalid="ignore"):  # a signalling NaN quietly becomes NaN
        return np.trunc(x) if _is_float(x) else x.copy()


def _floor(x: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.floor(x) if _is_float(x) else x.copy()


def _ceil(x: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.ceil(x) if _is_float(x) else x.copy()


def _round(x: np.ndarray) -> np.ndarray:
    """torch.round: to the nearest integer, ties to even (numpy's rint)."""
    with np.errstate(invalid="ignore"):
        return np.rint(x) if _is_float(x) else x.copy()


def _sign(x: np.ndarray) -> np.ndarray:
    """torch.sign: (0 < x) - (x < 0), so +-0 and NaN give +0 (numpy's sign keeps NaN)."""
    with np.errstate(invalid="ignore"):
        return ((x > 0).astype(np.int32) - (x < 0).astype(np.int32)).astype(x.dtype)


def _copysign(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch.copysign: a's magnitude, b's sign bit (a bit operation: NaN signs count)."""
    bits = (a.view(np.uint32) & np.uint32(0x7FFF_FFFF)) | (b.view(np.uint32)
                                                          & np.uint32(0x8000_0000))
    return bits.view(a.dtype)


def _where(cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch.where(cond, a, b): a's element where cond holds, else b's, bits unchanged
    (NaN payloads and signed zeros included). cond is a comparison's result."""
    return np.where(cond.astype(np.bool_), a, b).astype(a.dtype)


def _reciprocal(x: np.ndarray) -> np.ndarray:
    """torch.reciprocal: 1 / x, one IEEE division (correctly rounded)."""
    with np.errstate(all="ignore"):
        return (np.float32(1.0) / x).astype(x.dtype)


def _clamp(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """torch.clamp(x, lo, hi) with tensor bounds: min(max(x, lo), hi), so lo > hi gives hi
    and a NaN in any operand gives NaN. Over zeros of opposite sign torch's CPU answer
    depends on its code path (vectorized or not); the op table orders -0 < +0, as
    maximum and minimum do."""
    return _minimum(_maximum(x, lo), hi)


# Rounding to an integral value in HLS C++: fk::trunc and friends (float -> int32 -> float
# conversions and compares, fpgakern_ops.h). Subnormal operands: floor and ceil see them
# as zero on flushing hardware, like every Floating-Point Operator core input.
_RINT = VitisImpl("Floating-Point Operator core (float to int, int to float) + fcmp",
                  "flush", "exact (integral results)")
_SIGN = VitisImpl("fcmp against 0 + select of constants", "compare", "exact")
_COPYSIGN = VitisImpl("sign-bit logic (fk::copysign)", "exact", "exact")
_CLAMP = VitisImpl("fcmp (comparator) + select, twice", "compare", "exact")
# The comparison feeding where is its own node (fcmp, subnormals seen as zero); the
# multiplexer passes the chosen operand's bits, subnormal or not.
_WHERE = VitisImpl("select (multiplexer) on a comparison's result", "exact", "exact")

_BIT_EXACT: tuple[Op, ...] = (
    Op("trunc", 1, "elementwise", BOTH, _trunc, "fk::trunc({0})",
       "round toward zero (-0.5 -> -0); int32 unchanged",
       rtl={"float32": RtlImpl("fk_fp32_trunc", 1),
            "int32": RtlImpl("fk_int32_identity", 0)},
       vitis=_RINT),
    Op("floor", 1, "elementwise", BOTH, _floor, "fk::floor({0})",
       "round toward -inf; int32 unchanged",
       rtl={"float32": RtlImpl("fk_fp32_floor", 1),
            "int32": RtlImpl("fk_int32_identity", 0)},
       vitis=_RINT),
    Op("ceil", 1, "elementwise", BOTH, _ceil, "fk::ceil({0})",
       "round toward +inf (-0.5 -> -0); int32 unchanged",
       rtl={"float32": RtlImpl("fk_fp32_ceil", 1),
            "int32": RtlImpl("fk_int32_identity", 0)},
       vitis=_RINT),
    Op("round", 1, "elementwise", BOTH, _round, "fk::round({0})",
       "round to nearest, ties to even (torch.round); int32 unchanged",
       rtl={"float32": RtlImpl("fk_fp32_round_even", 1),
            "int32": RtlImpl("fk_int32_identity", 0)},
       vitis=_RINT),
    Op("sign", 1, "elementwise", BOTH, _sign, "fk::sign({0})",
       "1, -1, or +0 for zeros and NaN (torch.sign)",
       rtl={"float32": RtlImpl("fk_fp32_signum", 0),
            "int32": RtlImpl("fk_int32_signum", 0)},
       vitis=_SIGN),
    Op("copysign", 2, "elementwise", FLOAT, _copysign, "fk::copysign({0}, {1})",
       "a's magnitude with b's sign bit",
       rtl={"float32": RtlImpl("fk_fp32_copysign", 0)},
       vitis=_COPYSIGN),
    Op("reciprocal", 1, "elementwise", FLOAT, _reciprocal, "(1.0f / {0})",
       "1 / x, correctly rounded",
       rtl={"float32": RtlImpl("fk_fp32_reciprocal", 18)},
       vitis=_fp_core("fdiv")),
    Op("clamp", 3, "elementwise", BOTH, _clamp, "fk::clamp({0}, {1}, {2})",
       "min(max(x, lo), hi); NaN propagates, lo > hi gives hi",
       rtl={"float32": RtlImpl("fk_fp32_clamp", 2),
            "int32": RtlImpl("fk_int32_clamp", 1)},
       vitis=_CLAMP),
    Op("where", 3, "elementwise", BOTH, _where, "({0} ? {1} : {2})",
       "a where the comparison cond holds, else b (torch.where); bits pass unchanged",
       condition=True,
       rtl={"float32": RtlImpl("fk_where", 0),
            "int32": RtlImpl("fk_where", 0)},
       vitis=_WHERE),
)
