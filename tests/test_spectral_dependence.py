"""The spectral kernels' ping-pong loops (``reorder``, irfft's ``extend``, and rung 4's
``reorder_words`` / ``extend_words``) state their true dependence distances: each
generated ``#pragma HLS DEPENDENCE ... distance=`` is the least distance found by running
the loop's index sequence, as the C++ steps it, for every transform length the kernel
takes, and recording when each buffer place is written and read.

The distances come from fpgakern.backends.hls.dependence's closed forms; this file knows
nothing of them: it walks the iterations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest

from fpgakern.backends.hls import spectral

MAX_N = 4096  # every length 8..4096 walked; the kernels are rendered for the same
ROWS = 3
LANES = 8

Access = tuple[int, int]  # (bank, address)


def _bit_reverse(p: int, bits: int) -> int:
    return int(format(p, f"0{bits}b")[::-1], 2) if bits else 0


def _walk(total: int, step: Callable[[int], tuple[list[Access], list[Access]]],
          reads_first: bool = False) -> tuple[int, int]:
    """The least read-after-write and write-after-read distances (in iterations) of a loop
    whose iteration i writes and reads the places ``step(i)`` gives. Within an iteration
    the C++ writes first; a same-iteration alias would be no loop-carried dependence, and
    none occurs."""
    last_write: dict[Access, int] = {}
    last_read: dict[Access, int] = {}
    raw, war = total, total
    for i in range(total):
        writes, reads = step(i)
        for place in writes:
            if place in last_read and last_read[place] > last_write.get(place, -1):
                assert i > last_read[place]
                war = min(war, i - last_read[place])
            last_write[place] = i
        for place in reads:
            if place in last_write:
                assert i > last_write[place], "a read of what the same iteration wrote"
                raw = min(raw, i - last_write[place])
            last_read[place] = i
    return raw, war


def _slots(n: int, per_row: int) -> Iterator[tuple[int, int]]:
    """(slot, place in the slot) of each iteration: rows + 1 slots of per_row iterations."""
    for i in range((ROWS + 1) * per_row):
        yield i // per_row, i % per_row


def _reorder(transform: str, n: int) -> tuple[int, int]:
    logn = n.bit_length() - 1
    out_len = n // 2 + 1 if transform == "rfft" else n
    sequence = list(_slots(n, n))

    def step(i: int) -> tuple[list[Access], list[Access]]:
        slot, p = sequence[i]
        fill = (slot & 1) * MAX_N
        drain = MAX_N - fill
        writes = [(0, fill + p)] if slot < ROWS else []
        reads = [(0, drain + _bit_reverse(p, logn))] if slot > 0 and p < out_len else []
        return writes, reads

    return _walk(len(sequence), step)


def _extend(n: int) -> tuple[int, int]:
    stride = MAX_N // 2 + 1
    half = n // 2
    sequence = list(_slots(n, n))

    def step(i: int) -> tuple[list[Access], list[Access]]:
        slot, p = sequence[i]
        fill = (slot & 1) * stride
        drain = stride - fill
        writes = [(0, fill + p)] if slot < ROWS and p <= half else []
        reads = [(0, drain + (p if p <= half else n - p))] if slot > 0 else []
        return writes, reads

    return _walk(len(sequence), step)


def _bank_of(pos: int, logn: int) -> int:
    low = pos & (LANES - 1)
    return low ^ ((pos >> (logn - 3)) & (LANES - 1)) if logn > 3 else low


def _reorder_words(transform: str, n: int) -> tuple[int, int]:
    logn = n.bit_length() - 1
    words = n // LANES
    stride = MAX_N // LANES
    out_words = -(-(n // 2 + 1) // LANES) if transform == "rfft" else words
    sequence = list(_slots(n, words))

    def step(i: int) -> tuple[list[Access], list[Access]]:
        slot, w = sequence[i]
        fill = (slot & 1) * stride
        drain = stride - fill
        writes = [(b, fill + w) for b in range(LANES)] if slot < ROWS else []
        reads = []
        if slot > 0 and (transform == "irfft" or w < out_words):
            for lane in range(LANES):
                pos = _bit_reverse(w * LANES + lane, logn)
                reads.append((_bank_of(pos, logn), drain + pos // LANES))
        return writes, reads

    return _walk(len(sequence), step)


def _extend_words(n: int, buffer: str) -> tuple[int, int]:
    stride = MAX_N // 16 + 1
    half = n // 2
    words = n // LANES
    bin_words = -(-(half + 1) // LANES)
    sequence = list(_slots(n, words))

    def step(i: int) -> tuple[list[Access], list[Access]]:
        slot, w = sequence[i]
        fill = (slot & 1) * stride
        drain = stride - fill
        writes = [(lane, fill + w) for lane in range(LANES)] \
            if slot < ROWS and w < bin_words else []
        reads = []
        if slot > 0:
            for lane in range(LANES):
                p = w * LANES + lane
                upper = p > half
                if buffer == "direct":
                    reads.append((lane, drain + (0 if upper else w)))
                else:
                    reads.append(((LANES - lane) % LANES,
                                  drain + ((n - p) // LANES if upper else 0)))
        return writes, reads

    return _walk(len(sequence), step)


def _least(walk: Callable[[int], tuple[int, int]]) -> tuple[int, int]:
    found = [walk(1 << m) for m in range(3, MAX_N.bit_length())]
    return min(r for r, _ in found), min(w for _, w in found)


def _pragmas(cpp: str, function: str, variable: str) -> tuple[int, int]:
    """The RAW and WAR distances the generated ``function`` states for ``variable``."""
    body = cpp.split(f"static void {function}(", 1)[1].split("\n}\n", 1)[0]
    found = {}
    for direction in ("RAW", "WAR"):
        (distance,) = re.findall(rf"#pragma HLS DEPENDENCE variable={variable} type=inter "
                                 rf"direction={direction} dependent=true distance=(\d+)", body)
        found[direction] = int(distance)
    return found["RAW"], found["WAR"]


def _kernel(transform: str, rung: int) -> str:
    files = spectral.render_spectral("top", transform, rung, max_n=MAX_N)
    return files["top.cpp"]


@pytest.mark.parametrize("transform", ["fft", "ifft", "rfft", "irfft"])
@pytest.mark.parametrize("rung", [0, 1, 2, 3])
def test_reorder_states_the_least_distances_of_its_index_sequence(transform, rung):
    cpp = _kernel(transform, rung)
    if rung < 2:
        assert "static void reorder(" not in cpp  # rungs 0-1 reorder in place, no slots
        return
    want = _least(lambda n: _reorder(transform, n))
    assert _pragmas(cpp, "reorder", "buf") == want
    if transform == "irfft":
        assert _pragmas(cpp, "extend", "bins") == _least(_extend)


@pytest.mark.parametrize("transform", ["fft", "ifft", "rfft", "irfft"])
def test_rung4_word_loops_state_the_least_distances_of_their_index_sequences(transform):
    cpp = _kernel(transform, 4)
    assert _pragmas(cpp, "reorder_words", "buf") == \
        _least(lambda n: _reorder_words(transform, n))
    if transform == "irfft":
        for buffer in ("direct", "mirror"):
            assert _pragmas(cpp, "extend_words", buffer) == \
                _least(lambda n, b=buffer: _extend_words(n, b))


def test_the_issue_s_distances():
    """The least read-after-write distances the review derived by hand: 5 for reorder
    (n = 8: result 1 reads place 4), 8 for extend (n: every bin up to n/2 is read n
    iterations after it is written)."""
    assert _least(lambda n: _reorder("fft", n))[0] == 5
    assert _least(_extend)[0] == 8
