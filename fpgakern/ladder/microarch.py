"""What one rung makes of one kernel at one dtype inside a compute unit: bursts, lanes,
ports and bundles, the accumulator's interleave, and what each port moves per element."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar, Literal

from fpgakern.ir import expr, fft, shapes
from fpgakern.ir.dtypes import DTYPES, DType
from fpgakern.ir.kernel import Kernel
from fpgakern.ladder.rungs import AXI_BURST_MAX_BEATS, Rung

AXI_BOUNDARY_BYTES = 4096  # no AXI4 burst crosses a 4 KiB page

# Where an on-chip array goes: where the generated code binds it (BIND_STORAGE), or
# "auto", where Vitis HLS and synthesis choose (LUT RAM when shallow, else block RAM).
Storage = Literal["auto", "registers", "lutram", "bram", "uram"]


@dataclass(frozen=True)
class OnChipMemory:
    """One on-chip array of a compute unit: ``copies`` alike arrays (an array's
    partitions, or one copy per lane) of ``words`` words of ``bits`` bits."""

    name: str
    words: int
    bits: int
    copies: int = 1
    storage: Storage = "auto"

    @property
    def total_bits(self) -> int:
        return self.words * self.bits * self.copies


def _spectral_storage(words: int) -> Storage:
    """The spectral templates' rule for a delay or reorder buffer (transform/
    rung_dataflow.cpp.j2, ``storage``): registers, LUT RAM, BRAM, URAM as it grows."""
    if words <= 8:
        return "registers"
    if words <= 256:
        return "lutram"
    return "bram" if words <= 4096 else "uram"


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

    @property
    def table_pointers(self) -> tuple[str, ...]:
        """The pointers read once per run into on-chip tables: a shaped kernel's
        per-channel (per-column) inputs (``Layout.channel_inputs``), in C order."""
        layout = self.kernel.layout
        if layout is None:
            return ()
        return tuple(p for p in self.pointers if p in layout.channel_inputs)

    def bundle(self, pointer: str) -> str:
        """The m_axi bundle of a pointer: one shared ``gmem`` until rung 2, then one each,
        but for the tables (:attr:`table_pointers`), which share one read bundle: they are
        read one after the other before the element loop, as a Vitis user writes it, so
        one AXI master serves them all. Bundles are numbered in C order of their first
        pointer (batch_norm: x on gmem0, its four tables on gmem1, out on gmem2)."""
        if not self.rung.dataflow:
            return "gmem"
        return f"gmem{self._bundle_index[pointer]}"

    @cached_property
    def _bundle_index(self) -> dict[str, int]:
        tables = self.table_pointers
        groups = list(dict.fromkeys("" if p in tables else p for p in self.pointers))
        return {p: groups.index("" if p in tables else p) for p in self.pointers}

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
        nothing per element, and a table (:attr:`table_pointers`) is read once per run."""
        if self.kernel.kind == "transform":
            return self.kernel.pointer_dtype(pointer, self.dtype.name).bytes
        if pointer in self.kernel.outputs:
            return 0 if self.kernel.is_reduction else \
                self.kernel.output_dtype(self.dtype.name).bytes
        if pointer in self.table_pointers:
            return 0  # a per-channel (per-column) input: once per run, not per element
        return self.dtype.bytes

    @property
    def traffic_pointers(self) -> tuple[str, ...]:
        """The pointers that move data per element (all but a reduction's output)."""
        return tuple(p for p in self.pointers if self.pointer_bytes(p))

    # ------------------------------------------------------------------ on-chip memory

    @property
    def in_fifo_beats(self) -> int:
        """Beats of each element input's FIFO at the dataflow rungs: its read engine's
        credits, ``input_fifo_bursts`` read bursts (the RTL's FIFO; the HLS streams are
        ``stream_depth`` deep)."""
        return self.rung.input_fifo_bursts * self.read_burst

    def out_fifo_beats(self, latency: int) -> int:
        """Beats of the output FIFO at the dataflow rungs behind a pipeline of ``latency``
        cycles: ``output_fifo_bursts`` write bursts plus the pipeline's contents and
        slack, a power of two."""
        return _pow2_at_least(self.rung.output_fifo_bursts * self.write_burst + latency + 8)

    def memories(self, latency: int = 0) -> tuple[OnChipMemory, ...]:
        """The compute unit's on-chip arrays as the generated code declares them (the
        HLS C++ arrays; the RTL's FIFOs, deeper than the HLS streams, in their place),
        behind an element pipeline of ``latency`` cycles. Registers of a few words
        (partial sums, lane arrays) are left out: they are logic, not memory."""
        kernel = self.kernel
        if kernel.kind == "transform":
            return self._transform_memories()
        out: list[OnChipMemory] = []
        bits, lanes = self.dtype.bits, self.lanes
        out_pointer = kernel.outputs[0] if kernel.outputs else None
        streams_out = kernel.kind in ("elementwise", "broadcast", "row_map")
        if self.rung.dataflow:
            out += [OnChipMemory(f"{x}_fifo", self.in_fifo_beats, self.pointer_bits(x))
                    for x in self.element_inputs if x not in kernel.streams]
            if streams_out and out_pointer is not None and out_pointer not in kernel.streams:
                out.append(OnChipMemory(f"{out_pointer}_fifo", self.out_fifo_beats(latency),
                                        self.pointer_bits(out_pointer)))
        elif self.rung.buffered and kernel.kind in ("elementwise", "reduction", "broadcast"):
            # Rung 1: a chunk buffer per element input; the RTL holds the chunk's results
            # in its output FIFO.
            out += [OnChipMemory(f"{x}_buf", self.chunk, bits) for x in self.element_inputs]
            if streams_out and out_pointer is not None:
                out.append(OnChipMemory(f"{out_pointer}_fifo", self.chunk,
                                        kernel.output_dtype(self.dtype.name).bits))
        staged = kernel.staged(self.dtype.name)
        layout = kernel.layout
        if staged is None or layout is None:
            return tuple(out)
        parts = max(1, lanes)  # a table cyclically partitioned by lanes: one part per lane
        if kernel.kind == "broadcast":
            size = shapes.MAX_CHANNELS
            tables = [*layout.channel_inputs, *(v.name for v in staged.channel_values)]
            out += [OnChipMemory(f"{t}_tab", size // parts, bits, parts) for t in tables]
            if lanes > 1:  # one copy of each table the elements read, per lane
                used = {n.name for n in staged.body.walk() if isinstance(n, expr.Input)}
                out += [OnChipMemory(f"{t}_lane", size, bits, lanes)
                        for t in tables if t in used]
        else:  # the row kinds keep a whole row of each full input, a table per column input
            size = shapes.MAX_ROW
            out += [OnChipMemory(f"{x}_row", size // parts, bits, parts)
                    for x in layout.full_inputs]
            out += [OnChipMemory(f"{term}_row", size // parts, bits, parts)  # read back
                    for term, _ in staged.kept_terms(self.dtype.name).values()]
            out += [OnChipMemory(f"{c}_tab", size // parts, bits, parts)
                    for c in layout.channel_inputs]
        return tuple(out)

    def _transform_memories(self) -> tuple[OnChipMemory, ...]:
        """A spectral kernel's buffers of complex samples at fft.MAX_FFT points (the
        spectral templates): the row at rung 0, its two parity banks at rung 1; at the
        streaming rungs each stage's delay line (``held`` and ``diffs``, h samples at
        half-span h) and the reorder buffer of two rows."""
        n, sample = fft.MAX_FFT, DTYPES["complex64"].bits
        if self.rung.index == 0:
            return (OnChipMemory("buf", n, sample),)
        if not self.rung.dataflow:
            storage: Storage = "uram" if n >= 8192 else "bram"
            return (OnChipMemory("bank0", n // 2, sample, storage=storage),
                    OnChipMemory("bank1", n // 2, sample, storage=storage))
        out = []
        half = n // 2
        while half >= 1:
            for name in ("held", "diffs"):
                out.append(OnChipMemory(f"{name}_{half}", half, sample,
                                        storage=_spectral_storage(half)))
            half //= 2
        out.append(OnChipMemory("buf", 2 * n, sample, storage=_spectral_storage(2 * n)))
        return tuple(out)


def _pow2_at_least(value: int) -> int:
    return 1 << max(1, (value - 1).bit_length())
