"""What a variant can reach at best, in elements per cycle: its compute rate, what its
memory banks feed, the platform's roofline, and the ideal the simulated rate is held to.
Cycle counts come from the simulation itself; these figures are what it is compared with.
"""

from __future__ import annotations

from dataclasses import dataclass

from fpgakern.ladder.microarch import Microarchitecture
from fpgakern.ladder.placement import Placement

# The transform length a spectral kernel's ideal is quoted at when no length is given
# (the ladder benchmark's): its buffered rung's rate depends on the length.
TRANSFORM_IDEAL_N = 1024


@dataclass(frozen=True)
class Performance:
    """The performance model of one variant: its microarchitecture on its placement."""

    arch: Microarchitecture
    placement: Placement

    @property
    def _parallel_rate(self) -> float:
        """Elements per cycle of the streaming rungs: one per lane and compute unit."""
        return float(self.arch.lanes * self.placement.compute_units)

    @property
    def compute_elements_per_cycle(self) -> float | None:
        """What the rung's microarchitecture can reach with memory that keeps up. Rung 0
        is latency-bound: no meaningful figure."""
        arch = self.arch
        if arch.rung.index == 0:
            return None
        if arch.kernel.kind == "transform":
            return self.transform_rate(TRANSFORM_IDEAL_N)
        if arch.rung.buffered:
            staged = arch.kernel.staged(arch.dtype.name)
            if staged is not None and staged.kind in ("row_map", "row_reduction"):
                # One row at a time through its stages in sequence (each statistic, then
                # the body): one cycle per element per stage; tables are read once.
                return 1.0 / (len(staged.stats) + 1)
            # Phases in sequence: each input burst in, then compute while writing out
            # (elementwise) or accumulate (reductions): one cycle per element per phase.
            # A broadcast kernel's per-channel inputs are read once per run instead
            # (table_cycles).
            return 1.0 / (len(arch.element_inputs) + 1)
        return self._parallel_rate

    def transform_rate(self, n: int) -> float | None:
        """A transform kernel's ideal, in complex samples per cycle, at length ``n``. Rung
        1 reads a row (n cycles), runs the log2(n) stages of n/2 butterflies at one per
        cycle, then writes the row (n cycles): n / (2n + log2(n) n/2). The streaming
        rungs take one sample per cycle per lane and compute unit. Rung 0 waits on every
        transfer and butterfly: no figure."""
        rung = self.arch.rung
        if rung.index == 0:
            return None
        if rung.buffered:
            levels = n.bit_length() - 1
            return n / (2 * n + levels * n / 2)
        return self._parallel_rate

    def table_cycles(self, channels: int) -> int:
        """Cycles a broadcast kernel's table load costs before its elements flow (0 for
        other kinds): its per-channel inputs share one bundle, so they are read one after
        the other, a beat per cycle, and every channel goes once through the channel
        pipeline, one per cycle: after the reads at the buffered rungs; at the dataflow
        rungs while the last input is read (the others are read whole into buffers
        first, ``channels / lanes`` beats each). Each compute unit loads its own tables."""
        layout = self.arch.kernel.layout
        if self.arch.kernel.kind != "broadcast" or layout is None:
            return 0
        tables = len(layout.channel_inputs)
        if self.arch.rung.dataflow:
            return channels + (tables - 1) * -(-channels // self.arch.lanes)
        return channels * (1 + tables)

    def ideal_for(self, sizes: dict[str, int]) -> float | None:
        """The ideal rate of one call with these size arguments (Kernel.size_args): the
        rung's ideal, but for a broadcast kernel, whose table load (table_cycles) comes
        before the elements, n over the table load plus n at the ideal rate."""
        kind = self.arch.kernel.kind
        if kind == "transform":
            return self.transform_rate(sizes["n"])
        rate = self.ideal_elements_per_cycle
        if rate is None or kind != "broadcast":
            return rate
        n = sizes["n"]
        cycles = self.table_cycles(sizes["channels"]) + n / rate
        return n / cycles if cycles else rate

    @property
    def memory_elements_per_cycle(self) -> float | None:
        """Elements per cycle the memory system feeds with this variant's CUs and port
        placement; None without a memory system with bandwidth figures."""
        return self.placement.feed_rate(self.placement.compute_units)

    @property
    def roofline_elements_per_cycle(self) -> float | None:
        """The memory roofline of the platform: all its banks' bytes per cycle over the
        bytes one element moves, whatever the placement."""
        memory = self.placement.memory
        if memory is None or not memory.limited:
            return None
        per_element = sum(self.arch.pointer_bytes(p) for p in self.arch.pointers)
        total = sum(b for b in memory.bytes_per_cycle if b is not None)
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
