"""hw_emu's memory system: each bank's bytes per kernel cycle and each CU port's bank.

From an .xclbin, as a card would be set up: the header's platform VBNV names the platform
file (``fpgakern.link.platforms``), which holds each bank's bandwidth and the kernel clock
(its frequency as the xclbin's CLOCK_FREQ_TOPOLOGY states it, else as the platform file
does); MEM_TOPOLOGY and CONNECTIVITY say which bank each argument of each CU is connected
to (the linker writes them from the platform file and the ``sp=`` lines). From a build tree
or plans, with a platform named: the placement the link config would make
(``Placement.port_bank``, the default placement or a bank per port).

Without bandwidth figures (an unknown platform, or banks the platform file gives no
``bandwidth:``) there is no :class:`BankMap` and hw_emu's memory has no limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fpgakern.interface import interface
from fpgakern.ladder import Plan
from fpgakern.link import axlf, platforms, sections


@dataclass(frozen=True)
class BankMap:
    """Banks (tag and bytes per kernel cycle, None: no limit) and the bank index of each
    (CU index, m_axi bundle) of one variant."""

    platform: str
    tags: tuple[str, ...]
    bytes_per_cycle: tuple[float | None, ...]
    placement: dict[tuple[int, str], int]

    @property
    def limited(self) -> bool:
        return any(rate is not None for rate in self.bytes_per_cycle)


def from_plan(plan: Plan, platform: str, bank_per_port: bool = False) -> BankMap | None:
    """The banks of ``platform`` and the placement the link config makes for ``plan``
    (all of a CU's ports on its bank; with ``bank_per_port``, a bank per port)."""
    memory = platforms.load(platform).memory_system()
    placed = plan.placed_on(memory, bank_per_port).placement
    placement = {(cu, plan.arch.bundle(pointer)): placed.port_bank(cu, pointer)
                 for cu in range(plan.placement.compute_units) for pointer in plan.arch.pointers}
    found = BankMap(memory.platform, memory.banks, memory.bytes_per_cycle, placement)
    return found if found.limited else None


@dataclass(frozen=True)
class XclbinBanks:
    """The banks of an .xclbin (MEM_TOPOLOGY order) with their bytes per kernel cycle
    (None: no figure, no limit) at the kernel clock ``mhz``, from its platform's file."""

    platform: str
    mhz: float
    tags: tuple[str, ...]
    bytes_per_cycle: tuple[float | None, ...]


def _entries(image: axlf.Axlf, name: str, kind: type) -> list[Any]:
    section = image.find(axlf.SECTION_IDS[name])
    return sections.decode(section.payload, kind) if section is not None else []


def _xclbin_banks(image: axlf.Axlf) -> XclbinBanks | None:
    platform = platforms.by_vbnv(axlf.cstr(image.header["m_platformVBNV"]))
    if platform is None:
        return None
    mems: list[sections.MemData] = _entries(image, "MEM_TOPOLOGY", sections.MemData)
    clocks: list[sections.ClockFreq] = _entries(image, "CLOCK_FREQ_TOPOLOGY", sections.ClockFreq)
    mhz = next((float(c.freq_mhz) for c in clocks if c.name == platform.kernel_clock),
               float(platform.kernel_mhz))
    banks = {b.tag.lower(): b for b in platform.banks}
    tags = tuple(m.tag for m in mems)
    rates = tuple(banks[t.lower()].bytes_per_cycle(mhz) if t.lower() in banks else None
                  for t in tags)
    return XclbinBanks(platform.name, mhz, tags, rates)


def xclbin_banks(path: Path) -> XclbinBanks | None:
    """Every bank of the .xclbin at ``path`` with its bytes per kernel cycle; None when its
    platform is not known (the C++ XRT emulation reads these figures from the config
    ``python -m fpgakern.runtime.emu prepare`` writes)."""
    return _xclbin_banks(axlf.read(path.read_bytes()))


def from_xclbin(path: Path, top: str, cu_names: tuple[str, ...], plan: Plan) -> BankMap | None:
    """The banks and placement of kernel ``top``'s CUs in the .xclbin at ``path``; None
    when its platform or banks have no bandwidth figures."""
    image = axlf.read(path.read_bytes())
    banks = _xclbin_banks(image)
    if banks is None:
        return None
    conns: list[sections.Connection] = _entries(image, "CONNECTIVITY", sections.Connection)
    ips: list[sections.IpData] = _entries(image, "IP_LAYOUT", sections.IpData)
    tags, rates = banks.tags, banks.bytes_per_cycle
    bundles = {arg.id: plan.arch.bundle(arg.name) for arg in interface(plan).pointers}
    cu_index = {f"{top}:{name}": i for i, name in enumerate(cu_names)}
    placement: dict[tuple[int, str], int] = {}
    for conn in conns:
        if not 0 <= conn.ip_layout_index < len(ips) or not 0 <= conn.mem_data_index < len(tags):
            continue
        cu = cu_index.get(ips[conn.ip_layout_index].name)
        bundle = bundles.get(conn.arg_index)
        if cu is not None and bundle is not None:
            placement[(cu, bundle)] = conn.mem_data_index
    result = BankMap(banks.platform, tags, rates, placement)
    placed = {placement[k] for k in placement}
    return result if any(rates[i] is not None for i in placed) else None
