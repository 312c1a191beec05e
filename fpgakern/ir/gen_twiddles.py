"""Generate twiddles.hex, the FFT's twiddle factors: cos(2*pi*k/N) for k = 0..N/4 at the
largest transform length N = MAX_FFT (fpgakern.ir.fft), each the float32 value correctly
rounded from the exact one, as eight hex digits a line.

Run from anywhere with the project installed: ``python fpgakern/ir/gen_twiddles.py
[--check]`` (the command line is fpgakern.util.generated's). The values come from MPFR
(gmpy2) at 200 bits, rounded once to float32 (round to nearest even), so the output is
deterministic; ``--check`` exits non-zero when the committed file is stale.

A quarter wave is enough: every twiddle of every length N' <= N is
cos(2*pi*k'/N') = cos(2*pi*k/N) with k = k' * N / N', and sin and the other quadrants are
the same values read backwards (fpgakern.ir.fft.twiddle_table), exactly.
"""

from __future__ import annotations

import sys
from pathlib import Path

import gmpy2

from fpgakern.util.generated import write_or_check

HERE = Path(__file__).resolve().parent
OUT = HERE / "twiddles.hex"
MAX_FFT = 65536  # fpgakern.ir.fft.MAX_FFT; kept apart so this script needs no numpy


def quarter_wave(n: int = MAX_FFT) -> list[int]:
    """The float32 bits of RN(cos(2*pi*k/n)), k = 0..n/4."""
    context = gmpy2.get_context()
    context.precision = 200
    pi = gmpy2.const_pi()
    bits: list[int] = []
    for k in range(n // 4):
        exact = gmpy2.cos(2 * pi * k / n)  # in [cos(pi/2 - 2pi/n), 1]: normal float32s
        rounded = gmpy2.mpfr(exact, 24)  # 24-bit significand: float32, round to nearest even
        bits.append(_float32_bits(float(rounded)))
    bits.append(0)  # cos(pi/2) is 0 exactly; MPFR's pi/2 would give a tiny non-zero
    return bits


def _float32_bits(value: float) -> int:
    import struct
    return int.from_bytes(struct.pack("<f", value), "little")


def render() -> str:
    lines = [f"{b:08x}" for b in quarter_wave()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return write_or_check(__doc__ or "", OUT, render,
                          lambda: [f"wrote {OUT.name}: {MAX_FFT // 4 + 1} twiddles"],
                          __file__, argv)


if __name__ == "__main__":
    sys.exit(main())
