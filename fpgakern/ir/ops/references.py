"""The numpy references of the core elementwise ops and the reductions (torch
semantics): the oracle C simulation and RTL simulation are judged against, and the
helpers the other families' references share. The bit-exact, remainder and
transcendental families keep their references beside their entries."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

_INT32_MIN = np.iinfo(np.int32).min


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


def _atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """torch.atan2(input = y, other = x): np.arctan2 in float64, rounded once to float32
    (C99 Annex F's special values: atan2(+-0, -0) = +-pi, atan2(+-inf, -inf) = +-3pi/4)."""
    with np.errstate(all="ignore"):
        return np.arctan2(y.astype(np.float64), x.astype(np.float64)).astype(y.dtype)


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
