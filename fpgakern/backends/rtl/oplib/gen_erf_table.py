"""Generate fk_fp32_erf_table.sv, the piecewise polynomial coefficients of the fp32 erf
operator (fk_fp32_erf), and print the fit's error.

Run from anywhere with the project installed: ``python
fpgakern/backends/rtl/oplib/gen_erf_table.py [--check]`` (the command line is
fpgakern.util.generated's). The output is deterministic (MPFR through gmpy2 at 160 bits
and exact rational arithmetic), so regenerating changes nothing unless this script
changes. ``--check`` exits non-zero when the committed file is stale.

fk_fp32_erf computes erf(x) = x * Q(x), Q(x) = erf(x) / x (Q(0) = 2 / sqrt(pi)), for
0 <= x < 4. The range is cut into INTERVALS intervals of width 1/8, indexed by x's top
five bits i = floor(8x); on interval i, with t = x - (i + 1/2) / 8 in [-1/16, 1/16),

    Q(x) ~ a_0 + a_1 t + ... + a_5 t^5,

the polynomial interpolating Q at the six Chebyshev nodes of the interval (within a
small factor of the minimax polynomial). a_k is rounded to nearest with FRAC_BITS[k] =
38 - 4k fraction bits: it is weighed by |t|^k <= 2^-4k, so every coefficient's rounding
counts at most 2^-39 in Q.

Below 2^-24 (and for subnormals) fk_fp32_erf multiplies x by C_TINY = 2/sqrt(pi) * 2^47,
rounded. ``tiny_check()`` (printed by notes()) proves that this rounds correctly: the
significand of 2x/sqrt(pi) depends only on x's significand m, so it checks all 2^24 - 1
values of m once, both as a normal x (24 result bits) and as a subnormal (the result's
bits are the integer m * 2/sqrt(pi) rounded).
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import gmpy2
import numpy as np

from fpgakern.util.generated import write_or_check

HERE = Path(__file__).resolve().parent
OUT = HERE / "fk_fp32_erf_table.sv"
INDEX_BITS = 5  # 32 intervals of x in [0, 4), each 1/8 wide
INTERVALS = 1 << INDEX_BITS
DEGREE = 5
FRAC_BITS = tuple(38 - 4 * k for k in range(DEGREE + 1))  # a_k's fraction bits
WIDTH = 40  # a_0 as a signed 40-bit value; a_k (k >= 1) fits FRAC_BITS[k] + 1 bits
CHECK_POINTS = 64  # per interval, for the fit's error printed by notes()

CONTEXT = gmpy2.context(precision=160)


def _q(x: Fraction) -> Fraction:
    """erf(x) / x to 160 bits (x > 0)."""
    with gmpy2.context(CONTEXT):
        xm = gmpy2.mpfr(x.numerator) / x.denominator
        return Fraction(*(gmpy2.erf(xm) / xm).as_integer_ratio())


def c_tiny() -> int:
    """2/sqrt(pi) * 2^47, rounded to nearest (fk_fp32_erf's C_TINY)."""
    with gmpy2.context(CONTEXT):
        return int(gmpy2.rint(2 / gmpy2.sqrt(gmpy2.const_pi()) * 2**47))


def tiny_check() -> tuple[int, float]:
    """(how many m in [1, 2^24) round m * C_TINY * 2^-47 differently from m * 2/sqrt(pi),
    the smallest relative distance log2 by which an m * 2/sqrt(pi) lies above a rounding
    midpoint). The rounding is to an integer for m < 2^23 (a subnormal x: the result's
    bits) and to 24 significant bits above. erf(x) = 2x/sqrt(pi) (1 - d), 0 <= d <
    x^2/3, so results below a midpoint stay there, and those above stay above as long as
    d is below the printed distance: x^2/3 < 2^-49.5 for |x| < 2^-24."""
    with gmpy2.context(CONTEXT):
        c = 2 / gmpy2.sqrt(gmpy2.const_pi())
        c120 = int(gmpy2.floor(c * 2**120))
        err = float(gmpy2.mpfr(c_tiny()) / 2**47 - c)
    m = np.arange(1, 1 << 24, dtype=np.uint64)
    hi = c120 >> 82  # c = hi * 2^-38 + lo * 2^-120
    lo = c120 - (hi << 82)
    p = m * np.uint64(hi)  # < 2^63
    frac2 = ((p & np.uint64((1 << 39) - 1)).astype(np.float64) / 2.0**38
             + m.astype(np.float64) * (lo / 2.0**120))  # m * c mod 2, within 2^-50
    y = (p >> np.uint64(39)).astype(np.float64) * 2 + frac2
    ulp2 = y >= 2.0**24  # the result's unit is 2 from 2^24 on, else 1
    # signed position above the nearest midpoint, in result units, and the shift by C_TINY
    pos = np.where(ulp2, (np.mod(frac2, 2.0) - 1.0) / 2, np.mod(frac2, 1.0) - 0.5)
    shift = m.astype(np.float64) * err / np.where(ulp2, 2.0, 1.0)
    crossings = int((np.sign(pos) != np.sign(pos + shift)).sum())
    above = pos > 0
    rel = pos[above] / np.where(ulp2, y / 2, y)[above]
    return crossings, float(np.log2(rel.min()))


def _centre(i: int) -> Fraction:
    return (i + Fraction(1, 2)) / INTERVALS * 4


def _nodes() -> list[Fraction]:
    """The Chebyshev nodes of [-1/16, 1/16] (to 160 bits)."""
    half = Fraction(1, 16)
    with gmpy2.context(CONTEXT):
        pi = gmpy2.const_pi()
        return [half * Fraction(*gmpy2.cos(pi * (2 * j + 1) / (2 * (DEGREE + 1)))
                                .as_integer_ratio())
                for j in range(DEGREE + 1)]


def _solve(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    """Gaussian elimination in exact rationals."""
    n = len(rhs)
    a = [row[:] + [r] for row, r in zip(rows, rhs, strict=True)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        for r in range(n):
            if r != c and a[r][c] != 0:
                f = a[r][c] / a[c][c]
                a[r] = [u - f * v for u, v in zip(a[r], a[c], strict=True)]
    return [a[r][n] / a[r][r] for r in range(n)]


def fit(i: int) -> list[Fraction]:
    """The exact coefficients a_0..a_5 (in t) interpolating Q at the nodes of interval i."""
    nodes = _nodes()
    rows = [[t**k for k in range(DEGREE + 1)] for t in nodes]
    return _solve(rows, [_q(_centre(i) + t) for t in nodes])


def _round(x: Fraction) -> int:
    return round(x)  # Fraction rounds half to even


def table() -> list[list[int]]:
    """table()[i][k] = a_k of interval i times 2^FRAC_BITS[k], rounded to nearest."""
    return [[_round(a * (1 << FRAC_BITS[k])) for k, a in enumerate(fit(i))]
            for i in range(INTERVALS)]


def worst_error() -> float:
    """max |Q(x) - the rounded polynomial| over CHECK_POINTS evenly spaced points of every
    interval (exact rational polynomial, Q to 160 bits), as log2."""
    worst = Fraction(0)
    for i, coefs in enumerate(table()):
        for j in range(CHECK_POINTS):
            t = Fraction(2 * j - CHECK_POINTS + 1, 32 * CHECK_POINTS)  # in (-1/16, 1/16)
            p = sum(Fraction(c, 1 << FRAC_BITS[k]) * t**k for k, c in enumerate(coefs))
            worst = max(worst, abs(p - _q(_centre(i) + t)))
    with gmpy2.context(CONTEXT):
        return float(gmpy2.log2(gmpy2.mpq(worst.numerator, worst.denominator)))


def _literal(value: int) -> str:
    """A signed WIDTH-bit literal, cast to the instance's width W."""
    sign = "-" if value < 0 else " "
    return f"W'({sign}{WIDTH}'sh{abs(value):010X})"


def render() -> str:
    rows = table()
    for row in rows:
        for k, value in enumerate(row):
            assert abs(value) < 1 << (WIDTH - 2 - 4 * k + (k == 0)), (k, value)
    lines = [
        "// GENERATED by gen_erf_table.py -- do not edit; rerun the script instead.",
        "//",
        "// fk_fp32_erf_table: coefficient K of erf(x) / x on interval idx = floor(8x) of",
        "// [0, 4), in t = x - (idx + 1/2) / 8: a_K * 2^(38 - 4K), rounded to nearest, as a signed",
        "// W-bit value (every a_K fits 39 - 4K bits; a_0 needs 40). Combinational ROM of",
        "// fk_fp32_erf, one instance per coefficient.",
        "module fk_fp32_erf_table #(",
        "  parameter int K = 0,",
        f"  parameter int W = {WIDTH}",
        ") (",
        f"  input  logic [{INDEX_BITS - 1}:0] idx,",
        "  output logic signed [W-1:0] coef",
        ");",
    ]
    for k in range(DEGREE + 1):
        head = "  if (K == 0) begin : g_a0" if k == 0 else \
            f"  end else if (K == {k}) begin : g_a{k}"
        lines += [head, "    always_comb begin", "      case (idx)"]
        for i in range(INTERVALS):
            lines.append(f"        {INDEX_BITS}'d{i:<2}: coef = {_literal(rows[i][k])};")
        lines += ["        default: coef = '0;", "      endcase", "    end"]
    lines += [
        "  end else begin : g_none",
        "    assign coef = '0;",
        "  end",
        "endmodule",
        "",
    ]
    return "\n".join(lines)


def notes() -> list[str]:
    """The fit's measured error, printed after writing the file."""
    crossings, above = tiny_check()
    return [f"C_TINY = 48'h{c_tiny():012X}",
            f"tiny range: {crossings} significands round differently with C_TINY; the "
            f"closest lies 2^{above:.2f} (relative) above a midpoint",
            f"fraction bits of a_0..a_{DEGREE}: {FRAC_BITS}",
            f"max |Q - polynomial| over {CHECK_POINTS} points per interval: "
            f"2^{worst_error():.2f}"]


def main() -> int:
    return write_or_check(__doc__ or "", OUT, render, notes, __file__)


if __name__ == "__main__":
    sys.exit(main())
