"""The programmable fabric a platform gives compute units, SLR by SLR, and what a set of
compute units takes of it: the budget rung 5 sizes itself against and every build checks
(docs/link.md, "Resources").

A platform file states each SLR's LUT, FF, BRAM36, URAM and DSP figures, the kernel AXI
masters the memory in that SLR takes, and the share of the resources kernels may use
(``fit_margin``); ``fpgakern.link.platforms.Platform.memory_system`` hands them to the
ladder as a :class:`Fabric`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

# The resources of a budget, as platform files name them (BRAM in BRAM36 equivalents).
RESOURCE_NAMES = ("LUT", "FF", "BRAM", "URAM", "DSP")


@dataclass(frozen=True)
class Usage:
    """Amounts of each fabric resource (BRAM in BRAM36 equivalents, RAMB18 counting half)."""

    lut: float = 0.0
    ff: float = 0.0
    bram: float = 0.0
    uram: float = 0.0
    dsp: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(*(a + b for a, b in zip(self.values(), other.values(), strict=True)))

    def __mul__(self, factor: float) -> Usage:
        return Usage(*(a * factor for a in self.values()))

    __rmul__ = __mul__

    def values(self) -> tuple[float, ...]:
        # Spelled out, not through dataclasses.fields: planning the library adds Usages
        # hundreds of thousands of times. tests/test_resources.py holds it to the fields.
        return (self.lut, self.ff, self.bram, self.uram, self.dsp)

    def items(self) -> tuple[tuple[str, float], ...]:
        """(platform-file name, amount) for each resource, in RESOURCE_NAMES order."""
        return tuple(zip(RESOURCE_NAMES, self.values(), strict=True))

    def to_json(self) -> dict[str, float]:
        return dict(self.items())

    @staticmethod
    def from_json(doc: dict[str, float]) -> Usage:
        return Usage(*(float(doc.get(name, 0.0)) for name in RESOURCE_NAMES))


@dataclass(frozen=True)
class Region:
    """One SLR: the resources it gives kernels and the AXI masters its memory takes."""

    name: str
    capacity: Usage
    axi_masters: int


@dataclass(frozen=True)
class Fabric:
    """A platform's SLRs, in the order its platform file lists them, and the share of
    each SLR's resources kernels may take (``margin``; AXI masters have none)."""

    regions: tuple[Region, ...]
    margin: float

    def index(self, name: str) -> int:
        return [r.name for r in self.regions].index(name)

    def budget(self, region: int) -> Usage:
        return self.regions[region].capacity * self.margin

    def copies(self, region: int, each: Usage) -> tuple[int, str]:
        """How many copies of a block taking ``each`` fit region ``region``'s budget, and
        the resource that bounds them (a matrix engine's PEs per SLR, docs/matrix.md)."""
        bounds = [(math.floor(have / need), name) for (name, have), need
                  in zip(self.budget(region).items(), each.values(), strict=True) if need > 0]
        return min(bounds) if bounds else (0, "none")

    def to_json(self) -> dict[str, Any]:
        return {"margin": self.margin,
                "regions": [{"name": r.name, **r.capacity.to_json(), "AXI": r.axi_masters}
                            for r in self.regions]}

    @staticmethod
    def from_json(doc: dict[str, Any]) -> Fabric:
        return Fabric(tuple(Region(r["name"], Usage.from_json(r), int(r["AXI"]))
                            for r in doc["regions"]), float(doc["margin"]))


@dataclass(frozen=True)
class Fit:
    """What a variant's compute units take of each SLR of a fabric: the CUs placed in it,
    their resources, and the AXI masters on its memory."""

    fabric: Fabric
    cus: tuple[int, ...]
    used: tuple[Usage, ...]
    masters: tuple[int, ...]
    spanning: int = 0  # CUs larger than any one SLR, their cost shared by all of them

    @property
    def problems(self) -> list[str]:
        """Each budget exceeded, as a phrase: ``SLR0 BRAM 2,944 of 537.6 (80 % of 672)``."""
        out = []
        percent = round(self.fabric.margin * 100)
        for i, region in enumerate(self.fabric.regions):
            budget = self.fabric.budget(i)
            for (name, used), (_, room), (_, whole) in zip(
                    self.used[i].items(), budget.items(), region.capacity.items(), strict=True):
                if used > room + 1e-9:
                    out.append(f"{region.name} {name} {_number(used)} of {_number(room)} "
                               f"({percent} % of {_number(whole)})")
            if self.masters[i] > region.axi_masters:
                out.append(f"{region.name} {self.masters[i]} AXI masters on its memory, "
                           f"which takes {region.axi_masters}")
        return out

    @property
    def fits(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"margin": self.fabric.margin, "fits": self.fits, "problems": self.problems,
                "spanning_cus": self.spanning,
                "regions": [{"name": r.name, "cus": self.cus[i],
                             "used": {k: round(v, 1) for k, v in self.used[i].items()},
                             "budget": {k: round(v, 1)
                                        for k, v in self.fabric.budget(i).items()},
                             "axi_masters": self.masters[i], "axi_budget": r.axi_masters}
                            for i, r in enumerate(self.fabric.regions)]}

    def summary(self) -> str:
        """One line: the busiest share of each SLR that holds CUs or masters."""
        parts = [f"{self.spanning} CU across all SLRs"] if self.spanning else []
        for i, region in enumerate(self.fabric.regions):
            if not self.cus[i] and not self.masters[i] and not self.spanning:
                continue
            shares = [(used / whole, name) for (name, used), (_, whole)
                      in zip(self.used[i].items(), region.capacity.items(), strict=True)
                      if whole]
            share, name = max(shares) if shares else (0.0, "LUT")
            used = f", {name} {share:.0%} of the SLR" if self.cus[i] or self.spanning else ""
            axi = f", {self.masters[i]}/{region.axi_masters} AXI" if self.masters[i] else ""
            parts.append(f"{region.name} {self.cus[i]} CU{used}{axi}")
        return "; ".join(parts) or "no compute unit"


def _number(value: float) -> str:
    """1234.5 -> "1,234.5"; whole numbers without a fraction."""
    if math.isclose(value, round(value)):
        return f"{round(value):,}"
    return f"{value:,.1f}"
