"""The op table's fma reference (vectorized numpy, float64 TwoSum + round to odd) against
an exact model: x*y + z in rational arithmetic (fractions.Fraction), rounded once to
float32 by hand. Special values, subnormals, cancellation, rounding ties, overflow and
random bit patterns."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from fpgakern.ir.ops import OPS
from fpgakern.verify import opsim

U32 = np.uint32
F32 = np.float32
SIGN = 0x8000_0000


def _value(bits: int) -> Fraction:
    """The exact value of a finite float32 bit pattern."""
    exponent, fraction = (bits >> 23) & 0xFF, bits & 0x7F_FFFF
    magnitude = (Fraction(fraction, 1 << 23) * Fraction(2) ** -126 if exponent == 0
                 else Fraction((1 << 23) | fraction, 1 << 23) * Fraction(2) ** (exponent - 127))
    return -magnitude if bits & SIGN else magnitude


def _round(value: Fraction, sign_of_zero: int) -> int:
    """``value`` rounded to float32 (nearest, ties to even), as a bit pattern; an exact
    zero gets ``sign_of_zero``."""
    if value == 0:
        return sign_of_zero
    sign = SIGN if value < 0 else 0
    magnitude = abs(value)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** exponent > magnitude:  # now 2**exponent <= magnitude < 2**(exponent+1)
        exponent -= 1
    ulp = Fraction(2) ** (max(exponent, -126) - 23)
    units, rest = divmod(magnitude / ulp, 1)
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and units % 2 == 1):
        units += 1
    rounded = units * ulp
    if rounded >= Fraction(2) ** 128:
        return sign | 0x7F80_0000
    # rounded is a float32 value: float() is exact for it, and so is the float32 cast
    return sign | int(np.array([float(rounded)], F32).view(U32)[0])


def exact_fma(x: int, y: int, z: int) -> int | None:
    """IEEE fusedMultiplyAdd(x, y, z) of float32 bit patterns; None for a NaN result."""
    fx, fy, fz = (np.array([v], U32).view(F32)[0] for v in (x, y, z))
    if math.isnan(fx) or math.isnan(fy) or math.isnan(fz):
        return None
    product_sign = (x ^ y) & SIGN
    if math.isinf(fx) or math.isinf(fy):
        if fx == 0 or fy == 0 or (math.isinf(fz) and (z & SIGN) != product_sign):
            return None  # inf * 0, or inf - inf
        return product_sign | 0x7F80_0000
    if math.isinf(fz):
        return z
    product = _value(x) * _value(y)
    # An exact zero is -0 only when both terms are zeros of negative sign.
    zero_sign = SIGN if product == 0 and fz == 0 and product_sign and (z & SIGN) else 0
    return _round(product + _value(z), zero_sign)


def _short(rng: np.random.Generator, n: int, bits: int, lo: int, hi: int, *,
           odd: bool = False) -> np.ndarray:
    """float32 values with ``bits`` significant bits (the last one set when ``odd``),
    scaled by 2**lo .. 2**hi."""
    significand = rng.integers(1 << (bits - 1), 1 << bits, n) | int(odd)
    return (significand * 2.0 ** rng.integers(lo, hi, n)).astype(F32)


def _cases(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    named = np.array([0, SIGN, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 1, 0x8000_0001,
                      0x007F_FFFF, 0x0080_0000, 0x7F7F_FFFF, 0xFF7F_FFFF, 0x3F80_0000,
                      0xBF80_0000, 0x3F80_0001, 0x3F7F_FFFF, 0x3400_0000, 0x3380_0000,
                      0x1F80_0000, 0x5F80_0000, 0x2000_0000], dtype=U32)
    sets = [np.array(list(itertools.product(named, repeat=3)), dtype=U32).T]
    n = 3000
    sets.append(np.stack([opsim.fp32_random(rng, n) for _ in range(3)]))
    # cancellation: z next to -(x*y) rounded, so that most of the product cancels
    x, y = opsim.fp32_random(rng, n), opsim.fp32_random(rng, n)
    with np.errstate(all="ignore"):
        p = (x.view(F32) * y.view(F32)).astype(F32).view(U32)
    sets.append(np.stack([x, y, (p ^ U32(SIGN)) + rng.integers(-2, 3, n).astype(U32)]))
    # ties: short significands whose exact sum lands half way between two floats, and
    # terms far apart (the addend only decides the sticky bit, or the product does)
    x, y = _short(rng, n, 12, -30, 30), _short(rng, n, 12, -30, 30)  # exact products
    scale = 2.0 ** rng.integers(-60, 60, n)
    z = (np.where(rng.random(n) < 0.5, -1, 1) * scale).astype(F32)
    sets.append(np.stack([x.view(U32), y.view(U32), z.view(U32)]))
    # double-rounding traps: odd 13-bit significands make x*y a midpoint between two
    # floats (25 bits) or a quarter point; a z far below nudges the exact sum off it by
    # less than float64 resolves, so rounding the float64 sum would land on the tie
    x, y = _short(rng, n, 13, -40, 30, odd=True), _short(rng, n, 13, -40, 30, odd=True)
    z = (x.astype(np.float64) * y * np.where(rng.random(n) < 0.5, -1, 1)
         * 2.0 ** -rng.integers(30, 90, n)).astype(F32)
    sets.append(np.stack([x.view(U32), y.view(U32), z.view(U32)]))
    # subnormal products and results: exponents summing near the bottom of the range
    e = rng.integers(1, 100, n)
    x = (e.astype(U32) << U32(23)) | rng.integers(0, 1 << 23, n, dtype=U32)
    y = ((180 - e + rng.integers(-30, 4, n)).clip(0, 254).astype(U32) << U32(23)) | \
        rng.integers(0, 1 << 23, n, dtype=U32)
    z = rng.integers(0, 1 << 24, n, dtype=U32) | (rng.integers(0, 2, n, dtype=U32) << U32(31))
    sets.append(np.stack([x, y, z]))
    a, b, c = np.concatenate(sets, axis=1)
    return a, b, c


def test_fma_reference_is_correctly_rounded():
    a, b, c = _cases(np.random.default_rng(11))
    got = OPS["fma"].reference(a.view(F32), b.view(F32), c.view(F32)).view(U32)
    bad = []
    for i in range(a.size):
        want = exact_fma(int(a[i]), int(b[i]), int(c[i]))
        ok = np.isnan(got[i:i + 1].view(F32))[0] if want is None else int(got[i]) == want
        if not ok:
            bad.append(f"{a[i]:#010x} {b[i]:#010x} {c[i]:#010x}: {got[i]:#010x} vs {want}")
    assert a.size >= 23_000
    assert not bad, f"{len(bad)} differ: " + "; ".join(bad[:5])


def test_fma_reference_differs_from_two_roundings():
    """Sanity: the cases include many where rounding x*y first changes the result."""
    a, b, c = _cases(np.random.default_rng(12))
    with np.errstate(all="ignore"):
        two = (a.view(F32) * b.view(F32)).astype(F32) + c.view(F32)
    one = OPS["fma"].reference(a.view(F32), b.view(F32), c.view(F32))
    differ = (two.view(U32) != one.view(U32)) & ~np.isnan(one)
    assert differ.sum() > 1000


def test_fma_reference_int32_wraps():
    ref = OPS["fma"].reference
    i32 = lambda *v: np.array(v, np.int32)  # noqa: E731
    out = ref(i32(2**31 - 1, -(2**31), 7, -3), i32(2, -1, 6, 5), i32(3, -1, -42, 1))
    assert out.tolist() == [1, 2**31 - 1, 0, -14]
