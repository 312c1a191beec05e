"""The table's float32 transcendental entries, each with an ulp bound, and their
references."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from fpgakern.ir.ops.model import FLOAT, Accuracy, Op, RtlImpl, VitisImpl
from fpgakern.ir.ops.references import _atan2

# float32 functions with an ulp bound against the correctly rounded result (MPFR through
# gmpy2: tests/oplib/test_transcendental.py, benchmarks/operator_sweep_hard.py). The
# references compute in float64 and round once to float32: within 1 ulp of the correctly
# rounded result (double rounding), inside the bound; torch semantics for special values
# (log(-x) = NaN, log(+-0) = -inf, log(+inf) = +inf).


def _float64_then_round(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """fn over the operands converted to float64, rounded once to the first's dtype."""
    def reference(*xs: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return fn(*(x.astype(np.float64) for x in xs)).astype(xs[0].dtype)

    return reference


def _hls_math(name: str) -> VitisImpl:
    """A function of Vitis' HLS math library (UG1399, "HLS Math Library Accuracy": the
    bit-approximate functions differ from the C library by typically 1-4 ulp; no
    per-function bound for float is documented)."""
    return VitisImpl(f"hls::{name} (HLS math library, bit-approximate)", "flush",
                     "typically 1-4 ulp", f"glibc {name}f (< 1 ulp)")


_TRANSCENDENTAL: tuple[Op, ...] = (
    Op("log", 1, "elementwise", FLOAT, _float64_then_round(np.log), "hls::log({0})",
       "natural logarithm; NaN for x < 0, -inf for +-0",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_log", 16)},
       vitis=_hls_math("log")),
    Op("log2", 1, "elementwise", FLOAT, _float64_then_round(np.log2), "hls::log2({0})",
       "base-2 logarithm; NaN for x < 0, -inf for +-0",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_log2", 16)},
       vitis=_hls_math("log2")),
    Op("log1p", 1, "elementwise", FLOAT, _float64_then_round(np.log1p), "hls::log1p({0})",
       "log(1 + x), accurate near 0 (x itself below 2^-24); -inf at -1, NaN below",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_log1p", 18)},
       vitis=_hls_math("log1p")),
)

# --------------------------------------------------------------------------- more transcendental
# Issue 14's further float32 functions, each within 2 ulp of the correctly rounded result
# (MPFR: tests/oplib/test_transcendental.py, benchmarks/operator_sweep_hard.py).


def _rsqrt(x: np.ndarray) -> np.ndarray:
    """torch.rsqrt: 1 / sqrt(x) as torch's CPU kernel computes it, a correctly rounded
    square root and a correctly rounded division (two roundings: within 1 ulp of the
    correctly rounded result). rsqrt(-0) = -inf, rsqrt(x < 0) = NaN, rsqrt(+inf) = +0."""
    with np.errstate(all="ignore"):
        return (np.float32(1.0) / np.sqrt(x)).astype(x.dtype)


def _erf(x: np.ndarray) -> np.ndarray:
    """math.erf (the C library's double erf) elementwise: numpy has no erf."""
    return np.asarray(_ERF_ELEMENTWISE(x), dtype=np.float64)


_ERF_ELEMENTWISE = np.frompyfunc(math.erf, 1, 1)
_ERFC_ELEMENTWISE = np.frompyfunc(math.erfc, 1, 1)

_SQRT1_2 = 0.7071067811865476  # 1/sqrt(2), float64
_GELU_TANH_BETA = math.sqrt(2.0 / math.pi)
_GELU_TANH_KAPPA = 0.044715


def _gelu(x: np.ndarray) -> np.ndarray:
    """torch.nn.functional.gelu(x) (approximate='none'), x * Phi(x), computed as
    0.5 * x * erfc(-x / sqrt(2)) in float64 and rounded once. torch's float32 formula
    x * 0.5 * (1 + erf(x / sqrt(2))) cancels for x << 0 (1 + erf(..) -> 0); erfc keeps the
    relative accuracy down to the underflow near x = -14.3: the float64 result is within
    a few float64 ulp, so the float32 rounding is within 1 ulp of MPFR's.
    Special values follow the formula in IEEE arithmetic: gelu(+inf) = +inf,
    gelu(-inf) = -inf * 0 = NaN, gelu(NaN) = NaN."""
    with np.errstate(all="ignore"):
        x64 = x.astype(np.float64)
        erfc = np.asarray(_ERFC_ELEMENTWISE(-x64 * _SQRT1_2), dtype=np.float64)
        return (0.5 * x64 * erfc).astype(x.dtype)


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    """torch.nn.functional.gelu(x, approximate='tanh'),
    0.5 * x * (1 + tanh(u)), u = sqrt(2/pi) * (x + 0.044715 x^3), computed as the identity
    x * sigmoid(2u) = x / (1 + e^(-2u)) in float64 and rounded once: 1 + tanh(u) cancels
    for x << 0 (in float64 too, from u < -19), the quotient does not. gelu_tanh(+inf) =
    +inf, gelu_tanh(-inf) = -inf / inf = NaN (as torch), gelu_tanh(NaN) = NaN."""
    with np.errstate(all="ignore"):
        x64 = x.astype(np.float64)
        two_u = 2.0 * _GELU_TANH_BETA * (x64 + _GELU_TANH_KAPPA * x64 * x64 * x64)
        return (x64 / (1.0 + np.exp(-two_u))).astype(x.dtype)


# fsqrt then fdiv: Vitis binds both to Floating-Point Operator cores, IEEE-rounded, so
# the HLS result is torch's bit for bit (hls::rsqrt, bit-approximate, would not be).
_RSQRT = VitisImpl("Floating-Point Operator cores (fsqrt, then fdiv)", "flush",
                   "two roundings, <= 1 ulp of the correctly rounded 1/sqrt(x)")

# gelu and gelu_tanh compute in double (fk::gelu, fk::gelu_tanh): float32 formulas cancel
# in the negative tail. Vitis builds the double functions of its math library.
_GELU_VITIS = VitisImpl("hls::erfc on double, then dmul (HLS math library)", "flush",
                        "not documented for double erfc; fpgakern's contract is 2 ulp",
                        "glibc erfc in double, rounded once (<= 1 ulp)")
_GELU_TANH_VITIS = VitisImpl("hls::exp on double, then dadd and ddiv (HLS math library)",
                             "flush",
                             "not documented for double exp; fpgakern's contract is 2 ulp",
                             "glibc exp in double, rounded once (<= 1 ulp)")

_MORE_TRANSCENDENTAL: tuple[Op, ...] = (
    Op("rsqrt", 1, "elementwise", FLOAT, _rsqrt, "(1.0f / hls::sqrt({0}))",
       "1 / sqrt(x), as torch: sqrt then divide (two roundings, <= 1 ulp of MPFR)",
       rtl={"float32": RtlImpl("fk_fp32_rsqrt", 34)},
       vitis=_RSQRT),
    Op("exp2", 1, "elementwise", FLOAT, _float64_then_round(np.exp2), "hls::exp2({0})",
       "2 to the x",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_exp2", 15)},
       vitis=_hls_math("exp2")),
    Op("tanh", 1, "elementwise", FLOAT, _float64_then_round(np.tanh), "hls::tanh({0})",
       "hyperbolic tangent; x itself below 2^-12, +-1 from about 9.01",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_tanh", 29)},
       vitis=_hls_math("tanh")),
    Op("expm1", 1, "elementwise", FLOAT, _float64_then_round(np.expm1), "hls::expm1({0})",
       "e to the x, minus 1; x itself below 2^-24",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_expm1", 17)},
       vitis=_hls_math("expm1")),
    # np.power in float64 is C's pow, with C99's special cases (pow(x, +-0) = 1 and
    # pow(1, y) = 1 even for NaN, pow(-1, +-inf) = 1, ...), which torch.pow follows.
    Op("pow", 2, "elementwise", FLOAT, _float64_then_round(np.power), "hls::pow({0}, {1})",
       "x to the power y (C99 special cases); NaN for x < 0 and a non-integer y",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_pow", 30)},
       vitis=_hls_math("pow")),
    Op("atan2", 2, "elementwise", FLOAT, _atan2, "hls::atan2({0}, {1})",
       "angle of the point (x, y) = (b, a), in [-pi, pi]: atan2(y, x), y first as torch",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_atan2", 31)},
       vitis=_hls_math("atan2")),
    Op("erf", 1, "elementwise", FLOAT, _float64_then_round(_erf), "hls::erf({0})",
       "error function; +-1 from |x| = 3.9192059 (0x407AD445) on",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_erf", 15)},
       vitis=_hls_math("erf")),
    Op("gelu", 1, "elementwise", FLOAT, _gelu, "fk::gelu({0})",
       "torch.nn.functional.gelu: x * Phi(x) = 0.5 x erfc(-x/sqrt(2)), accurate in the "
       "negative tail down to the underflow (about -14.3); NaN for -inf",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_gelu", 19)},
       vitis=_GELU_VITIS),
    Op("gelu_tanh", 1, "elementwise", FLOAT, _gelu_tanh, "fk::gelu_tanh({0})",
       "torch.nn.functional.gelu(approximate='tanh'): 0.5 x (1 + tanh(sqrt(2/pi) (x + "
       "0.044715 x^3))) = x sigmoid(2u), accurate in the negative tail; NaN for -inf",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_gelu_tanh", 29)},
       vitis=_GELU_TANH_VITIS),
    Op("sin", 1, "elementwise", FLOAT, _float64_then_round(np.sin), "hls::sin({0})",
       "sine, every finite x reduced exactly enough (docs/operators.md); x itself below "
       "2^-12, NaN for +-inf",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_sin", 22)},
       vitis=_hls_math("sin")),
    Op("cos", 1, "elementwise", FLOAT, _float64_then_round(np.cos), "hls::cos({0})",
       "cosine, every finite x reduced exactly enough (docs/operators.md); 1 below 2^-12, "
       "NaN for +-inf",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp against MPFR (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_cos", 22)},
       vitis=_hls_math("cos")),
)
