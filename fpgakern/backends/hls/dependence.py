"""Dependence distances of the spectral kernels' ping-pong buffers, derived from the loops'
index maps, for their ``#pragma HLS DEPENDENCE ... distance=`` lines.

The reorder loop (every transform) and irfft's extend loop handle rows in slots of L
iterations: in slot s they write place j of one half of their buffer at the slot's
iteration j and read the other half, which slot s - 1 wrote; slot s + 1 writes that half
again. A read at iteration j of a slot of the place written at iteration ``source(j)``
therefore comes ``L + j - source(j)`` iterations after that write (read after write), and
the next write of that place ``L + source(j) - j`` iterations after the read (write after
read). Vitis HLS cannot see either through the slot-dependent half and the non-affine
``source`` (bit reversal, the spectrum's mirror), so the loops state the least of each over
every transform length the kernel takes: a true distance, never a false dependence.

* rungs 0-3, ``reorder``: L = n, ``source(p) = bit_reverse(p)`` for p < the output length;
* rungs 0-3, irfft ``extend``: L = n, bins 0..n/2 written, ``source(p) = p`` up to n/2 and
  ``n - p`` above (X[n - k] = conj(X[k]));
* rung 4 (a word of eight lanes an iteration, one bank per lane): L = n/8 words,
  ``reorder_words`` reads bank address ``bit_reverse(8w + l) // 8`` for each lane,
  ``extend_words`` reads ``direct`` at ``w`` (0 above n/2) and ``mirror`` at
  ``(n - 8w - l) // 8`` (0 up to n/2): every lane reads both every cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fpgakern.ir import fft

LANES = 8  # complex64 elements of a rung-4 word


@dataclass(frozen=True)
class Distances:
    """The least distance, in loop iterations, from a write of a place to a read of it
    (``raw``) and from a read of a place to the next write of it (``war``)."""

    raw: int
    war: int

    def __or__(self, other: Distances) -> Distances:  # the least of both
        return Distances(min(self.raw, other.raw), min(self.war, other.war))


def slot_distances(slot: int, sources: np.ndarray) -> Distances:
    """A ping-pong loop's distances: ``slot`` iterations a slot; ``sources[j]`` the slot
    iteration whose write each read of iteration j takes (one row per iteration, one
    column per read of that iteration)."""
    j = np.arange(sources.shape[0]).reshape(-1, *([1] * (sources.ndim - 1)))
    return Distances(int((slot + j - sources).min()), int((slot + sources - j).min()))


def _lengths(max_n: int) -> list[int]:
    """The transform lengths a kernel of ``max_n`` points takes."""
    return [1 << m for m in range(fft.MIN_FFT.bit_length() - 1, max_n.bit_length())]


def _least(per_length: list[Distances]) -> Distances:
    out = per_length[0]
    for d in per_length[1:]:
        out = out | d
    return out


def _spectrum_read(n: int) -> np.ndarray:
    """The bin each place p of the n-point spectrum reads: p up to n/2, n - p above."""
    p = np.arange(n)
    return np.where(p <= n // 2, p, n - p)


def reorder(transform: fft.Transform, max_n: int) -> Distances:
    """``reorder`` (rungs 0-3): results p < the output length read ``bit_reverse(p)``."""
    return _least([slot_distances(n, fft.bit_reverse(n)[:_kept(transform, n)])
                   for n in _lengths(max_n)])


def extend(max_n: int) -> Distances:
    """irfft's ``extend`` (rungs 0-3)."""
    return _least([slot_distances(n, _spectrum_read(n)) for n in _lengths(max_n)])


def _kept(transform: fft.Transform, n: int) -> int:
    """The results a row of ``reorder`` sends: rfft keeps bins 0..n/2."""
    return n // 2 + 1 if transform == "rfft" else n


def reorder_words(transform: fft.Transform, max_n: int) -> Distances:
    """``reorder_words`` (rung 4): word w reads, in each lane's bank, the word holding
    position ``bit_reverse(8w + l)``; rfft reads the words that hold bins 0..n/2 only."""
    out = []
    for n in _lengths(max_n):
        words = n // LANES
        kept = -(-_kept(transform, n) // LANES) if transform == "rfft" else words
        positions = fft.bit_reverse(n).reshape(words, LANES)[:kept]
        out.append(slot_distances(words, positions // LANES))
    return _least(out)


def extend_words(max_n: int) -> tuple[Distances, Distances]:
    """``extend_words`` (rung 4): the distances of ``direct`` and of ``mirror``. Word w
    lane l is place p = 8w + l of the spectrum; below n/2 it reads ``direct`` at w and
    ``mirror`` at 0, above at 0 and at the word of bin n - p."""
    direct, mirror = [], []
    for n in _lengths(max_n):
        words = n // LANES
        p = np.arange(n).reshape(words, LANES)
        upper = p > n // 2
        w = np.broadcast_to(np.arange(words)[:, None], p.shape)
        direct.append(slot_distances(words, np.where(upper, 0, w)))
        mirror.append(slot_distances(words, np.where(upper, (n - p) // LANES, 0)))
    return _least(direct), _least(mirror)
