"""The memory system a variant's compute units are placed on: a platform's banks and
their bandwidth, as the ladder needs them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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

    def to_json(self) -> dict[str, Any]:
        return {"platform": self.platform, "banks": list(self.banks),
                "bytes_per_cycle": list(self.bytes_per_cycle), "kernel_mhz": self.kernel_mhz}

    @staticmethod
    def from_json(doc: dict[str, Any]) -> MemorySystem:
        return MemorySystem(doc["platform"], tuple(doc["banks"]),
                            tuple(doc["bytes_per_cycle"]), doc["kernel_mhz"])


# The memory system of the default platform (fpgakern.link.platforms.DEFAULT, u55c): 32
# HBM pseudo-channels of 14.375 GB/s at the 300 MHz kernel clock. Rung 5 sizes itself
# for it when no platform is named; tests/test_ladder.py holds it to the platform file.
DEFAULT_MEMORY = MemorySystem("u55c", tuple(f"HBM[{i}]" for i in range(32)),
                              (14.375e9 / 300e6,) * 32, 300.0)
