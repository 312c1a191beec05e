"""The memory system a variant's compute units are placed on: a platform's banks (their
bandwidth, size and SLR), the m_axi settings its memory asks for, and the fabric beside
it, as the ladder needs them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from fpgakern.ladder.fabric import Fabric, Region, Usage


@dataclass(frozen=True)
class MemorySystem:
    """The memory banks a platform gives compute units' ports, as the ladder needs them:
    each bank's tag and the bytes it moves per kernel-clock cycle (its bandwidth over
    the kernel clock; None: no figure, no limit). Banks are in the platform's default
    placement order (``Platform.cu_bank``). ``fpgakern.link.platforms.Platform.memory_system``
    makes one from a platform file.

    Beside the banks: the platform's Vitis name (link configs name it), each bank's size
    in bytes and SLR ("" where the platform file gives none), the m_axi settings an HLS
    port that reads these banks states (HBM's latency and outstanding reads), and the
    fabric's per-SLR budget (None: no figures, no check)."""

    platform: str
    banks: tuple[str, ...]
    bytes_per_cycle: tuple[float | None, ...]
    kernel_mhz: float
    vitis_platform: str = ""
    bank_bytes: tuple[int, ...] = ()
    bank_slrs: tuple[str, ...] = ()
    read_settings: tuple[tuple[str, int], ...] = ()
    fabric: Fabric | None = None

    @property
    def limited(self) -> bool:
        return all(b is not None for b in self.bytes_per_cycle)

    @property
    def shares_one_slr(self) -> bool:
        """The banks are pseudo-channels beside one SLR (HBM): ports spread over them
        cost no SLR crossing, so each port may take a bank of its own. Banks in SLRs of
        their own (a DDR4 bank per SLR) keep each compute unit's ports on one bank."""
        slrs = set(self.bank_slrs)
        return len(self.banks) > 1 and len(slrs) == 1 and "" not in slrs

    def without_bandwidth(self) -> MemorySystem:
        """The same banks with no bandwidth figures: the placement and the generated
        files follow the platform, the rates the unlimited memory model's."""
        return replace(self, bytes_per_cycle=(None,) * len(self.banks))

    def bank_slr(self, bank: int) -> str:
        return self.bank_slrs[bank] if self.bank_slrs else ""

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"platform": self.platform, "banks": list(self.banks),
                               "bytes_per_cycle": list(self.bytes_per_cycle),
                               "kernel_mhz": self.kernel_mhz}
        if self.vitis_platform:
            doc["vitis_platform"] = self.vitis_platform
        if self.bank_bytes:
            doc["bank_bytes"] = list(self.bank_bytes)
        if self.bank_slrs:
            doc["bank_slrs"] = list(self.bank_slrs)
        if self.read_settings:
            doc["read_settings"] = dict(self.read_settings)
        if self.fabric is not None:
            doc["fabric"] = self.fabric.to_json()
        return doc

    @staticmethod
    def from_json(doc: dict[str, Any]) -> MemorySystem:
        fabric = doc.get("fabric")
        return MemorySystem(doc["platform"], tuple(doc["banks"]),
                            tuple(doc["bytes_per_cycle"]), doc["kernel_mhz"],
                            doc.get("vitis_platform", ""), tuple(doc.get("bank_bytes", ())),
                            tuple(doc.get("bank_slrs", ())),
                            tuple(doc.get("read_settings", {}).items()),
                            None if fabric is None else Fabric.from_json(fabric))


# The memory system of the default platform (fpgakern.link.platforms.DEFAULT, u55c): 32
# HBM pseudo-channels of 14.375 GB/s at the 300 MHz kernel clock, 512 MiB each, beside
# SLR0, and the fabric of its three SLRs. Rung 5 sizes itself for it when no platform is
# named; tests/test_ladder.py holds it to the platform file, which states the sources.
_U55C_SLR = Usage(lut=434560, ff=869120, bram=672, uram=320, dsp=3008)
DEFAULT_MEMORY = MemorySystem(
    "u55c", tuple(f"HBM[{i}]" for i in range(32)), (14.375e9 / 300e6,) * 32, 300.0,
    "xilinx_u55c_gen3x16_xdma_3_202210_1", (512 << 20,) * 32, ("SLR0",) * 32,
    (("latency", 300), ("num_read_outstanding", 64)),
    Fabric((Region("SLR0", _U55C_SLR, 32), Region("SLR1", _U55C_SLR, 0),
            Region("SLR2", _U55C_SLR, 0)), 0.8))
