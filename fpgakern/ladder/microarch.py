"""What one rung makes of one kernel at one dtype inside a compute unit: bursts, lanes,
ports and bundles, the accumulator's interleave, and what each port moves per element."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from fpgakern.ir.dtypes import DTYPES, DType
from fpgakern.ir.kernel import Kernel
from fpgakern.ladder.rungs import AXI_BURST_MAX_BEATS, Rung

AXI_BOUNDARY_BYTES = 4096  # no AXI4 burst crosses a 4 KiB page


@dataclass(frozen=True)
class Microarchitecture:
    """One compute unit of a variant, in numbers: every generator's widths and depths."""

    kernel: Kernel
    rung: Rung
    dtype: DType

    # Elements per rung-1 local buffer. Each phase of a chunk pays the memory latency once
    # (64 cycles behind a DDR interconnect), so a chunk of 4096 keeps that under 2 % of
    # the phase; 16 KiB per buffer is 4 BRAM36.
    chunk: ClassVar[int] = 4096
    # hls::stream depth between the HLS dataflow stages (the RTL sizes its FIFOs from the
    # rung's bursts instead).
    stream_depth: ClassVar[int] = 32
    # The most elements one testbench case may hold: csim's largest cases are 1000
    # random elements and 37 x 37 = 1369 pairs of float special values. The testbench
    # refuses bigger cases, and every m_axi port's depth= covers this many (Vitis cosim
    # sizes its memory model from depth=), see :meth:`cosim_depth`.
    max_test_elements: ClassVar[int] = 4096

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
    def lanes(self) -> int:
        """Elements per memory word: 512 / element bits at rung 4, else 1. A transform's
        lanes are complex samples (8 at rung 4), whatever its input's type."""
        if not self.rung.vector_bits:
            return 1
        if self.kernel.kind == "transform":
            return self.rung.vector_bits // DTYPES["complex64"].bits
        return self.dtype.lanes(self.rung.vector_bits)

    def pointer_lanes(self, pointer: str) -> int:
        """Elements of ``pointer``'s type per memory word: 512 / its bits at rung 4 (a
        transform's float32 pointer: 16), else 1 (one element per transfer)."""
        if not self.rung.vector_bits:
            return 1
        return self.pointer_dtype(pointer).lanes(self.rung.vector_bits)

    @property
    def port_bits(self) -> int:
        """Width of the inputs' m_axi data buses: 512 at rung 4, else one element's (the
        widest element's words; a transform's: one complex sample's, 64, also where an
        input or output is float32). An elementwise output may be narrower
        (:meth:`pointer_bits`)."""
        if self.kernel.kind == "transform":
            return self.rung.vector_bits or DTYPES["complex64"].bits
        return self.rung.vector_bits or self.dtype.bits

    def pointer_dtype(self, pointer: str) -> DType:
        """The element type of ``pointer`` (Kernel.pointer_dtype): the output's is the
        kernel's result type (complex64 abs: float32; argmax: int64; irfft: float32),
        every input's the variant's dtype."""
        return self.kernel.pointer_dtype(pointer, self.dtype.name)

    def pointer_bits(self, pointer: str) -> int:
        """Width of ``pointer``'s words: an elementwise output narrower than the elements
        (complex64 -> float32) has words of as many lanes of its own type (256 bits at
        rung 4, 32 below); every other pointer the inputs' port_bits (a reduction's wider
        result is written as several words; a transform's pointers share its width)."""
        out = self.pointer_dtype(pointer)
        if pointer in self.kernel.outputs and self.kernel.kind == "elementwise" \
                and out.bits < self.dtype.bits:
            return self.lanes * out.bits
        return self.port_bits

    def bundle_bits(self, bundle: str) -> int:
        """Width of one m_axi bundle's data bus: the widest words among its pointers (one
        shared bundle before rung 2 carries both the 64-bit complex64 inputs and the
        32-bit results)."""
        return max(self.pointer_bits(p) for p in self.pointers if self.bundle(p) == bundle)

    @property
    def pointers(self) -> tuple[str, ...]:
        """Pointer arguments in C order: inputs, then the output (streams are not
        pointers: :attr:`Kernel.memory_ports`)."""
        return self.kernel.memory_ports

    @property
    def streams(self) -> tuple[str, ...]:
        """AXI4-Stream arguments in C order: inputs, then the output."""
        return tuple(p for p in (*self.kernel.inputs, *self.kernel.outputs)
                     if p in self.kernel.streams)

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
    def finish(self) -> str | None:
        """The op that turns a reduction's combined value into its result (mean's div by
        float(n), ``Op.finish``) when the kernel applies it; None when it has none or when
        compute units share the work: each CU then returns its combined value and the
        host combines them and finishes once (divides the whole sum by the whole n)."""
        reduction = self.kernel.reduction
        if reduction is None or self.rung.multi_cu:
            return None
        return reduction.finish

    @property
    def element_inputs(self) -> tuple[str, ...]:
        """The inputs read per element: all of them, but a broadcast kernel's full inputs
        only (its per-channel inputs are read once per run into tables)."""
        layout = self.kernel.layout
        if self.kernel.kind == "broadcast" and layout is not None:
            return layout.full_inputs
        return self.kernel.inputs

    def pointer_bytes(self, pointer: str) -> int:
        """Bytes one element of the kernel's work moves through ``pointer``: an input's
        element, an elementwise output's element; a reduction writes one word per call,
        nothing per element."""
        if self.kernel.kind == "transform":
            return self.kernel.pointer_dtype(pointer, self.dtype.name).bytes
        if pointer in self.kernel.outputs:
            return 0 if self.kernel.is_reduction else \
                self.kernel.output_dtype(self.dtype.name).bytes
        if pointer not in self.element_inputs:
            return 0  # a broadcast kernel's per-channel input: once per run, not per element
        return self.dtype.bytes

    @property
    def traffic_pointers(self) -> tuple[str, ...]:
        """The pointers that move data per element (all but a reduction's output)."""
        return tuple(p for p in self.pointers if self.pointer_bytes(p))
