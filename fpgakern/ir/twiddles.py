"""The FFT's twiddle factors: cos(2*pi*k/N) for k = 0..N/4 at the largest transform
length N = MAX_FFT (fpgakern.ir.fft), each the float32 value correctly rounded from the
exact one, as eight hex digits a line.

:func:`quarter_wave_file` is the one way to them: the file is generated into the
fpgakern cache on first use (``cache_dir()/generated/twiddles-<key>/twiddles.hex``),
under a key of this module's source and the MPFR library's version, and never kept in
git. The values come from MPFR (gmpy2) at 200 bits, rounded once to float32 (round to
nearest even), so the output is deterministic; tests/test_fft_model.py pins its SHA-256.

A quarter wave is enough: every twiddle of every length N' <= N is
cos(2*pi*k'/N') = cos(2*pi*k/N) with k = k' * N / N', and sin and the other quadrants are
the same values read backwards (fpgakern.ir.fft.twiddle_table), exactly.
"""

from __future__ import annotations

import struct
from pathlib import Path

import gmpy2

from fpgakern.tools.cache import generated_file

FILE_NAME = "twiddles.hex"
MAX_FFT = 65536  # the longest transform (fpgakern.ir.fft.MAX_FFT)
WORDS = MAX_FFT // 4 + 1  # k = 0..MAX_FFT/4


def quarter_wave(n: int = MAX_FFT) -> list[int]:
    """The float32 bits of RN(cos(2*pi*k/n)), k = 0..n/4."""
    context = gmpy2.get_context()
    context.precision = 200
    pi = gmpy2.const_pi()
    bits: list[int] = []
    for k in range(n // 4):
        exact = gmpy2.cos(2 * pi * k / n)  # in [cos(pi/2 - 2pi/n), 1]: normal float32s
        rounded = gmpy2.mpfr(exact, 24)  # 24-bit significand: float32, round to nearest even
        bits.append(int.from_bytes(struct.pack("<f", float(rounded)), "little"))
    bits.append(0)  # cos(pi/2) is 0 exactly; MPFR's pi/2 would give a tiny non-zero
    return bits


def render() -> str:
    return "".join(f"{b:08x}\n" for b in quarter_wave())


def quarter_wave_file() -> Path:
    """The generated table (:data:`WORDS` lines of hex float32 bits), from the cache."""
    return generated_file(FILE_NAME, render, Path(__file__),
                          f"gmpy2 {gmpy2.version()} {gmpy2.mp_version()}")
