"""The op table: the single definition of every operator fpgakern knows.

Each entry carries everything every layer needs about one operator:

* ``reference``: its numpy implementation, following torch semantics, which is the
  oracle that C simulation and RTL simulation are judged against;
* ``hls``: its spelling in the generated Vitis HLS C++ (a format string over the
  operand expressions; helpers prefixed ``fk::`` live in ``fpgakern_ops.h``);
* ``rtl``: per dtype, the SystemVerilog operator module that implements it and its
  fixed pipeline latency in cycles (filled in by the RTL operator library);
* ``hls_latency``: per dtype, the cycles Vitis HLS schedules the op over at
  :data:`HLS_CLOCK_MHZ` (for the ops that combine a reduction's partial results: it sizes
  the HLS accumulate loop's interleave);
* ``accuracy``: the contract the verifiers enforce (bit-exact, or an ulp bound);
* ``vitis``: what real Vitis HLS builds from the float32 HLS spelling (its core, how it
  treats subnormals, its ulp bound), which docs/vitis.md tabulates and the flushing C
  simulation (``fpgakern csim --hls-flush-subnormals``) models.

Adding an elementwise operator means adding one entry here (and, at most, one RTL
operator file); the parser, type checker, generators and verifiers read it from here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from fpgakern.ir.dtypes import DTYPES

FLOAT = frozenset({"float32"})
INT = frozenset({"int32"})
BOTH = FLOAT | INT
COMPLEX = frozenset({"complex64"})

_INT32_MIN = np.iinfo(np.int32).min

# Index reductions (argmax, argmin): the element whose index the reduction returns is the
# larger or the smaller of every pair it compares (Op.picks).
Pick = Literal["larger", "smaller"]


@dataclass(frozen=True)
class Accuracy:
    """What a verifier demands of an op's results against its reference.

    ``exact``: bit for bit (any NaN matches any NaN). ``ulp``: within ``ulps`` units in the
    last place. ``reduction``: a floating-point reduction whose order of combination is
    the hardware's; judged against a float64 reference with the standard error bound of
    its ``bound``: ``sum``, ``n * 2**-24 * sum(|x|)``; ``product``,
    ``n * 2**-24 * |prod(x)|`` (n roundings, each relative, while every partial product
    stays a normal number: verify.stimulus keeps them there); ``mean``, the sum's bound
    divided by n plus the roundings of float(n) and of the quotient, each half an ulp
    (``2**-24 * sum(|x|) + 2**-23 * sum(|x|) / n``).
    """

    kind: Literal["exact", "ulp", "reduction", "rows"]
    ulps: int = 0
    bound: Literal["sum", "product", "mean"] = "sum"
    # ``rows`` (a shaped kernel that reduces along rows, stated in its spec): each element
    # within ``ulps`` ulps of itself plus ``row_ulps`` ulps of its row's largest magnitude,
    # plus ``sum_ulps`` row-largest ulps per rounding a row sum's term goes through
    # (row_sum_depth: a float sum's error grows with it), against the float64 evaluation
    # of the expression rounded to float32 (verify.compare.compare_rows):
    # |y - r| <= ulps * ulp(r) + (row_ulps + sum_ulps * row_sum_depth(cols)) * ulp(m),
    # m = max |r| of the row. docs/nn_ops.md derives each nn_ops kernel's three numbers.
    row_ulps: int = 0
    sum_ulps: int = 0

    def __str__(self) -> str:
        if self.kind == "rows":
            per_depth = f" + {self.sum_ulps} per sum depth" if self.sum_ulps else ""
            return f"<= {self.ulps} ulp + {self.row_ulps}{per_depth} ulp of the row's largest"
        if self.kind == "reduction" and self.bound != "sum":
            return f"reduction ({self.bound})"
        return f"<= {self.ulps} ulp" if self.kind == "ulp" else self.kind


EXACT = Accuracy("exact")

# The widest memory word of the ladder (rung 4's 512 bits): with Plan.lanes 1 below it,
# the two lane counts a float32 row sum can have, whose rounding depths row_sum_depth takes
# the larger of.
_VECTOR_BITS = 512


def row_sum_depth(cols: int, dtype_name: str = "float32") -> int:
    """The most roundings any term of a float row sum of ``cols`` elements goes through in
    the hardware's order on any rung (fk_reduce_core, docs/operators.md): log2(L) in the
    tree over a beat's L lanes, one per later beat into its partial (beat k joins partial
    k % P; the first joins the identity exactly), log2(P) in the final tree over the P
    partials. The larger of L = 1 and L = Plan.lanes at rung 4; 0 for an empty row. The
    standard bound then holds: |computed - exact| <= depth * 2**-24 * sum |terms| (to
    first order; depth * 2**-24 stays below 1e-4 for cols <= shapes.MAX_ROW)."""
    if cols <= 0:
        return 0
    partials = OPS["sum"].partials(dtype_name)
    depths = []
    for lanes in (1, DTYPES[dtype_name].lanes(_VECTOR_BITS)):
        beats = -(-cols // lanes)
        depths.append(int(math.log2(lanes)) + -(-beats // partials) - 1
                      + int(math.log2(partials)))
    return max(depths)

# The kernel clock the HLS path is scheduled for: Vitis' default for Alveo platforms.
# ``Op.hls_latency`` holds Vitis' operator latencies at this clock
# (docs/operators.md, "Vitis HLS operator latencies", gives the sources).
HLS_CLOCK_MHZ = 300


Subnormals = Literal["flush", "compare", "exact"]


@dataclass(frozen=True)
class VitisImpl:
    """What Vitis HLS makes of an op's float32 HLS spelling (docs/vitis.md cites sources).

    ``core``: what Vitis binds the operation to. ``subnormals``: ``flush`` (the
    Floating-Point Operator core's rule: subnormal operands count as zero of their sign,
    and subnormal results become zero of their sign), ``compare`` (a comparison that
    sees subnormal operands as zero; a selected operand passes through unchanged) or
    ``exact`` (sign-bit logic or integer-only values: no subnormal is ever changed).
    ``accuracy``: the rounding or ulp bound of the Vitis implementation, as documented
    (or stated as unconfirmed). ``csim``: what fpgakern's C simulation computes instead
    (x86 SSE arithmetic and glibc, through ``hls_templates/csim``).
    """

    core: str
    subnormals: Subnormals
    accuracy: str
    csim: str = "x86 SSE, IEEE (bit-exact)"


# The Floating-Point Operator core's arithmetic, for the ops Vitis binds to it.
_RNE = "round to nearest even (0.5 ulp)"


def _fp_core(op: str) -> VitisImpl:
    return VitisImpl(f"Floating-Point Operator core ({op})", "flush", _RNE)


_COMPARE = VitisImpl("fcmp (comparator) + select", "compare", "exact")
_FCMP = VitisImpl("fcmp (comparator)", "compare", "exact")
_RELU = VitisImpl("fcmp against 0 + select", "compare", "exact")
_NEG = VitisImpl("sign-bit flip (logic)", "exact", "exact")
_WIRING = VitisImpl("wiring (a constant +0 beside the value)", "exact", "exact")
_ABS = VitisImpl("hls::fabs: sign-bit clear (logic); complex64 fk::abs, a scaled hypot "
                 "(fmul, fma, fsqrt cores, which flush subnormals)", "exact",
                 "exact; complex64 <= 2 ulp")
_ANGLE = VitisImpl("hls::atan2 (HLS math library, bit-approximate) on the two halves",
                   "flush", "typically 1-4 ulp", "glibc atan2f (< 1 ulp)")
_WIRING_PART = VitisImpl("wiring (one float32 half of the complex64 element)", "exact",
                         "exact")
# UG1399 documents no implementation or accuracy for hls::fma (docs/vitis.md, "fma").
_FMA = VitisImpl("hls::fma: not documented (fused, or fmul then fadd)", "flush",
                 "one rounding not confirmed; fmul then fadd rounds twice",
                 "glibc fmaf, one rounding (bit-exact)")
_EXP = VitisImpl("hls::exp (HLS math library, bit-approximate)", "flush",
                 "typically 1-4 ulp", "glibc expf (< 1 ulp)")
_SIGMOID = VitisImpl("hls::exp, then fadd and fdiv", "flush",
                     "exp's 1-4 ulp plus two roundings (not measured)",
                     "glibc expf, then IEEE add and divide")
# Conversions: an int32 never converts to a subnormal, and a subnormal truncates to 0
# whether or not it is flushed first.
_TO_FLOAT = VitisImpl("Floating-Point Operator core (int to float)", "exact", _RNE)
_TO_INT = VitisImpl("Floating-Point Operator core (float to int)", "exact",
                    "exact (truncation)")


@dataclass(frozen=True)
class RtlImpl:
    """The RTL operator module implementing an op for one dtype.

    The module has ports ``clk``, ``ce``, operand inputs ``a`` (``b``, ``c``) and result
    ``y``, accepts a new operand set every cycle (II=1) and shows the result ``latency``
    cycles later (counting only cycles with ``ce`` high).

    For a reduction (``Op.kind == "reduce"``) the module is the accumulator
    ``fk_reduce_<dtype>_<op>`` (stream interface with in_valid/in_ready, lane mask and
    in_last; parameters LANES and P, see :meth:`Op.partials`), and ``latency`` is the
    cycles from taking the last beat to ``out_valid`` with LANES=1 (add log2(LANES) x the
    combine op's latency for LANES lanes).

    Each module's measured resources are docs/operators.md's table, which
    ``benchmarks/operator_resources.py`` synthesizes afresh.
    """

    module: str
    latency: int


@dataclass(frozen=True)
class Op:
    """One operator. See the module docstring for what each field feeds."""

    name: str
    arity: int
    kind: Literal["elementwise", "reduce"]
    dtypes: frozenset[str]
    reference: Callable[..., np.ndarray]
    hls: str
    doc: str
    accuracy: Accuracy | Mapping[str, Accuracy] = EXACT
    symbol: str | None = None  # infix or prefix spelling in spec expressions
    result_dtype: str | None = None  # None: same as the operands
    # Per operand dtype, a result dtype other than result_dtype's (complex64 abs: float32).
    results: Mapping[str, str] = field(default_factory=dict)
    # Operand 0 is a condition: a comparison's bool, which no other operand may be; the
    # op's dtype is that of the other operands (where).
    condition: bool = False
    rtl: Mapping[str, RtlImpl] = field(default_factory=dict)
    # Reductions only: the elementwise op that merges partial results, and its identity
    # (-0.0 for float sums: x + -0 is x for every x, including -0, where +0 is not).
    combine: str | None = None
    identity: Mapping[str, float | int] = field(default_factory=dict)
    # Reductions only: the elementwise op that makes the result from the combined value
    # and the element count n (converted to the dtype), as finish(combined, n): mean's
    # div. Where compute units share the work, the host combines their results and
    # finishes once (the kernel then stops at the combined value).
    finish: str | None = None
    # Reductions only: the reduction whose RTL accumulator this one streams through
    # before its finish (mean: sum's); None for its own.
    accumulates: str | None = None
    # Index reductions only (argmax, argmin): the result is the index, int64 as torch
    # returns it, of the element this pick keeps over all others: the larger or the
    # smaller value, NaN beating every number, and among equal values (-0 == +0, NaN ==
    # NaN) the lower index. Partial results are (value, index) pairs merged by that rule
    # (fk::pick in the HLS C++, fk_pick in the RTL), which orders all pairs totally, so any
    # order of combination gives the same index. ``combine`` is then the comparison whose
    # latency sizes the partials (maximum's or minimum's: fk_pick takes as long), and
    # ``identity`` the value of an empty pair, whose index is above every element's.
    picks: Pick | None = None
    # Cycles Vitis HLS takes for the op at HLS_CLOCK_MHZ, per dtype (combine ops only).
    hls_latency: Mapping[str, int] = field(default_factory=dict)
    # What real Vitis HLS builds for the float32 spelling (every op with a float32 operand
    # or result has one; _check_table holds it to that).
    vitis: VitisImpl | None = None

    def result_for(self, dtype_name: str) -> str:
        """The dtype of the op's result for operands of ``dtype_name``."""
        return self.results.get(dtype_name) or self.result_dtype or dtype_name

    def accuracy_for(self, dtype_name: str) -> Accuracy:
        if isinstance(self.accuracy, Accuracy):
            return self.accuracy
        return self.accuracy[dtype_name]

    def hls_call(self, *operands: str) -> str:
        return self.hls.format(*operands)

    def partials(self, dtype_name: str) -> int:
        """Reductions: P, the partial results the accumulator interleaves so that it takes
        an element (or beat) every cycle although each combine takes the combine op's
        latency: the power of two (the final combine halves them) at least that latency.
        P fixes the order of combination (docs/operators.md), which the HLS C++ mirrors."""
        assert self.combine is not None, f"op {self.name} is not a reduction"
        return _power_of_two_at_least(OPS[self.combine].rtl[dtype_name].latency)

    def hls_partials(self, dtype_name: str) -> int:
        """Reductions: the partial results the HLS C++ accumulate loop interleaves, the
        power of two at least the combine op's latency in Vitis HLS at HLS_CLOCK_MHZ, so
        that its recurrence (distance ACC) allows II=1. Where the combine is sensitive to
        order (float add and mul), it is :meth:`partials`, the RTL's P, for C simulation
        and RTL simulation to agree bit for bit; ``_check_table`` holds P to at least the
        Vitis latency (more partials than needed still allow II=1)."""
        assert self.combine is not None, f"op {self.name} is not a reduction"
        if self.combine in ORDER_SENSITIVE and dtype_name in FLOAT:
            return self.partials(dtype_name)
        return _power_of_two_at_least(OPS[self.combine].hls_latency[dtype_name])


    def pick_among(self, values: np.ndarray, indices: np.ndarray) -> np.ndarray:
        """Index reductions: the winner among candidates (compute units' picks, in CU order:
        their values and their indices into the whole input), as an int64 1-element array.
        The reference picks among the values, a tie going to the first candidate, whose
        index is the lowest."""
        assert self.picks is not None, f"op {self.name} is not an index reduction"
        return np.asarray(indices, dtype=np.int64)[self.reference(values)]


def _power_of_two_at_least(latency: int) -> int:
    return 1 << (max(latency, 1) - 1).bit_length()


# --------------------------------------------------------------------------- references
# Each reference takes and returns numpy arrays of the kernel dtype. Floating-point work
# ignores IEEE exceptions: overflow to inf and invalid to NaN are expected results.


def _is_float(x: np.ndarray) -> bool:
    return bool(np.issubdtype(x.dtype, np.floating))


# complex64 references: explicit float32 operations on the components, never numpy's
# complex operators (its SIMD multiply fuses on FMA machines, its division is its own),
# each the sequence torch 2.13's vectorized CPU kernel computes (docs/runtime.md measures
# it; tests/oplib/test_complex_ops.py holds the references to torch bit for bit).


def _is_complex(x: np.ndarray) -> bool:
    return bool(np.issubdtype(x.dtype, np.complexfloating))


def _parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The float32 real and imaginary parts of a complex64 array."""
    pairs = np.ascontiguousarray(x, dtype=np.complex64).view(np.float32).reshape(*x.shape, 2)
    return pairs[..., 0], pairs[..., 1]


def _complex(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    """The complex64 array of float32 parts (bits unchanged: NaN payloads, zero signs)."""
    pairs = np.stack([np.asarray(re, np.float32), np.asarray(im, np.float32)], axis=-1)
    return np.ascontiguousarray(pairs).view(np.complex64).reshape(pairs.shape[:-1])


def _cmul_parts(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ac - bd, ad + bc), every product and sum rounded on its own: torch's AVX2/AVX-512
    complex multiply (a multiply, a permuted multiply, an horizontal subtract)."""
    a, b = _parts(x)
    c, d = _parts(y)
    with np.errstate(all="ignore"):
        return a * c - b * d, a * d + b * c


def _nan_like(x: np.ndarray) -> np.ndarray:
    return np.full(x.shape, np.nan, dtype=x.dtype)


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b; complex64 componentwise (IEEE complex addition, torch's vector add)."""
    if _is_complex(a):
        (ar, ai), (br, bi) = _parts(a), _parts(b)
        with np.errstate(all="ignore"):
            return _complex(ar + br, ai + bi)
    with np.errstate(all="ignore"):
        return (a + b).astype(a.dtype)


def _sub(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if _is_complex(a):
        (ar, ai), (br, bi) = _parts(a), _parts(b)
        with np.errstate(all="ignore"):
            return _complex(ar - br, ai - bi)
    with np.errstate(all="ignore"):
        return (a - b).astype(a.dtype)


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a * b; complex64 (ac - bd) + (ad + bc)i, separately rounded (_cmul_parts)."""
    if _is_complex(a):
        return _complex(*_cmul_parts(a, b))
    with np.errstate(all="ignore"):
        return (a * b).astype(a.dtype)


def _fma(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """x*y + z with one rounding (IEEE 754 fusedMultiplyAdd, as torch.add(z, y, alpha=x)
    computes on the CPU); int32 wraps (the low 32 bits of x*y + z).

    float32, vectorized, correctly rounded: the product of two float32 is exact in float64
    (24 x 24 significand bits fit in 53, and the exponent range is wide enough). The sum
    p + z is rounded to float64 and its error e found exactly (TwoSum). Rounding p + z to
    odd (an inexact sum gets an odd last bit, by one step toward e) keeps the information
    round-to-nearest-even needs, and rounding to odd at 53 bits, then to nearest even at
    24, gives the correctly rounded float32, subnormals and overflow to inf included.
    Infinities and NaNs take float64's own rules (inf * 0, inf - inf: NaN).

    complex64: the complex product x*y, then + z, unfused (three roundings per component),
    which is torch's vec::fmadd for complex (a multiply, then an add): torch.add(z, y,
    alpha) is z + y*(alpha + 0i) by a full complex multiply, so (inf + 0i) + (1 + 0i)
    has a NaN imaginary part (pytorch issue 82510), as torch gives.
    """
    if _is_complex(x):
        re, im = _cmul_parts(x, y)
        zr, zi = _parts(z)
        with np.errstate(all="ignore"):
            return _complex(re + zr, im + zi)
    if not _is_float(x):
        wide = x.astype(np.int64) * y.astype(np.int64) + z.astype(np.int64)
        return wide.astype(np.int32)  # keeps the low 32 bits
    with np.errstate(all="ignore"):
        p = x.astype(np.float64) * y.astype(np.float64)
        c = z.astype(np.float64)
        s = p + c
        virtual_c = s - p  # TwoSum (Knuth): s + e == p + c exactly
        e = (p - (s - virtual_c)) + (c - virtual_c)
        inexact = np.isfinite(s) & (e != 0)
        even = (s.view(np.uint64) & np.uint64(1)) == 0
        toward = np.where(e > 0, np.inf, -np.inf)
        odd = np.where(inexact & even, np.nextafter(s, toward), s)
        return odd.astype(np.float32)


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch.div: true division for floats; for int32, rounding_mode='trunc'.

    Integer division by zero is an error in torch; hardware must return something, and
    fpgakern defines it as -1 (all ones, as RISC-V does). INT32_MIN / -1 wraps to INT32_MIN.
    complex64: _cdiv.
    """
    if _is_complex(a):
        return _cdiv(a, b)
    if _is_float(a):
        with np.errstate(all="ignore"):
            return (a / b).astype(a.dtype)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    safe = np.where(b64 == 0, 1, b64)
    q = (np.abs(a64) // np.abs(safe)) * np.sign(a64) * np.sign(safe)
    return np.where(b64 == 0, -1, q).astype(np.int32)


def _cdiv(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """torch 2.13's complex64 division (c10::complex<float>::operator/=, which its vector
    operator/ calls per element): Smith's algorithm, as numpy does it, with each
    ``p + q*r`` contracted into one fused multiply-add (GCC's default -ffp-contract=fast in
    torch's -mfma AVX2/AVX-512 builds; measured: no other of the eight fusings matches).
    |c| >= |d|: r = d/c, s = 1/fma(d, r, c), (fma(b, r, a)*s, fma(-a, r, b)*s); both zero:
    (a/|c|, b/|d|) (complex inf or NaN); else (NaN included): r = c/d, s = 1/fma(c, r, d),
    (fma(a, r, b)*s, fma(b, r, -a)*s)."""
    a, b = _parts(x)
    c, d = _parts(y)
    with np.errstate(all="ignore"):
        abs_c, abs_d = np.abs(c), np.abs(d)
        one = np.float32(1.0)
        rat = d / c
        scl = one / _fma(d, rat, c)
        re_c, im_c = _fma(b, rat, a) * scl, _fma(-a, rat, b) * scl
        zero = (abs_c == 0) & (abs_d == 0)
        re_c, im_c = np.where(zero, a / abs_c, re_c), np.where(zero, b / abs_d, im_c)
        rat = c / d
        scl = one / _fma(c, rat, d)
        re_d, im_d = _fma(a, rat, b) * scl, _fma(b, rat, -a) * scl
        larger_c = abs_c >= abs_d
        return _complex(np.where(larger_c, re_c, re_d), np.where(larger_c, im_c, im_d))


def _conj(x: np.ndarray) -> np.ndarray:
    """torch.conj (after resolve_conj): the imaginary part's sign bit flipped."""
    re, im = _parts(x)
    return _complex(re, (im.view(np.uint32) ^ np.uint32(0x8000_0000)).view(np.float32))


def _hypot(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    """torch.abs of complex64: hypot(re, im) in float64 (C99's: +inf where either part is
    infinite, even beside a NaN), rounded once to float32. float64 holds every float32
    square and their sum without overflow or underflow, so this is within 1 ulp of the
    correctly rounded result (double rounding only); tests/oplib/test_complex_ops.py
    measures it against MPFR."""
    with np.errstate(all="ignore"):
        return np.hypot(re.astype(np.float64), im.astype(np.float64)).astype(np.float32)


def _real(x: np.ndarray) -> np.ndarray:
    """torch.real: the real part's bits (NaN payloads and zero signs unchanged)."""
    return _parts(x)[0].copy()


def _imag(x: np.ndarray) -> np.ndarray:
    """torch.imag: the imaginary part's bits."""
    return _parts(x)[1].copy()


def _angle(x: np.ndarray) -> np.ndarray:
    """torch.angle of complex64: atan2(im, re), C99's special values (_atan2)."""
    re, im = _parts(x)
    return _atan2(im, re)


def _to_complex64(x: np.ndarray) -> np.ndarray:
    """float32 x as (x, +0): how torch promotes a real scalar or operand to complex."""
    return _complex(x, np.zeros_like(x, dtype=np.float32))


def _ordered_pick(a: np.ndarray, b: np.ndarray, take_larger: bool) -> np.ndarray:
    """IEEE 754-2019 maximum/minimum: NaN propagates, and -0 orders below +0."""
    with np.errstate(invalid="ignore"):
        first = (a > b) if take_larger else (a < b)
        out = np.where(first, a, b)
        if not _is_float(a):
            return out.astype(a.dtype)
        both_zero = (a == 0) & (b == 0)
        a_wins_tie = ~np.signbit(a) if take_larger else np.signbit(a)
        out = np.where(both_zero, np.where(a_wins_tie, a, b), out)
        return np.where(np.isnan(a) | np.isnan(b), np.nan, out).astype(a.dtype)


def _maximum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _ordered_pick(a, b, take_larger=True)


def _minimum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _ordered_pick(a, b, take_larger=False)


def _neg(x: np.ndarray) -> np.ndarray:
    if _is_float(x):  # a sign flip, so -NaN and -0 behave as in IEEE negate
        return (x.view(np.uint32) ^ np.uint32(0x8000_0000)).view(x.dtype)
    return (np.int32(0) - x.astype(np.int64)).astype(np.int32)


def _abs(x: np.ndarray) -> np.ndarray:
    """|x|: float32 the sign bit cleared; int32 wraps at INT32_MIN; complex64 the float32
    hypot(re, im) (_hypot)."""
    if _is_complex(x):
        return _hypot(*_parts(x))
    if _is_float(x):
        return (x.view(np.uint32) & np.uint32(0x7FFF_FFFF)).view(x.dtype)
    return np.abs(x.astype(np.int64)).astype(np.int32)  # abs(INT32_MIN) wraps to INT32_MIN


def _relu(x: np.ndarray) -> np.ndarray:
    """torch.relu: +0 for x < 0, else x (so NaN stays NaN and -0 stays -0, as torch's
    clamp_min(x, 0) gives)."""
    return np.where(x < 0, np.zeros_like(x), x)


def _sqrt(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.sqrt(x)


def _exp(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.exp(x.astype(np.float64)).astype(x.dtype)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        x64 = x.astype(np.float64)
        return (1.0 / (1.0 + np.exp(-x64))).astype(x.dtype)


def _compare(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    def compare(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return fn(a, b).astype(np.bool_)

    return compare


def _to_float32(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32)  # round to nearest even


def _to_int32(x: np.ndarray) -> np.ndarray:
    """Truncation toward zero. NaN and values outside int32 give INT32_MIN, which is what
    torch's CPU kernels produce on x86 (cvttss2si's 'integer indefinite')."""
    with np.errstate(invalid="ignore"):
        t = np.trunc(x.astype(np.float64))
        bad = np.isnan(t) | (t < -(2.0**31)) | (t >= 2.0**31)
        return np.where(bad, _INT32_MIN, np.where(bad, 0, t).astype(np.int64)).astype(np.int32)


def _shl(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch's <<: shift amounts outside [0, 31] give 0."""
    ok = (b >= 0) & (b < 32)
    shifted = (a.astype(np.int64) << np.where(ok, b, 0).astype(np.int64)) & 0xFFFF_FFFF
    return np.where(ok, shifted.astype(np.uint32).view(np.int32), 0).astype(np.int32)


def _shr(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch's >> (arithmetic): shift amounts outside [0, 31] shift by 31."""
    amount = np.where((b >= 0) & (b < 32), b, 31)
    return (a >> amount).astype(np.int32)


def _bitwise(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    return lambda a, b: fn(a, b).astype(np.int32)


def _sum(x: np.ndarray) -> np.ndarray:
    if _is_float(x):
        with np.errstate(all="ignore"):
            return np.array([np.sum(x.astype(np.float64))]).astype(x.dtype)
    return np.array([np.sum(x.astype(np.int64))]).astype(np.int32)  # wraps like int32 adds


def _mean(x: np.ndarray) -> np.ndarray:
    # torch.mean is torch.sum(x) / n in the dtype (float32 division by float(n)): the
    # sum in float64 divided by n there, rounded once. Nothing to average is NaN (0 / 0).
    with np.errstate(all="ignore"):
        return np.array([np.sum(x.astype(np.float64)) / np.float64(x.size)]).astype(x.dtype)


def _prod(x: np.ndarray) -> np.ndarray:
    if _is_float(x):
        with np.errstate(all="ignore"):
            return np.array([np.prod(x.astype(np.float64))]).astype(x.dtype)
    # int64 products wrap modulo 2**64, whose low 32 bits are the int32 product's
    return np.array([np.prod(x.astype(np.int64))]).astype(np.int32)


def _reduce_pick(x: np.ndarray, take_larger: bool) -> np.ndarray:
    """max/min over all elements with the same NaN and ±0 rules as maximum/minimum."""
    if _is_float(x) and np.isnan(x).any():
        return _nan_like(x[:1])
    best = np.max(x) if take_larger else np.min(x)
    if _is_float(x) and best == 0:
        zeros = x[x == 0]
        positive_zero = (~np.signbit(zeros)).any()
        negative_zero = np.signbit(zeros).any()
        best = x.dtype.type(0.0) if take_larger and positive_zero else best
        best = x.dtype.type(-0.0) if not take_larger and negative_zero else best
    return np.array([best], dtype=x.dtype)


def _argmax(x: np.ndarray) -> np.ndarray:
    # numpy's argmax is torch's: the first NaN, else the first largest (-0 == +0);
    # nothing to pick from raises ValueError.
    return np.array([np.argmax(x)], dtype=np.int64)


def _argmin(x: np.ndarray) -> np.ndarray:
    return np.array([np.argmin(x)], dtype=np.int64)


def _reduce_max(x: np.ndarray) -> np.ndarray:
    return _reduce_pick(x, take_larger=True)


def _reduce_min(x: np.ndarray) -> np.ndarray:
    return _reduce_pick(x, take_larger=False)


# --------------------------------------------------------------------------- the table

_ELEMENTWISE: tuple[Op, ...] = (
    Op("add", 2, "elementwise", BOTH | COMPLEX, _add, "({0} + {1})", "sum", symbol="+",
       rtl={"float32": RtlImpl("fk_fp32_add", 6),
            "int32": RtlImpl("fk_int32_add", 1)},
       hls_latency={"float32": 7, "int32": 1},
       vitis=_fp_core("fadd")),
    Op("sub", 2, "elementwise", BOTH | COMPLEX, _sub, "({0} - {1})", "difference", symbol="-",
       rtl={"float32": RtlImpl("fk_fp32_sub", 6),
            "int32": RtlImpl("fk_int32_sub", 1)},
       vitis=_fp_core("fsub")),
    Op("mul", 2, "elementwise", BOTH | COMPLEX, _mul, "({0} * {1})", "product", symbol="*",
       rtl={"float32": RtlImpl("fk_fp32_mul", 6),
            "int32": RtlImpl("fk_int32_mul", 3)},
       hls_latency={"float32": 4, "int32": 2},
       vitis=_fp_core("fmul")),
    Op("fma", 3, "elementwise", BOTH | COMPLEX, _fma, "fk::fma({0}, {1}, {2})",
       "fused multiply-add x*y + z, one rounding; int32 wraps; complex64 the complex "
       "product, then the sum (unfused, as torch)",
       rtl={"float32": RtlImpl("fk_fp32_fma", 8),
            "int32": RtlImpl("fk_int32_fma", 3)},
       vitis=_FMA),
    Op(
        "div", 2, "elementwise", BOTH | COMPLEX, _div, "fk::div({0}, {1})",
        "quotient; int32 truncates (torch rounding_mode='trunc'), x/0 = -1; complex64 "
        "torch's Smith's algorithm", symbol="/",
        rtl={"float32": RtlImpl("fk_fp32_div", 18),
             "int32": RtlImpl("fk_int32_div", 18)},
        vitis=_fp_core("fdiv"),
    ),
    Op("maximum", 2, "elementwise", BOTH, _maximum, "fk::maximum({0}, {1})",
       "larger operand; NaN propagates, -0 < +0",
       rtl={"float32": RtlImpl("fk_fp32_maximum", 1),
            "int32": RtlImpl("fk_int32_maximum", 1)},
       hls_latency={"float32": 3, "int32": 1},
       vitis=_COMPARE),
    Op("minimum", 2, "elementwise", BOTH, _minimum, "fk::minimum({0}, {1})",
       "smaller operand; NaN propagates, -0 < +0",
       rtl={"float32": RtlImpl("fk_fp32_minimum", 1),
            "int32": RtlImpl("fk_int32_minimum", 1)},
       hls_latency={"float32": 3, "int32": 1},
       vitis=_COMPARE),
    Op("eq", 2, "elementwise", BOTH, _compare(np.equal), "({0} == {1})", "a == b",
       symbol="==", result_dtype="bool",
       rtl={"float32": RtlImpl("fk_fp32_eq", 1),
            "int32": RtlImpl("fk_int32_eq", 1)},
       vitis=_FCMP),
    Op("ne", 2, "elementwise", BOTH, _compare(np.not_equal), "({0} != {1})", "a != b",
       symbol="!=", result_dtype="bool",
       rtl={"float32": RtlImpl("fk_fp32_ne", 1),
            "int32": RtlImpl("fk_int32_ne", 1)},
       vitis=_FCMP),
    Op("lt", 2, "elementwise", BOTH, _compare(np.less), "({0} < {1})", "a < b",
       symbol="<", result_dtype="bool",
       rtl={"float32": RtlImpl("fk_fp32_lt", 1),
            "int32": RtlImpl("fk_int32_lt", 1)},
       vitis=_FCMP),
    Op("le", 2, "elementwise", BOTH, _compare(np.less_equal), "({0} <= {1})", "a <= b",
       symbol="<=", result_dtype="bool",
       rtl={"float32": RtlImpl("fk_fp32_le", 1),
            "int32": RtlImpl("fk_int32_le", 1)},
       vitis=_FCMP),
    Op("gt", 2, "elementwise", BOTH, _compare(np.greater), "({0} > {1})", "a > b",
       symbol=">", result_dtype="bool",
       rtl={"float32": RtlImpl("fk_fp32_gt", 1),
            "int32": RtlImpl("fk_int32_gt", 1)},
       vitis=_FCMP),
    Op("ge", 2, "elementwise", BOTH, _compare(np.greater_equal), "({0} >= {1})", "a >= b",
       symbol=">=", result_dtype="bool",
       rtl={"float32": RtlImpl("fk_fp32_ge", 1),
            "int32": RtlImpl("fk_int32_ge", 1)},
       vitis=_FCMP),
    Op("bitwise_and", 2, "elementwise", INT, _bitwise(np.bitwise_and), "({0} & {1})",
       "bitwise and", symbol="&",
       rtl={"int32": RtlImpl("fk_int32_bitwise_and", 0)}),
    Op("bitwise_or", 2, "elementwise", INT, _bitwise(np.bitwise_or), "({0} | {1})",
       "bitwise or", symbol="|",
       rtl={"int32": RtlImpl("fk_int32_bitwise_or", 0)}),
    Op("bitwise_xor", 2, "elementwise", INT, _bitwise(np.bitwise_xor), "({0} ^ {1})",
       "bitwise xor", symbol="^",
       rtl={"int32": RtlImpl("fk_int32_bitwise_xor", 0)}),
    Op("shl", 2, "elementwise", INT, _shl, "fk::shl({0}, {1})",
       "left shift; amounts outside 0..31 give 0", symbol="<<",
       rtl={"int32": RtlImpl("fk_int32_shl", 1)}),
    Op("shr", 2, "elementwise", INT, _shr, "fk::shr({0}, {1})",
       "arithmetic right shift; amounts outside 0..31 shift by 31", symbol=">>",
       rtl={"int32": RtlImpl("fk_int32_shr", 1)}),
    Op("neg", 1, "elementwise", BOTH, _neg, "(-{0})", "negation (sign flip for float32)",
       symbol="-",
       rtl={"float32": RtlImpl("fk_fp32_neg", 0),
            "int32": RtlImpl("fk_int32_neg", 1)},
       vitis=_NEG),
    Op("abs", 1, "elementwise", BOTH | COMPLEX, _abs, "fk::abs({0})",
       "absolute value; complex64 the float32 hypot(re, im), +inf where either part is "
       "infinite (C99 hypot, torch)",
       results={"complex64": "float32"},
       # complex64: the RTL's scaled hypot is within 1.25 ulp (docs/operators.md).
       accuracy={"float32": EXACT, "int32": EXACT, "complex64": Accuracy("ulp", 2)},
       rtl={"float32": RtlImpl("fk_fp32_abs", 0),
            "int32": RtlImpl("fk_int32_abs", 1)},
       vitis=_ABS),
    Op("relu", 1, "elementwise", BOTH, _relu, "fk::relu({0})",
       "+0 for x < 0, else x; NaN and -0 pass",
       rtl={"float32": RtlImpl("fk_fp32_relu", 0),
            "int32": RtlImpl("fk_int32_relu", 0)},
       vitis=_RELU),
    Op("sqrt", 1, "elementwise", FLOAT, _sqrt, "hls::sqrt({0})",
       "square root, correctly rounded",
       rtl={"float32": RtlImpl("fk_fp32_sqrt", 16)},
       vitis=_fp_core("fsqrt")),
    Op("exp", 1, "elementwise", FLOAT, _exp, "hls::exp({0})", "e to the x",
       accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp (docs/operators.md)
       rtl={"float32": RtlImpl("fk_fp32_exp", 15)},
       vitis=_EXP),
    Op("sigmoid", 1, "elementwise", FLOAT, _sigmoid, "fk::sigmoid({0})",
       "1 / (1 + exp(-x))", accuracy=Accuracy("ulp", 2),  # the RTL meets 1 ulp
       rtl={"float32": RtlImpl("fk_fp32_sigmoid", 30)},
       vitis=_SIGMOID),
    Op("to_float32", 1, "elementwise", INT, _to_float32, "static_cast<float>({0})",
       "int32 to float32, round to nearest even", result_dtype="float32",
       rtl={"int32": RtlImpl("fk_int32_to_fp32", 4)},
       vitis=_TO_FLOAT),
    Op("to_int32", 1, "elementwise", FLOAT, _to_int32, "fk::to_int32({0})",
       "float32 to int32, truncating; NaN and out of range give INT32_MIN",
       result_dtype="int32",
       rtl={"float32": RtlImpl("fk_fp32_to_int32", 2)},
       vitis=_TO_INT),
    # The type checker inserts it where a float32 operand meets complex64 ones (a
    # complex64 variant's real scalars, fpgakern.ir.expr): torch's promotion.
    Op("to_complex64", 1, "elementwise", FLOAT, _to_complex64, "fk::to_complex64({0})",
       "float32 x to complex64 (x, +0)", result_dtype="complex64",
       vitis=_WIRING),
    Op("conj", 1, "elementwise", COMPLEX, _conj, "fk::conj({0})",
       "complex conjugate: the imaginary part's sign bit flipped (torch.conj)",
       vitis=_NEG),
    Op("real", 1, "elementwise", COMPLEX, _real, "fk::real({0})",
       "the real part, bits unchanged (torch.real)", result_dtype="float32",
       vitis=_WIRING_PART),
    Op("imag", 1, "elementwise", COMPLEX, _imag, "fk::imag({0})",
       "the imaginary part, bits unchanged (torch.imag)", result_dtype="float32",
       vitis=_WIRING_PART),
    Op("angle", 1, "elementwise", COMPLEX, _angle, "fk::angle({0})",
       "the argument atan2(im, re) in [-pi, pi], C99's special values (torch.angle)",
       result_dtype="float32",
       accuracy=Accuracy("ulp", 2),  # atan2's RTL meets 1 ulp against MPFR
       vitis=_ANGLE),
)

# --------------------------------------------------------------------------- bit-exact ops
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

# --------------------------------------------------------------------------- remainders
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

# --------------------------------------------------------------------------- transcendental
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


def _atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """torch.atan2(input = y, other = x): np.arctan2 in float64, rounded once to float32
    (C99 Annex F's special values: atan2(+-0, -0) = +-pi, atan2(+-inf, -inf) = +-3pi/4)."""
    with np.errstate(all="ignore"):
        return np.arctan2(y.astype(np.float64), x.astype(np.float64)).astype(y.dtype)


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

_REDUCTIONS: tuple[Op, ...] = (
    Op("sum", 1, "reduce", BOTH, _sum, "({0} + {1})", "sum of all elements",
       accuracy={"float32": Accuracy("reduction"), "int32": EXACT},
       combine="add", identity={"float32": -0.0, "int32": 0},
       rtl={"float32": RtlImpl("fk_reduce_fp32_sum", 34),
            "int32": RtlImpl("fk_reduce_int32_sum", 3)},
       vitis=_fp_core("fadd")),
    Op("max", 1, "reduce", BOTH, _reduce_max, "fk::maximum({0}, {1})",
       "largest element; NaN propagates",
       combine="maximum", identity={"float32": float("-inf"), "int32": int(_INT32_MIN)},
       rtl={"float32": RtlImpl("fk_reduce_fp32_max", 3),
            "int32": RtlImpl("fk_reduce_int32_max", 3)},
       vitis=_COMPARE),
    Op("min", 1, "reduce", BOTH, _reduce_min, "fk::minimum({0}, {1})",
       "smallest element; NaN propagates",
       combine="minimum", identity={"float32": float("inf"), "int32": int(np.iinfo(np.int32).max)},
       rtl={"float32": RtlImpl("fk_reduce_fp32_min", 3),
            "int32": RtlImpl("fk_reduce_int32_min", 3)},
       vitis=_COMPARE),
    Op("prod", 1, "reduce", BOTH, _prod, "({0} * {1})",
       "product of all elements (int32 multiplies with wrap-around)",
       accuracy={"float32": Accuracy("reduction", bound="product"), "int32": EXACT},
       combine="mul", identity={"float32": 1.0, "int32": 1},
       rtl={"float32": RtlImpl("fk_reduce_fp32_prod", 34),
            "int32": RtlImpl("fk_reduce_int32_prod", 14)},
       vitis=_fp_core("fmul")),
    # sum's accumulator, then fk_fp32_div by float(n): 34 + 18 cycles of drain.
    Op("mean", 1, "reduce", FLOAT, _mean, "({0} + {1})",
       "arithmetic mean of all elements: their sum divided by n; NaN for no element",
       accuracy=Accuracy("reduction", bound="mean"),
       combine="add", identity={"float32": -0.0}, finish="div", accumulates="sum",
       rtl={"float32": RtlImpl("fk_reduce_fp32_sum", 52)},
       vitis=_fp_core("fadd")),
    Op("argmax", 1, "reduce", BOTH, _argmax, "fk::pick<true>({0}, {1})",
       "index of the first largest element (the first NaN if any; -0 == +0)",
       result_dtype="int64", picks="larger", combine="maximum",
       identity={"float32": float("-inf"), "int32": int(_INT32_MIN)},
       rtl={"float32": RtlImpl("fk_reduce_fp32_argmax", 3),
            "int32": RtlImpl("fk_reduce_int32_argmax", 3)},
       vitis=_COMPARE),
    Op("argmin", 1, "reduce", BOTH, _argmin, "fk::pick<false>({0}, {1})",
       "index of the first smallest element (the first NaN if any; -0 == +0)",
       result_dtype="int64", picks="smaller", combine="minimum",
       identity={"float32": float("inf"), "int32": int(np.iinfo(np.int32).max)},
       rtl={"float32": RtlImpl("fk_reduce_fp32_argmin", 3),
            "int32": RtlImpl("fk_reduce_int32_argmin", 3)},
       vitis=_COMPARE),
)

OPS: dict[str, Op] = {op.name: op for op in (
    _ELEMENTWISE + _BIT_EXACT + _MODULO + _TRANSCENDENTAL + _MORE_TRANSCENDENTAL
    + _REDUCTIONS)}

# Infix and prefix spellings used by the expression parser.
BINARY_SYMBOLS: dict[str, str] = {op.symbol: op.name for op in _ELEMENTWISE
                                  if op.symbol and op.arity == 2}
UNARY_SYMBOLS: dict[str, str] = {op.symbol: op.name for op in _ELEMENTWISE
                                 if op.symbol and op.arity == 1}


def op(name: str) -> Op:
    """Look an op up by name; KeyError lists the known ones."""
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(f"unknown op {name!r} (known: {', '.join(sorted(OPS))})") from None


# Combine ops whose result depends on the order of combination (float rounding): the
# HLS C++ must interleave as many partials as the RTL. IEEE maximum/minimum and integer
# add and mul give one result in any order, so their HLS interleave follows Vitis alone.
ORDER_SENSITIVE = frozenset({"add", "mul"})


def _check_table() -> None:
    """Keep the table self-consistent; runs at import so a bad entry fails fast."""
    for entry in OPS.values():
        unknown = set(entry.dtypes) - set(DTYPES)
        assert not unknown, f"op {entry.name}: unknown dtypes {unknown}"
        if entry.kind == "reduce":
            assert entry.combine in OPS, f"op {entry.name}: combine op missing"
            assert set(entry.identity) == set(entry.dtypes), f"op {entry.name}: identity"
            combine = OPS[entry.combine]
            missing = set(entry.dtypes) - set(combine.rtl)
            assert not missing, (f"op {entry.name}: its partials come from the latency of "
                                 f"{combine.name}'s RTL, which {sorted(missing)} lack")
            missing = set(entry.dtypes) - set(combine.hls_latency)
            assert not missing, (f"op {entry.name}: its HLS partials come from "
                                 f"{combine.name}'s hls_latency, which {sorted(missing)} lack")
            for dtype in entry.dtypes & FLOAT:
                if entry.combine in ORDER_SENSITIVE:
                    vitis = _power_of_two_at_least(combine.hls_latency[dtype])
                    assert entry.partials(dtype) >= vitis, (
                        f"op {entry.name}: the HLS C++ combines {dtype} partials in the "
                        f"RTL's order, whose P is below Vitis' {vitis}-cycle "
                        f"{combine.name}")
            assert (entry.picks is None) == (entry.result_dtype is None), (
                f"op {entry.name}: a reduction returns its operands' dtype, or an index "
                "(picks=, result_dtype='int64')")
        # complex64 components are float32: its ops state what Vitis builds as well.
        ieee = {"float32", "complex64"}
        touches_float = bool(ieee & entry.dtypes) or entry.result_dtype in ieee
        assert (entry.vitis is not None) == touches_float, (
            f"op {entry.name}: an op with float32 operands or results states what Vitis "
            f"builds for it (vitis=), and only such an op")


_check_table()
