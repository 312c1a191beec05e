"""The table's remainder entries (fmod, remainder), with their references."""

from __future__ import annotations

import numpy as np

from fpgakern.ir.ops.model import BOTH, Op, RtlImpl, VitisImpl
from fpgakern.ir.ops.references import _is_float

# fmod (C's, torch.fmod) and remainder (Python's, torch.remainder), float32 and int32,
# checked against torch itself (tests/oplib/test_mod_ops.py). A float remainder is exact
# (always representable), so the references are IEEE's; torch's own vectorized float
# kernel gives NaN where the float32 quotient a / b overflows (its scalar path does not):
# torch.ops.fpgakern falls back to torch for such inputs (fpgakern/runtime/torch_ops.py).


def _fmod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch.fmod: a - trunc(a / b) * b, exact, with a's sign (fmod(-4, 2) = -0);
    fmod(x, 0), fmod(+-inf, y) and NaN operands give NaN, fmod(x, +-inf) = x.

    int32: C's truncating %. torch raises for a zero divisor; hardware must answer, and
    fpgakern defines x % 0 = x (the RISC-V convention, what a restoring divider gives).
    INT32_MIN % -1 = 0."""
    if _is_float(a):
        with np.errstate(all="ignore"):
            return np.fmod(a, b).astype(a.dtype)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    r = np.fmod(a64, np.where(b64 == 0, 1, b64))
    return np.where(b64 == 0, a64, r).astype(np.int32)


def _remainder(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch.remainder, Python's %: the result takes b's sign. As torch's CPU kernel:
    r = fmod(a, b), and where r is nonzero with a sign other than b's, r + b (a float32
    addition, rounded: remainder(-1e-30, 1) = 1.0, remainder(-5, inf) = inf). A zero r
    keeps its sign (remainder(-0, 1) = -0); remainder(x, 0), remainder(+-inf, y) and NaN
    operands give NaN.

    int32: floored %, with fmod's x % 0 = x (the correction adds 0) and
    INT32_MIN % -1 = 0; torch raises for a zero divisor."""
    r = _fmod(a, b)
    if _is_float(a):
        with np.errstate(all="ignore"):
            adjust = (r != 0) & (np.signbit(r) != np.signbit(b))
            return np.where(adjust, r + b, r).astype(a.dtype)
    adjust = (r != 0) & ((r < 0) != (b < 0))
    return np.where(adjust, r.astype(np.int64) + b, r).astype(np.int32)


_FMOD = VitisImpl("hls::fmod (HLS math library)", "flush",
                  "exact result representable; Vitis' implementation not confirmed exact",
                  "glibc fmodf (exact)")
# remainder: hls::fmod, then a float add (the Floating-Point Operator core's fadd) where
# the signs differ; hls::remainder is IEEE's round-to-nearest remainder, another function.
_REMAINDER = VitisImpl("hls::fmod, then fadd (Floating-Point Operator core) where the signs "
                       "differ", "flush",
                       "fmod exact, the add rounded to nearest even, as torch; Vitis' fmod "
                       "not confirmed exact", "glibc fmodf (exact), then x86 SSE addss")

_MODULO: tuple[Op, ...] = (
    Op("fmod", 2, "elementwise", BOTH, _fmod, "fk::fmod({0}, {1})",
       "C's remainder, a's sign (torch.fmod); int32 x % 0 = x",
       rtl={"float32": RtlImpl("fk_fp32_fmod", 142),
            "int32": RtlImpl("fk_int32_fmod", 18)},
       vitis=_FMOD),
    Op("remainder", 2, "elementwise", BOTH, _remainder, "fk::remainder({0}, {1})",
       "Python's remainder, b's sign (torch.remainder: fmod, then + b where the signs "
       "differ); int32 x % 0 = x",
       rtl={"float32": RtlImpl("fk_fp32_remainder", 148),
            "int32": RtlImpl("fk_int32_remainder", 19)},
       vitis=_REMAINDER),
)
