"""The optimization ladder as data: rungs, and the plan a rung makes for one kernel.

Every generator (HLS C++, RTL, host, link) reads a :class:`Plan`; none of them branches
on a rung number. Adding a rung means adding a :class:`Rung` here and the templates that
read its flags.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from fpgakern import paths
from fpgakern.errors import UsageError
from fpgakern.ir.dtypes import DTYPES, DType
from fpgakern.ir.kernel import Kernel

AXI_BURST_MAX_BEATS = 256
AXI_BOUNDARY_BYTES = 4096
# The transform length a spectral kernel's ideal is quoted at when no length is given
# (the ladder benchmark's): its buffered rung's rate depends on the length.
TRANSFORM_IDEAL_N = 1024


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
    # Compute units chosen from the memory system (as many as its banks can feed), each
    # port that moves data on a bank of its own where there are enough (rung 5).
    spread_ports: bool = False
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
    # The vectorized kernel as many compute units as the platform's banks feed, each
    # data-moving port on a bank (pseudo-channel) of its own where there are enough.
    replace(_VECTORIZED, index=5, name="vectorized_multi_cu",
            summary="the vectorized kernel linked as N compute units, a bank per port, "
                    "host splits work",
            rtl_summary="the vectorized kernel; each compute unit is one instance, each "
                        "port on its own bank",
            multi_cu=True, spread_ports=True, by_default=False, replicates=4),
)
LAST_RUNG = RUNGS[-1].index  # rungs are numbered 0..LAST_RUNG
assert [r.index for r in RUNGS] == list(range(len(RUNGS))), "rungs are numbered in order"
# What a spec without ``rungs:`` builds.
DEFAULT_RUNGS: tuple[int, ...] = tuple(r.index for r in RUNGS if r.by_default)


@dataclass(frozen=True)
class MemorySystem:
    """The memory banks a platform gives compute units' ports, as the ladder needs them:
    each bank's tag and the bytes it moves per kernel-clock cycle (its bandwidth over
    the kernel clock; None: no figure, no limit). Banks are in the platform's default
    placement order (``Platform.cu_bank``): CU i's ports go to bank i mod len(banks)
    unless placed port by port. ``fpgakern.link.platforms.Platform.memory_system``
    makes one from a platform file."""

    platform: str
    banks: tuple[str, ...]
    bytes_per_cycle: tuple[float | None, ...]
    kernel_mhz: float

    @property
    def limited(self) -> bool:
        return all(b is not None for b in self.bytes_per_cycle)


# The memory system of the default platform (fpgakern.link.platforms.DEFAULT, u55c): 32
# HBM pseudo-channels of 14.375 GB/s at the 300 MHz kernel clock. Rung 5 sizes itself
# for it when no platform is named; tests/test_ladder.py holds it to the platform file.
DEFAULT_MEMORY = MemorySystem("u55c", tuple(f"HBM[{i}]" for i in range(32)),
                              (14.375e9 / 300e6,) * 32, 300.0)
# The most compute units rung 5 considers (a platform allows up to 128), and the share of
# the best rate for which it keeps each port on a bank of its own rather than adding CUs
# that share banks (fewer CUs: less area for a few per cent of bandwidth).
MAX_SPREAD_CUS = 64
SPREAD_SHARE = 0.9


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
    # The platform's memory banks, for placing ports and bounding the ideal by bandwidth
    # (None: memory without a bandwidth limit, every CU on a bank of its own).
    memory: MemorySystem | None = None
    # Each port on a bank of its own (an sp= per port) instead of the default placement,
    # all of a CU's ports on one bank. Rung 5 always spreads its ports.
    bank_per_port: bool = False

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

    @cached_property
    def compute_units(self) -> int:
        """CUs: the spec's N at rung 3; at rung 5 as many as the memory system feeds (the
        fewest that reach the highest rate, :meth:`_spread_cus`); else 1."""
        if self.rung.spread_ports:
            return self._spread_cus()
        return self.kernel.compute_units if self.rung.multi_cu else 1

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
    def compute_elements_per_cycle(self) -> float | None:
        """What the rung's microarchitecture can reach with memory that keeps up. Rung 0
        is latency-bound: no meaningful figure."""
        if self.rung.index == 0:
            return None
        if self.kernel.kind == "transform":
            return self.transform_rate(TRANSFORM_IDEAL_N)
        if self.rung.buffered:
            staged = self.kernel.staged(self.dtype.name)
            if staged is not None and staged.kind in ("row_map", "row_reduction"):
                # One row at a time through its stages in sequence (each statistic, then
                # the body): one cycle per element per stage; tables are read once.
                return 1.0 / (len(staged.stats) + 1)
            # Phases in sequence: each input burst in, then compute while writing out
            # (elementwise) or accumulate (reductions): one cycle per element per phase.
            # A broadcast kernel's per-channel inputs are read once per run instead
            # (table_cycles).
            return 1.0 / (len(self.element_inputs) + 1)
        return float(self.lanes * self.compute_units)

    def transform_rate(self, n: int) -> float | None:
        """A transform kernel's ideal, in complex samples per cycle, at length ``n``. Rung
        1 reads a row (n cycles), runs the log2(n) stages of n/2 butterflies at one per
        cycle, then writes the row (n cycles): n / (2n + log2(n) n/2). The streaming
        rungs take one sample per cycle per lane and compute unit. Rung 0 waits on every
        transfer and butterfly: no figure."""
        if self.rung.index == 0:
            return None
        if self.rung.buffered:
            levels = n.bit_length() - 1
            return n / (2 * n + levels * n / 2)
        return float(self.lanes * self.compute_units)

    @property
    def element_inputs(self) -> tuple[str, ...]:
        """The inputs read per element: all of them, but a broadcast kernel's full inputs
        only (its per-channel inputs are read once per run into tables)."""
        layout = self.kernel.layout
        if self.kernel.kind == "broadcast" and layout is not None:
            return layout.full_inputs
        return self.kernel.inputs

    def table_cycles(self, channels: int) -> int:
        """Cycles a broadcast kernel's table load costs before its elements flow (0 for
        other kinds): every channel once through the channel pipeline, one per cycle,
        after (buffered rungs: each per-channel input burst in, a beat per cycle, in
        sequence) or while (dataflow rungs: the reads run concurrently) its per-channel
        inputs are read. Each compute unit loads its own tables, all at once."""
        layout = self.kernel.layout
        if self.kernel.kind != "broadcast" or layout is None:
            return 0
        reads = 0 if self.rung.dataflow else len(layout.channel_inputs)
        return channels * (1 + reads)

    def ideal_for(self, sizes: dict[str, int]) -> float | None:
        """The ideal rate of one call with these size arguments (Kernel.size_args): the
        rung's ideal, but for a broadcast kernel, whose table load (table_cycles) comes
        before the elements, n over the table load plus n at the ideal rate."""
        if self.kernel.kind == "transform":
            return self.transform_rate(sizes["n"])
        rate = self.ideal_elements_per_cycle
        if rate is None or self.kernel.kind != "broadcast":
            return rate
        n = sizes["n"]
        cycles = self.table_cycles(sizes["channels"]) + n / rate
        return n / cycles if cycles else rate

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

    def port_bank(self, cu: int, pointer: str) -> int:
        """The index in ``memory.banks`` of the bank ``pointer`` of compute unit ``cu``
        uses. The default placement puts all of a CU's ports on its bank (CU i on bank
        i); with a bank per port, the data-moving ports of all CUs take the banks in turn
        (CU c's k-th on bank c * ports + k), and a reduction's output shares its CU's
        first bank. Before dataflow a CU has one port (one bundle): one bank."""
        banks = len(self.memory.banks) if self.memory else 1 << 30
        spread = (self.bank_per_port or self.rung.spread_ports) and self.rung.dataflow
        if not spread:
            return cu % banks
        traffic = self.traffic_pointers or self.pointers
        index = traffic.index(pointer) if pointer in traffic else 0
        return (cu * len(traffic) + index) % banks

    def bank_tag(self, cu: int, pointer: str) -> str | None:
        """The tag (``HBM[3]``) of :meth:`port_bank`; None without a memory system."""
        return self.memory.banks[self.port_bank(cu, pointer)] if self.memory else None

    def _memory_rate(self, cus: int) -> float | None:
        """Elements per cycle the banks can feed with ``cus`` CUs splitting the work
        evenly: every CU moves its share, so each bank must carry the bytes of all ports
        placed on it, and the busiest bank (bytes per element over its bytes per cycle)
        sets the pace. None without bandwidth figures."""
        if self.memory is None or not self.memory.limited:
            return None
        load: dict[int, float] = {}
        for cu in range(cus):
            for pointer in self.pointers:
                bank = self.port_bank(cu, pointer)
                load[bank] = load.get(bank, 0.0) + self.pointer_bytes(pointer) / cus
        speeds = self.memory.bytes_per_cycle
        rates = [speed / bytes_ for b, bytes_ in load.items()
                 if bytes_ > 0 and (speed := speeds[b]) is not None]
        return min(rates) if rates else None

    def _spread_cus(self) -> int:
        """Rung 5's CU count. Each data-moving port on a bank of its own (as many CUs as
        the banks hold their ports: U55C fp32 add, 3 ports on 32 pseudo-channels, 10 CUs,
        93.75 % of the roofline) when that reaches SPREAD_SHARE of the best rate any
        count up to MAX_SPREAD_CUS reaches; else the fewest CUs that reach the best,
        sharing banks evenly (U250 add: 4 CUs, 3 ports on each DDR4 channel)."""
        memory = self.memory or DEFAULT_MEMORY
        ports = max(1, len(self.traffic_pointers))
        own = max(1, len(memory.banks) // ports)
        if not memory.limited:
            return own
        probe = replace(self, memory=memory)

        def rate(cus: int) -> float:
            return min(float(self.lanes * cus), probe._memory_rate(cus) or math.inf)

        rates = {cus: rate(cus) for cus in range(1, MAX_SPREAD_CUS + 1)}
        best = max(rates.values())
        if rates[min(own, MAX_SPREAD_CUS)] >= SPREAD_SHARE * best:
            return min(own, MAX_SPREAD_CUS)
        return min(cus for cus, r in rates.items() if r >= best * (1 - 1e-9))

    @property
    def memory_elements_per_cycle(self) -> float | None:
        """Elements per cycle the memory system feeds with this plan's CUs and port
        placement; None without a memory system with bandwidth figures."""
        return self._memory_rate(self.compute_units)

    @property
    def roofline_elements_per_cycle(self) -> float | None:
        """The memory roofline of the platform: all its banks' bytes per cycle over the
        bytes one element moves, whatever the placement."""
        if self.memory is None or not self.memory.limited:
            return None
        per_element = sum(self.pointer_bytes(p) for p in self.pointers)
        total = sum(b for b in self.memory.bytes_per_cycle if b is not None)
        return total / per_element if per_element else None

    @property
    def ideal_elements_per_cycle(self) -> float | None:
        """What the rung can reach at best on its memory system, for comparing with the
        simulated rate: the lower of its compute rate and what its banks feed with its
        port placement (the compute rate alone without a memory system)."""
        compute = self.compute_elements_per_cycle
        memory = self.memory_elements_per_cycle
        if compute is None or memory is None:
            return compute
        return min(compute, memory)


def not_built(kernel: Kernel, rung_index: int) -> str:
    """Why ``kernel`` refuses rung ``rung_index``, as a message."""
    why = "; a kernel with stream ports builds the dataflow rung only" if kernel.streams else ""
    return (f"{kernel.qualname} does not build rung {rung_index} "
            f"(its rungs: {', '.join(map(str, kernel.rungs))}{why})")


def plan(kernel: Kernel, rung_index: int, dtype_name: str, *,
         memory: MemorySystem | None = None, bank_per_port: bool = False) -> Plan:
    """The plan for one kernel x rung x dtype, after checking the kernel declares both.
    ``memory`` is the platform's (``Platform.memory_system()``); rung 5, which is sized
    by it, takes the default platform's when none is given."""
    if not builds(kernel, rung_index):
        raise UsageError(not_built(kernel, rung_index))
    if dtype_name not in kernel.dtypes:
        raise UsageError(f"{kernel.qualname} has no dtype {dtype_name!r} "
                         f"(its dtypes: {', '.join(kernel.dtypes)})")
    chosen = rung(rung_index)
    if memory is None and chosen.spread_ports:
        memory = DEFAULT_MEMORY
    return Plan(kernel, chosen, DTYPES[dtype_name], memory=memory, bank_per_port=bank_per_port)
