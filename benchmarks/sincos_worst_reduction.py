"""Find the float32 arguments nearest a multiple of pi/2 (the worst cases of the argument
reduction of fk_fp32_sin / fk_fp32_cos), exhaustively: every float32 x >= 1 (below 1 the
nearest multiple is 0 or pi/2 and |x mod pi/2| > 0.57).

For each exponent E in 0..127 and every significand m in [2^23, 2^24), x = m * 2^(E-23)
and x * 2/pi mod 1 is m * alpha_E mod 1, alpha_E = 2^(E-23) * 2/pi mod 1 held as a 64-bit
fraction: numpy's uint64 product wraps mod 2^64, so frac(m * alpha_E) comes out with an
error below m * 2^-64 < 2^-40. Every x whose approximate distance to an integer is below
2^-27 is then measured exactly (2/pi to 400 bits from MPFR, integer arithmetic), so
nothing nearer is missed.

Prints the smallest distances |x * 2/pi - k| (in units of the quadrant, so |x - k pi/2|
is pi/2 times it) and the leading zero bits of the quadrant fraction they cost. Takes
a few seconds: ``python benchmarks/sincos_worst_reduction.py``.
"""

from __future__ import annotations

import argparse

import gmpy2
import numpy as np

BITS = 400  # 2/pi as floor(2/pi * 2^BITS); x * 2/pi is then exact to 2^(127 - BITS)
with gmpy2.context(precision=BITS + 10):
    TWO_OVER_PI = int(gmpy2.floor(2 / gmpy2.const_pi() * 2**BITS))
THRESHOLD = 2.0**-27
CHUNK = 1 << 21


def alpha(e: int) -> int:
    """frac(2^(e-23) * 2/pi) * 2^64, truncated."""
    return (TWO_OVER_PI >> (BITS - (e - 23) - 64)) % (1 << 64)


def exact_distance(m: int, e: int) -> float:
    """|x * 2/pi - k| for x = m * 2^(e-23) and the nearest integer k, to 2^(127 - BITS)."""
    one = 1 << (BITS - (e - 23))  # the integer 1 in units of m * TWO_OVER_PI
    frac = (m * TWO_OVER_PI) % one
    return min(frac, one - frac) / one


def candidates() -> list[tuple[float, int, int]]:
    found = []
    limit = np.uint64(int(THRESHOLD * 2**64))
    for e in range(0, 128):
        a = np.uint64(alpha(e))
        for lo in range(1 << 23, 1 << 24, CHUNK):
            m = np.arange(lo, lo + CHUNK, dtype=np.uint64)
            v = m * a  # frac(m * alpha) * 2^64, wrapped
            d = np.minimum(v, np.uint64(0) - v)
            for k in np.nonzero(d < limit)[0]:
                mm = int(m[k])
                found.append((exact_distance(mm, e), mm, e))
    return sorted(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--top", type=int, default=8, help="how many arguments to print")
    args = parser.parse_args()
    best = candidates()
    print(f"{len(best)} arguments within 2^-27 quadrants of a multiple of pi/2")
    for dist, m, e in best[:args.top]:
        bits = int(np.float32(m * 2.0 ** (e - 23)).view(np.uint32))
        print(f"x = {m} * 2^{e - 23} (0x{bits:08X}): |x*2/pi - k| = {dist:.6g} = "
              f"2^{np.log2(dist):.4f}, |x - k*pi/2| = {dist * np.pi / 2:.6g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
