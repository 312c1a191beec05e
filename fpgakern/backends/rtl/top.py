"""What every generated top module shares: the template environment, the rung's numbers
(Microarch), the register map's argument words (for fk_axil_ctrl) and the port list's
layout. The kernel generators (generate.py for the expression kinds, stream.py for
kernels with stream ports, fft_sequential.py and fft_stream.py for the transforms) each
render their own top from these."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import jinja2

from fpgakern.interface import FIRST_ARG_OFFSET, MAILBOX_FIRST_ARG_OFFSET, KernelInterface
from fpgakern.util import jinja

TEMPLATES = Path(__file__).resolve().parent / "templates"


@dataclass(frozen=True)
class Microarch:
    """The numbers a rung sets for the generated RTL (docs/rtl.md explains each)."""

    template: str
    max_burst: int  # beats per AXI read burst
    read_outstanding: int  # bursts in flight per read engine
    write_outstanding: int  # bursts awaiting B per write engine
    in_fifo_depth: int  # beats of buffering per input (dataflow) or chunk buffer (sequential)
    out_fifo_depth: int  # beats of output FIFO
    sink_fifo_depth: int = 0  # reductions: beats of FIFO in front of the accumulator
    chunk: int = 0  # elements per phase (sequential template only)
    write_burst: int = 0  # beats per AXI write burst (0: max_burst)

    @property
    def max_write_burst(self) -> int:
        return self.write_burst or self.max_burst


@dataclass(frozen=True)
class _ArgWord:
    name: str
    offset: int
    word: int  # index of its (low) word among the argument words from 0x10


@dataclass(frozen=True)
class _Control:
    words: int
    writable: str  # binary, word ARG_WORDS-1 first
    pointers: tuple[_ArgWord, ...]
    scalars: tuple[_ArgWord, ...]
    reserved: tuple[int, ...]  # indices of the reserved words (always 0)
    # A register kernel's (fk_mailbox): its results, and the words read from the mailbox
    # (the counter, the two mailboxes and the results); the binary masks of its input
    # and result words, word ARG_WORDS-1 first.
    mailbox: bool = False
    results: tuple[_ArgWord, ...] = ()
    status: str = ""
    input_words: str = ""
    result_words: str = ""


def _mask(words: int, chosen: set[int]) -> str:
    return "".join("1" if w in chosen else "0" for w in reversed(range(words)))


def control_words(iface: KernelInterface) -> _Control:
    """Argument words of the register map: each argument's data words, then one reserved
    (a register kernel's after its counter and mailbox words, 0x10-0x18)."""
    # The counter and the two mailboxes are the first words a register kernel's host writes.
    writable: list[bool] = [True] * ((MAILBOX_FIRST_ARG_OFFSET - FIRST_ARG_OFFSET) // 4
                                     if iface.mailbox else 0)
    pointers: list[_ArgWord] = []
    scalars: list[_ArgWord] = []
    results: list[_ArgWord] = []
    for arg in iface.args:
        if arg.kind == "stream":  # an AXI4-Stream port of its own: no register
            continue
        word = (arg.offset - FIRST_ARG_OFFSET) // 4
        assert word == len(writable), "interface offsets must be contiguous"
        data_words = arg.size // 4
        writable += [True] * data_words + [False]
        group = pointers if arg.kind == "pointer" else results if arg.direction == "out" \
            else scalars
        group.append(_ArgWord(arg.name, arg.offset, word))
    bits = "".join("1" if w else "0" for w in reversed(writable))
    reserved = tuple(i for i, w in enumerate(writable) if not w)
    if not iface.mailbox:
        return _Control(len(writable), bits, tuple(pointers), tuple(scalars), reserved)
    result_words = {r.word for r in results}
    return _Control(len(writable), bits, (), tuple(scalars), reserved, True, tuple(results),
                    _mask(len(writable), {0, 1, 2} | result_words),
                    _mask(len(writable), {s.word for s in scalars}),
                    _mask(len(writable), result_words))


def environment() -> jinja2.Environment:
    """The environment of the RTL templates (``backends/rtl/templates``)."""
    return jinja.environment(TEMPLATES)


def port_column(data_w: int) -> int:
    """Width of the range column in a top module's port list: every port name starts in
    one column, whether the widest range is [63:0] or [511:0]."""
    return max(len("[63:0]"), len(f"[{data_w - 1}:0]"))
