"""The rungs of the optimization ladder: what each one is and the numbers its
microarchitecture asks for.

Every generator reads a :class:`~fpgakern.ladder.plans.Plan`; none of them branches on a
rung number. Adding a rung means adding a :class:`Rung` here and the templates that read
its flags.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from fpgakern.errors import UsageError
from fpgakern.ir.kernel import Kernel

AXI_BURST_MAX_BEATS = 256  # the most beats one AXI4 burst carries


@dataclass(frozen=True)
class Rung:
    """One rung of the ladder: what it is (the README's table is checked against these
    summaries) and the numbers its microarchitecture asks for. Burst lengths are wishes:
    the :class:`~fpgakern.ladder.microarch.Microarchitecture` cuts them to AXI's limits
    and the element width (docs/rtl.md)."""

    index: int
    name: str
    summary: str  # the HLS C++ kernel (its header comment says this)
    rtl_summary: str  # the RTL kernel (its top module's header comment says this)
    buffered: bool = False  # local buffers filled and drained by bursts
    dataflow: bool = False  # read, compute and write run concurrently, joined by streams
    multi_cu: bool = False  # several compute units share the work (host splits it)
    vector_bits: int | None = None  # wide ports carrying vector_bits / element bits lanes
    # The RTL's AXI engines: beats per burst and bursts in flight. A write burst is
    # requested once all its data is committed, so W trails the data by up to one burst:
    # the dataflow rungs keep write bursts short (None: as long as the read bursts).
    read_burst: int = 1
    write_burst: int | None = None
    read_outstanding: int = 1  # read bursts in flight per engine
    write_outstanding: int = 1  # write bursts awaiting B per engine
    # The dataflow rungs' RTL FIFOs, in bursts: each input's FIFO (its read engine's
    # credits), and the write bursts the output FIFO holds beside the pipeline's contents.
    input_fifo_bursts: int = 0
    output_fifo_bursts: int = 0
    # Beats per burst the HLS kernel asks m_axi for (max_read/write_burst_length); None
    # keeps Vitis HLS's defaults.
    hls_burst: int | None = None
    # Compute units chosen from the platform: as many as its banks feed and its SLRs hold,
    # within the fabric's margin (rung 5; ``Placement._sized_cus``).
    sized_by_platform: bool = False
    # Built for a kernel whose spec lists no rungs. A rung that takes the whole card's
    # memory (rung 5) is built on request instead: when a spec lists it, or when asked
    # for by number (--opt 5) of a kernel that builds the rung it replicates
    # (``replicates``); see :func:`builds` and docs/spec-format.md.
    by_default: bool = True
    replicates: int | None = None

    @property
    def label(self) -> str:
        return f"opt{self.index} {self.name}"


# Rung 2, which rungs 3 and 4 build on. Reads: 64-beat bursts (4 KiB at 512 bit, the
# most a page allows), four of them buffered per input so that the engine keeps 256 beats
# in flight, far more than the 64-cycle read latency plus one burst that II=1 needs.
# Writes: 16-beat bursts, 16 outstanding (the HLS m_axi defaults): short bursts keep W's
# lag behind the data (paid once, at the end of a run) small, and 16 in flight cover a
# 64-cycle write response latency several times over. The output FIFO holds two write
# bursts plus the pipeline's contents.
_DATAFLOW = Rung(2, "dataflow", "read / compute / write in DATAFLOW, hls::stream, II=1",
                 "concurrent read, compute and write engines joined by FIFOs, II=1",
                 dataflow=True, read_burst=64, write_burst=16, read_outstanding=8,
                 write_outstanding=16, input_fifo_bursts=4, output_fifo_bursts=2)

# The HLS kernel asks for the RTL's read bursts: one 4 KiB page of 512-bit beats.
_VECTORIZED = replace(_DATAFLOW, index=4, name="vectorized",
                      summary="512-bit ports, hls::vector lanes, dataflow",
                      rtl_summary="lane-parallel datapath on 512-bit AXI ports, dataflow "
                                  "engines",
                      vector_bits=512, hls_burst=64)

RUNGS: tuple[Rung, ...] = (
    # One element per phase: single-beat transfers, one transaction outstanding.
    Rung(0, "naive", "one loop over global memory, one m_axi bundle",
         "single-beat AXI transfers per element, one transaction outstanding"),
    # One chunk per phase, moved in the longest bursts AXI allows.
    Rung(1, "buffered", "local buffers, burst read, compute, burst write per chunk",
         "burst engines and on-chip chunk buffers, phases in sequence",
         buffered=True, read_burst=AXI_BURST_MAX_BEATS, read_outstanding=4,
         write_outstanding=4, hls_burst=AXI_BURST_MAX_BEATS),
    _DATAFLOW,
    replace(_DATAFLOW, index=3, name="multi_cu",
            summary="the dataflow kernel linked as N compute units, host splits work",
            rtl_summary="the dataflow kernel; each compute unit is one instance with its "
                        "own ports",
            multi_cu=True),
    _VECTORIZED,
    # The vectorized kernel as many compute units as the platform's banks feed and its
    # SLRs hold: each data-moving port on a pseudo-channel of its own on HBM, each CU on
    # the DDR bank of its SLR on DDR cards.
    replace(_VECTORIZED, index=5, name="vectorized_multi_cu",
            summary="the vectorized kernel linked as N compute units sized to the card's "
                    "banks and SLRs, host splits work",
            rtl_summary="the vectorized kernel; each compute unit is one instance with its "
                        "own ports and banks",
            multi_cu=True, sized_by_platform=True, by_default=False, replicates=4),
)
LAST_RUNG = RUNGS[-1].index  # rungs are numbered 0..LAST_RUNG
assert [r.index for r in RUNGS] == list(range(len(RUNGS))), "rungs are numbered in order"
# What a spec without ``rungs:`` builds.
DEFAULT_RUNGS: tuple[int, ...] = tuple(r.index for r in RUNGS if r.by_default)


def rung(index: int) -> Rung:
    if not 0 <= index <= LAST_RUNG:
        raise UsageError(f"unknown rung {index} (rungs are 0-{LAST_RUNG})")
    return RUNGS[index]


def builds(kernel: Kernel, index: int) -> bool:
    """Whether ``kernel`` builds rung ``index`` when asked for it by number: a rung its
    spec lists, or a rung built on request (not by default) whose replicated rung it
    lists. What a kernel builds unasked is ``kernel.rungs``."""
    if index in kernel.rungs:
        return True
    if not 0 <= index <= LAST_RUNG or kernel.kind == "transform":
        return False
    chosen = RUNGS[index]
    return not chosen.by_default and chosen.replicates in kernel.rungs


def not_built(kernel: Kernel, rung_index: int) -> str:
    """Why ``kernel`` refuses rung ``rung_index``, as a message."""
    why = "; a kernel with stream ports builds the dataflow rung only" if kernel.streams else (
        "; a register kernel builds rung 0 only" if kernel.auto_restart else "")
    return (f"{kernel.qualname} does not build rung {rung_index} "
            f"(its rungs: {', '.join(map(str, kernel.rungs))}{why})")
