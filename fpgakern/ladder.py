"""The optimization ladder as data: rungs, and the plan a rung makes for one kernel.

Every generator (HLS C++, RTL, host, link) reads a :class:`Plan`; none of them branches
on a rung number. Adding a rung means adding a :class:`Rung` here and the templates that
read its flags.
"""

from __future__ import annotations

from dataclasses import dataclass

from fpgakern.errors import UsageError
from fpgakern.ir.dtypes import DTYPES, DType
from fpgakern.ir.kernel import Kernel

AXI_BURST_MAX_BEATS = 256
AXI_BOUNDARY_BYTES = 4096
DEFAULT_ACC_INTERLEAVE = 8  # fp32 reductions without an RTL latency in the op table yet


@dataclass(frozen=True)
class Rung:
    """One rung of the ladder (DESIGN.md's table)."""

    index: int
    name: str
    summary: str
    buffered: bool = False  # local buffers filled and drained by bursts
    dataflow: bool = False  # read, compute and write run concurrently, joined by streams
    multi_cu: bool = False  # several compute units share the work (host splits it)
    vector_bits: int | None = None  # wide ports carrying vector_bits / element bits lanes

    @property
    def label(self) -> str:
        return f"opt{self.index} {self.name}"


RUNGS: tuple[Rung, ...] = (
    Rung(0, "naive", "one loop over global memory, one m_axi bundle"),
    Rung(1, "buffered", "local buffers, burst read, compute, burst write per chunk",
         buffered=True),
    Rung(2, "dataflow", "read / compute / write in DATAFLOW, hls::stream, II=1",
         dataflow=True),
    Rung(3, "multi_cu", "the dataflow kernel linked as N compute units, host splits work",
         dataflow=True, multi_cu=True),
    Rung(4, "vectorized", "512-bit ports, hls::vector lanes, dataflow",
         dataflow=True, vector_bits=512),
)


def rung(index: int) -> Rung:
    if not 0 <= index < len(RUNGS):
        raise UsageError(f"unknown rung {index} (rungs are 0-{len(RUNGS) - 1})")
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

    @property
    def burst_beats(self) -> int:
        """Beats per rung-1 burst: AXI's 256-beat maximum, never across 4 KiB."""
        return min(self.chunk, AXI_BURST_MAX_BEATS, AXI_BOUNDARY_BYTES // (self.port_bits // 8))
    stream_depth: int = 32  # hls::stream / RTL FIFO depth between dataflow stages

    @property
    def top(self) -> str:
        return self.kernel.top_name(self.dtype.name)

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

    @property
    def bundles(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.bundle(p) for p in self.pointers))

    @property
    def acc_interleave(self) -> int:
        """P, the interleaved partial results a reduction keeps so that one element (or
        beat) enters per cycle although the combine op takes several cycles. It fixes
        the order of combination, so it comes from the RTL accumulator's op-table entry
        and the HLS C++ mirrors it bit for bit."""
        reduction = self.kernel.reduction
        if reduction is None:
            return 1
        impl = reduction.rtl.get(self.dtype.name)
        if impl is None:
            return DEFAULT_ACC_INTERLEAVE if self.dtype.is_float else 1
        return impl.interleave

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
