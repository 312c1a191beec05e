"""The optimization ladder as data: rungs, and the plan a rung makes for one kernel.

Every generator (HLS C++, RTL, host, link) reads a :class:`Plan`; none of them branches
on a rung number. Adding a rung means adding a :class:`Rung` here and the templates that
read its flags.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from fpgakern import paths
from fpgakern.errors import UsageError
from fpgakern.ir.dtypes import DTYPES, DType
from fpgakern.ir.kernel import Kernel

AXI_BURST_MAX_BEATS = 256
AXI_BOUNDARY_BYTES = 4096


@dataclass(frozen=True)
class Rung:
    """One rung of the ladder: what it is (the README's table is checked against these
    summaries) and the numbers its microarchitecture asks for. Burst lengths are wishes:
    :class:`Plan` cuts them to AXI's limits and the element width (docs/rtl.md)."""

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
    # The HLS kernel asks for the RTL's read bursts: one 4 KiB page of 512-bit beats.
    replace(_DATAFLOW, index=4, name="vectorized",
            summary="512-bit ports, hls::vector lanes, dataflow",
            rtl_summary="lane-parallel datapath on 512-bit AXI ports, dataflow engines",
            vector_bits=512, hls_burst=64),
)
LAST_RUNG = RUNGS[-1].index  # rungs are numbered 0..LAST_RUNG
assert [r.index for r in RUNGS] == list(range(len(RUNGS))), "rungs are numbered in order"


def rung(index: int) -> Rung:
    if not 0 <= index <= LAST_RUNG:
        raise UsageError(f"unknown rung {index} (rungs are 0-{LAST_RUNG})")
    return RUNGS[index]


@dataclass(frozen=True)
class Plan:
    """What one rung makes of one kernel at one dtype: the microarchitecture in numbers."""

    kernel: Kernel
    rung: Rung
    dtype: DType

    # Elements per rung-1 local buffer. Each phase of a chunk pays the memory latency once
    # (64 cycles behind a DDR interconnect), so a chunk of 4096 keeps that under 2 % of
    # the phase; 16 KiB per buffer is 4 BRAM36.
    chunk: int = 4096
    # hls::stream depth between the HLS dataflow stages (the RTL sizes its FIFOs from the
    # rung's bursts instead).
    stream_depth: int = 32
    # The most elements one testbench case may hold: csim's largest cases are 1000
    # random elements and 37 x 37 = 1369 pairs of float special values. The testbench
    # refuses bigger cases, and every m_axi port's depth= covers this many (Vitis cosim
    # sizes its memory model from depth=), see :meth:`cosim_depth`.
    max_test_elements: int = 4096

    @property
    def phase_elements(self) -> int:
        """Elements per phase at the sequential rungs (inputs in, then compute and write
        out, in turn): a chunk at rung 1, one element at rung 0."""
        return self.chunk if self.rung.buffered else 1

    def _fit_burst(self, beats: int) -> int:
        """``beats`` cut to what one burst may carry: AXI's 256-beat maximum, never across
        a 4 KiB page, and at the sequential rungs never more than one phase."""
        limit = min(AXI_BURST_MAX_BEATS, AXI_BOUNDARY_BYTES // (self.port_bits // 8))
        if not self.rung.dataflow:
            limit = min(limit, self.phase_elements)
        return min(beats, limit)

    @property
    def read_burst(self) -> int:
        """Beats per RTL read burst."""
        return self._fit_burst(self.rung.read_burst)

    @property
    def write_burst(self) -> int:
        """Beats per RTL write burst."""
        return self._fit_burst(self.rung.write_burst or self.rung.read_burst)

    @property
    def hls_burst(self) -> int | None:
        """Beats per burst the HLS kernel asks m_axi for; None keeps the HLS defaults."""
        return None if self.rung.hls_burst is None else self._fit_burst(self.rung.hls_burst)

    @property
    def top(self) -> str:
        return self.kernel.top_name(self.dtype.name)

    def variant_dir(self, root: Path) -> Path:
        """This variant's folder in the build tree at ``root``."""
        return paths.variant_dir(root, self.kernel.category, self.kernel.name,
                                 self.rung.index, self.dtype.name)

    @property
    def lanes(self) -> int:
        """Elements per memory word: 512 / element bits at rung 4, else 1."""
        return self.dtype.lanes(self.rung.vector_bits) if self.rung.vector_bits else 1

    @property
    def port_bits(self) -> int:
        """Width of each m_axi port's data bus."""
        return self.rung.vector_bits or self.dtype.bits

    @property
    def compute_units(self) -> int:
        return self.kernel.compute_units if self.rung.multi_cu else 1

    @property
    def pointers(self) -> tuple[str, ...]:
        """Pointer arguments in C order: inputs, then the output."""
        return (*self.kernel.inputs, *self.kernel.outputs)

    def bundle(self, pointer: str) -> str:
        """The m_axi bundle of a pointer: one shared ``gmem`` until rung 2 gives each its own."""
        if not self.rung.dataflow:
            return "gmem"
        return f"gmem{self.pointers.index(pointer)}"

    def cosim_depth(self, pointer: str) -> int:
        """depth= of a pointer's m_axi port: the words one kernel call may access for the
        largest test case (a reduction writes one result word)."""
        if self.kernel.is_reduction and pointer in self.kernel.outputs:
            return 1
        return -(-self.max_test_elements // self.lanes)

    @property
    def bundles(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.bundle(p) for p in self.pointers))

    @property
    def acc_interleave(self) -> int:
        """P, the interleaved partial results a reduction keeps so that one element (or
        beat) enters per cycle although the combine op takes several cycles. It fixes
        the order of combination, so it comes from the op table (the combine op's RTL
        latency) and the HLS C++ mirrors the RTL accumulator bit for bit."""
        reduction = self.kernel.reduction
        return 1 if reduction is None else reduction.partials(self.dtype.name)

    @property
    def hls_acc_interleave(self) -> int:
        """ACC, the interleaved partial results of the HLS C++ accumulate loop: from the
        combine op's latency in Vitis HLS (``Op.hls_latency``), not from fpgakern's RTL,
        so that the loop's true dependence (distance ACC) allows II=1 in Vitis. Equal to
        :attr:`acc_interleave` where the order of combination changes the result."""
        reduction = self.kernel.reduction
        return 1 if reduction is None else reduction.hls_partials(self.dtype.name)

    @property
    def ideal_elements_per_cycle(self) -> float | None:
        """What the rung's microarchitecture can reach at best, for comparing with the
        simulated rate. Rung 0 is latency-bound: no meaningful ideal."""
        if self.rung.index == 0:
            return None
        if self.rung.buffered:
            # Phases in sequence: each input burst in, then compute while writing out
            # (elementwise) or accumulate (reductions): one cycle per element per phase.
            return 1.0 / (len(self.kernel.inputs) + 1)
        return float(self.lanes * self.compute_units)


def plan(kernel: Kernel, rung_index: int, dtype_name: str) -> Plan:
    """The plan for one kernel x rung x dtype, after checking the kernel declares both."""
    if rung_index not in kernel.rungs:
        raise UsageError(f"{kernel.qualname} does not build rung {rung_index} "
                         f"(its rungs: {', '.join(map(str, kernel.rungs))})")
    if dtype_name not in kernel.dtypes:
        raise UsageError(f"{kernel.qualname} has no dtype {dtype_name!r} "
                         f"(its dtypes: {', '.join(kernel.dtypes)})")
    return Plan(kernel, rung(rung_index), DTYPES[dtype_name])
