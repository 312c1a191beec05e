"""The plan of one variant: its kernel and identity, and the three parts every generator
reads (the microarchitecture, the placement, the performance model).

A :class:`Plan` is derived from a :class:`~fpgakern.ladder.variant.Variant` and the
kernel it names, here and nowhere else: ``Plan(kernel, variant)``. :func:`plan` is the
shorthand for a variant chosen by its numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from fpgakern import paths
from fpgakern.ir.dtypes import DTYPES, DType
from fpgakern.ir.kernel import Kernel
from fpgakern.ladder.memory import DEFAULT_MEMORY, MemorySystem
from fpgakern.ladder.microarch import Microarchitecture
from fpgakern.ladder.performance import Performance
from fpgakern.ladder.placement import Placement
from fpgakern.ladder.rungs import RUNGS, Rung, rung
from fpgakern.ladder.variant import Variant


@dataclass(frozen=True)
class Plan:
    """What one rung makes of one kernel at one dtype on one memory system."""

    kernel: Kernel
    variant: Variant

    def __post_init__(self) -> None:
        self.variant.check(self.kernel)

    @property
    def rung(self) -> Rung:
        return rung(self.variant.rung)

    @property
    def dtype(self) -> DType:
        return DTYPES[self.variant.dtype]

    @property
    def top(self) -> str:
        return self.kernel.top_name(self.dtype.name)

    def variant_dir(self, root: Path) -> Path:
        """This variant's folder in the build tree at ``root``."""
        return paths.variant_dir(root, self.kernel.category, self.kernel.name,
                                 self.rung.index, self.dtype.name)

    @cached_property
    def arch(self) -> Microarchitecture:
        return Microarchitecture(self.kernel, self.rung, self.dtype)

    @cached_property
    def placement(self) -> Placement:
        """The variant's placement; a rung sized by its memory system (rung 5) with none
        named is placed on the default platform's."""
        memory = self.variant.memory
        if memory is None and self.rung.sized_by_platform:
            memory = DEFAULT_MEMORY
        return Placement(self.arch, memory, self.variant.bank_per_port)

    @cached_property
    def performance(self) -> Performance:
        return Performance(self.arch, self.placement)

    def placed_on(self, memory: MemorySystem, bank_per_port: bool | None = None) -> Plan:
        """This plan on another memory system (a link for another platform), keeping its
        port placement unless ``bank_per_port`` says otherwise."""
        per_port = self.variant.bank_per_port if bank_per_port is None else bank_per_port
        return Plan(self.kernel, replace(self.variant, memory=memory, bank_per_port=per_port))


def plan(kernel: Kernel, rung_index: int, dtype_name: str, *,
         memory: MemorySystem | None = None, bank_per_port: bool = False) -> Plan:
    """The plan of ``kernel``'s variant at ``rung_index`` and ``dtype_name``; UsageError
    when the kernel does not build both (``Variant.check``)."""
    return Plan(kernel, Variant.of(kernel, rung_index, dtype_name, memory=memory,
                                   bank_per_port=bank_per_port))


def platform_plan(kernel: Kernel, rung_index: int, dtype_name: str,
                  memory: MemorySystem, *, bank_per_port: bool = False) -> Plan:
    """The plan ``fpgakern build`` makes for a platform's memory system: placed on it (its
    banks, SLRs, fabric and m_axi settings reach every generated file), its bandwidth
    bounding the rate only at a rung sized by the platform (rung 5); the other rungs
    run on memory without a bandwidth limit, as their simulation does."""
    sized = rung(rung_index).sized_by_platform if 0 <= rung_index < len(RUNGS) else False
    return plan(kernel, rung_index, dtype_name,
                memory=memory if sized else memory.without_bandwidth(),
                bank_per_port=bank_per_port)
