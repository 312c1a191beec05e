"""A variant's identity: which kernel, at which rung and dtype, on which memory system.

A :class:`Variant` is made once, where a variant is chosen (``Variant.of``: the command
line's selection, a link reference, a test), and passed down whole: inside a
:class:`~fpgakern.ladder.plans.Plan`, to the build's workers in their jobs, to the cocotb
testbench in its job file (``to_json``), into cache keys (``key``). Only
:class:`~fpgakern.ladder.plans.Plan` turns it, with the kernel it names, into numbers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fpgakern.errors import UsageError
from fpgakern.ir.kernel import Kernel
from fpgakern.ladder.memory import MemorySystem
from fpgakern.ladder.rungs import builds, not_built


@dataclass(frozen=True)
class Variant:
    """One kernel x rung x dtype, with the memory system it is placed on and how.

    ``memory`` is the platform's (``Platform.memory_system()``) where one is named; None
    means memory without a bandwidth limit, except at a rung sized by the memory system
    (rung 5), which then takes the default platform's (``Placement``). ``bank_per_port``
    puts each data-moving port on a bank of its own (an sp= per port) instead of all of
    a CU's ports on one; rung 5 always does."""

    kernel: str  # category/name
    rung: int
    dtype: str
    memory: MemorySystem | None = None
    bank_per_port: bool = False

    @staticmethod
    def of(kernel: Kernel, rung: int, dtype: str, *, memory: MemorySystem | None = None,
           bank_per_port: bool = False) -> Variant:
        """The variant of ``kernel`` (which :meth:`check` holds it to when it is
        planned)."""
        return Variant(kernel.qualname, rung, dtype, memory, bank_per_port)

    def check(self, kernel: Kernel) -> None:
        """Raise UsageError unless ``kernel`` is the kernel this variant names and builds
        its rung (``ladder.builds``) and dtype. A variant read back from a job or a
        manifest is checked again, against the spec as it is now."""
        if kernel.qualname != self.kernel:
            raise UsageError(f"{kernel.qualname} is not the kernel of {self}")
        if not builds(kernel, self.rung):
            raise UsageError(not_built(kernel, self.rung))
        if self.dtype not in kernel.dtypes:
            raise UsageError(f"{kernel.qualname} has no dtype {self.dtype!r} "
                             f"(its dtypes: {', '.join(kernel.dtypes)})")

    def __str__(self) -> str:
        """How reports and messages name it: as the build tree does, by kernel, rung
        and dtype (a build places every variant on the same memory system)."""
        return f"{self.kernel} opt{self.rung} {self.dtype}"

    def to_json(self) -> dict[str, Any]:
        """The serialized form (a job file's, a manifest's): the kernel, rung and dtype,
        and the placement options only where they are not the defaults."""
        doc: dict[str, Any] = {"kernel": self.kernel, "rung": self.rung, "dtype": self.dtype}
        if self.memory is not None:
            doc["memory"] = self.memory.to_json()
        if self.bank_per_port:
            doc["bank_per_port"] = True
        return doc

    @staticmethod
    def from_json(doc: dict[str, Any]) -> Variant:
        """The variant :meth:`to_json` wrote; other keys of ``doc`` are ignored."""
        memory = doc.get("memory")
        return Variant(doc["kernel"], int(doc["rung"]), doc["dtype"],
                       None if memory is None else MemorySystem.from_json(memory),
                       bool(doc.get("bank_per_port", False)))

    @property
    def key(self) -> str:
        """The serialized form as one stable line, for cache keys."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
