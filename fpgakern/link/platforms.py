"""Target platforms as data: one YAML file per card under ``fpgakern/link/platforms/``.

A platform lists its memory banks (MEM_TOPOLOGY order: the index of a bank is its
``mem_data_index`` in CONNECTIVITY), its clocks, the address window where CUs' control
registers go, and the limits the linker checks: CUs per design, AXI masters per bank.
``--platform`` takes a bundled name or the path of such a YAML file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fpgakern.errors import FpgakernError, SpecError, UsageError
from fpgakern.ladder import MemorySystem
from fpgakern.ladder.fabric import RESOURCE_NAMES, Fabric, Region, Usage
from fpgakern.link.sections import CLOCK_TYPE_IDS, MAX_INTERRUPT_ID, MEM_TYPE_IDS
from fpgakern.spec import yamlpos

PLATFORMS_DIR = Path(__file__).resolve().parent / "platforms"
# The platform fpgakern builds for unless told otherwise: the library link of
# `fpgakern build` and rung 3's link.cfg (32 HBM pseudo-channels: room for every port).
DEFAULT = "u55c"
_SIZE = re.compile(r"^\s*(\d+)\s*([KMGT]?)i?B?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
# Bandwidths are decimal, as memory vendors and AMD state them: "14.375G" (bytes/s).
_RATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)\s*(?:B/s)?\s*$", re.IGNORECASE)
_RATE_UNITS = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
# "DDR[1]", "HBM[0:31]", and the older "bank0" / "PLRAM3" spellings v++ also accepts
_BANK_REF = re.compile(r"^(?P<family>[A-Za-z_]+)\[(?P<lo>\d+)(?::(?P<hi>\d+))?\]$")
_BANK_SHORT = re.compile(r"^(?P<family>[A-Za-z_]+?)(?P<index>\d+)$")
# PYNQ's parser knows memory types 0..9 only (MEM_HOST=10 makes it fail): refuse the rest.
PYNQ_MAX_MEM_TYPE = 9


@dataclass(frozen=True)
class Bank:
    index: int  # position in MEM_TOPOLOGY
    tag: str
    type: int
    size: int  # bytes
    base: int
    family: str
    default: bool  # takes CUs whose ports no sp= places
    bandwidth: float | None = None  # bytes/s the bank serves (None: no figure)
    slr: str = ""  # the SLR the bank sits in or beside ("": not stated)
    # m_axi settings an HLS port that reads the bank states (HBM: latency, outstanding reads)
    read_settings: tuple[tuple[str, int], ...] = ()

    @property
    def size_kb(self) -> int:
        return self.size // 1024

    def bytes_per_cycle(self, kernel_mhz: float) -> float | None:
        """What the bank moves per kernel-clock cycle (None: no bandwidth figure)."""
        return None if self.bandwidth is None else self.bandwidth / (kernel_mhz * 1e6)


@dataclass(frozen=True)
class Clock:
    name: str
    type: int
    mhz: int


@dataclass(frozen=True)
class Platform:
    name: str
    description: str
    vbnv: str
    vitis_platform: str
    vendor: str
    board_id: str
    board: dict[str, str]
    fpga_device: str
    host_architecture: str
    clocks: tuple[Clock, ...]
    cu_base: int
    cu_stride: int
    cu_window: int
    max_compute_units: int
    max_ports_per_bank: int
    slrs: tuple[str, ...]
    banks: tuple[Bank, ...]
    resources: dict[str, int]
    source: Path
    kernel_clock: str = "DATA_CLK"  # the clock that drives the CUs' ap_clk
    fabric: Fabric | None = None  # per-SLR budgets (slr_resources, fit_margin)

    @property
    def cu_capacity(self) -> int:
        """CUs the design can hold: the platform limit, the address window, and the
        7-bit interrupt id of IP_LAYOUT."""
        return min(self.max_compute_units, self.cu_window // self.cu_stride,
                   MAX_INTERRUPT_ID + 1)

    @property
    def default_banks(self) -> tuple[Bank, ...]:
        return tuple(b for b in self.banks if b.default) or self.banks[:1]

    def cu_bank(self, index: int) -> Bank:
        """The bank of the ``index``-th compute unit (from 0) whose ports no sp= places:
        the default banks in turn, so that CUs do not share one bank's bandwidth. The
        linker's default placement and rung 3's generated link.cfg both follow it."""
        defaults = self.default_banks
        return defaults[index % len(defaults)]

    @property
    def kernel_mhz(self) -> int:
        """The kernel clock (ap_clk) in MHz."""
        clock = next((c for c in self.clocks if c.name == self.kernel_clock), None)
        if clock is None:
            raise UsageError(f"platform {self.name}: no clock {self.kernel_clock!r} "
                             f"(kernel_clock) among {', '.join(c.name for c in self.clocks)}")
        return clock.mhz

    def memory_system(self) -> MemorySystem:
        """The default banks with their bytes per kernel cycle, size, SLR and m_axi
        settings, and the fabric's per-SLR budget: for the ladder's port placement,
        resource fit and bandwidth-bounded ideals, for the generated link configs and
        kernels, and for the simulation's memory model."""
        banks = self.default_banks
        return MemorySystem(
            self.name, tuple(b.tag for b in banks),
            tuple(b.bytes_per_cycle(self.kernel_mhz) for b in banks),
            float(self.kernel_mhz), self.vitis_platform, tuple(b.size for b in banks),
            tuple(b.slr for b in banks) if any(b.slr for b in banks) else (),
            banks[0].read_settings if banks else (), self.fabric)

    def resolve_banks(self, ref: str) -> tuple[Bank, ...]:
        """The banks an sp= target names: ``DDR[0]``, ``HBM[0:3]``, a tag, or ``PLRAM3``."""
        ref = ref.strip()
        exact = [b for b in self.banks if b.tag.lower() == ref.lower()]
        if exact:
            return tuple(exact)
        span = None
        if m := _BANK_REF.match(ref):
            span = m["family"], int(m["lo"]), int(m["hi"] or m["lo"])
        elif short := _BANK_SHORT.match(ref):
            span = short["family"], int(short["index"]), int(short["index"])
        if span:
            family, lo, hi = span[0].upper(), span[1], span[2]
            members = [b for b in self.banks if b.family.upper() == family]
            if lo <= hi < len(members):
                return tuple(members[lo:hi + 1])
        known = ", ".join(_summarize(self.banks))
        raise UsageError(f"platform {self.name} has no memory {ref!r} (it has: {known})")


def _summarize(banks: tuple[Bank, ...]) -> list[str]:
    """``DDR[0:3], PLRAM[0:3]`` rather than every tag."""
    out: list[str] = []
    by_family: dict[str, list[Bank]] = {}
    for b in banks:
        by_family.setdefault(b.family, []).append(b)
    for family, members in by_family.items():
        if len(members) > 1 and all(b.tag == f"{family}[{i}]" for i, b in enumerate(members)):
            out.append(f"{family}[0:{len(members) - 1}]")
        else:
            out.extend(b.tag for b in members)
    return out


def parse_size(value: Any) -> int:
    """Bytes from an integer or ``"16G"`` / ``"512 MiB"`` (binary units)."""
    if isinstance(value, int) and value >= 0:
        return value
    m = _SIZE.match(str(value))
    if not m:
        raise ValueError(f"{value!r} is not a size (write e.g. 16G, 512M, 128K)")
    return int(m[1]) * _UNITS[m[2].upper()]


def parse_rate(value: Any) -> float:
    """Bytes per second from a number or ``"14.375G"`` / ``"19.25 GB/s"`` (decimal units)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    m = _RATE.match(str(value))
    if not m or float(m[1]) <= 0:
        raise ValueError(f"{value!r} is not a bandwidth (write e.g. 14.375G, bytes/s)")
    return float(m[1]) * _RATE_UNITS[m[2].upper()]


def available() -> list[str]:
    return sorted(p.stem for p in PLATFORMS_DIR.glob("*.yaml"))


def by_vbnv(vbnv: str) -> Platform | None:
    """The bundled platform whose VBNV is ``vbnv`` (an .xclbin header names it), if any."""
    for name in available():
        try:
            candidate = load(name)
        except FpgakernError:
            continue
        if candidate.vbnv == vbnv:
            return candidate
    return None


def load(name_or_path: str | Path) -> Platform:
    """A platform by bundled name (``u250``) or by the path of its YAML file."""
    path = Path(name_or_path)
    if path.suffix not in (".yaml", ".yml"):
        path = PLATFORMS_DIR / f"{name_or_path}.yaml"
        if not path.is_file():
            raise UsageError(f"unknown platform {name_or_path!r} (bundled: "
                             f"{', '.join(available())}; or give a platform .yaml path)")
    elif not path.is_file():
        raise UsageError(f"{path}: platform file not found")
    doc = yamlpos.load(path)
    try:
        return _from_doc(doc)
    except (KeyError, ValueError, TypeError, AttributeError) as err:
        # What the checks above do not name (a clock without "mhz", a count that is no
        # number, a mapping where a list belongs) is still one line naming the file.
        what = f"missing key {err}" if isinstance(err, KeyError) else str(err)
        raise SpecError(path, None, None, f"malformed platform file: {what}") from None


def _from_doc(doc: yamlpos.Located) -> Platform:
    v = doc.value
    if not isinstance(v, dict):
        raise doc.error("platform", "expected a mapping at the top level")

    def need(key: str, kind: type | tuple[type, ...] = str, where: dict | None = None,
             *path: str | int) -> Any:
        src = v if where is None else where
        if key not in src:
            raise doc.error(key, "missing", *path, key)
        if not isinstance(src[key], kind):
            raise doc.error(key, f"expected {getattr(kind, '__name__', kind)}", *path, key)
        return src[key]

    declared_slrs = tuple(str(s) for s in v.get("slrs") or ())
    banks: list[Bank] = []
    for i, group in enumerate(need("memories", list)):
        if not isinstance(group, dict):
            raise doc.error("memories", "each entry must be a mapping", "memories", i)
        type_name = need("type", str, group, "memories", i)
        if MEM_TYPE_IDS.get(type_name, 99) > PYNQ_MAX_MEM_TYPE:
            raise doc.error("type", f"{type_name!r}: use one of "
                            f"{', '.join(list(MEM_TYPE_IDS)[:PYNQ_MAX_MEM_TYPE + 1])}",
                            "memories", i, "type")
        try:
            size = parse_size(need("size", (str, int), group, "memories", i))
            base = parse_size(group.get("base", 0))
            stride = parse_size(group.get("stride", 0))
            bandwidth = (parse_rate(group["bandwidth"]) if group.get("bandwidth") is not None
                         else None)
        except ValueError as err:
            raise doc.error("memories", str(err), "memories", i) from None
        if "tags" in group:
            tags = [str(t) for t in group["tags"]]
            family = ""
        else:
            family = need("family", str, group, "memories", i)
            tags = [f"{family}[{n}]" for n in range(int(group.get("count", 1)))]
        slrs = _bank_slrs(doc, group, i, len(tags), declared_slrs)
        settings = _read_settings(doc, group, i)
        for n, tag in enumerate(tags):
            if len(tag.encode()) > 15:
                raise doc.error("memories", f"tag {tag!r} is longer than m_tag's 15 bytes",
                                "memories", i)
            banks.append(Bank(len(banks), tag, MEM_TYPE_IDS[type_name], size, base + n * stride,
                              family or tag, bool(group.get("default", False)), bandwidth,
                              slrs[n], settings))
    clocks = []
    for i, c in enumerate(need("clocks", list)):
        if c.get("type") not in CLOCK_TYPE_IDS:
            raise doc.error("type", f"clock type must be one of {', '.join(CLOCK_TYPE_IDS)}",
                            "clocks", i, "type")
        clocks.append(Clock(str(c["name"]), CLOCK_TYPE_IDS[c["type"]], int(c["mhz"])))
    kernel_clock = str(v.get("kernel_clock", "DATA_CLK"))
    if kernel_clock not in {c.name for c in clocks}:
        raise doc.error("kernel_clock", f"{kernel_clock!r} is none of the clocks "
                        f"({', '.join(c.name for c in clocks)})", "kernel_clock")
    cu = need("cu_address", dict)
    board = need("board", dict)
    return Platform(
        name=need("name"), description=str(v.get("description", "")), vbnv=need("vbnv"),
        vitis_platform=str(v.get("vitis_platform", v["vbnv"])),
        vendor=str(v.get("vendor", "")), board_id=str(v.get("board_id", v["name"])),
        board={k: str(x) for k, x in board.items()}, fpga_device=str(v.get("fpga_device", "")),
        host_architecture=str(v.get("host_architecture", "x86_64")), clocks=tuple(clocks),
        cu_base=int(need("base", int, cu, "cu_address")),
        cu_stride=int(need("stride", int, cu, "cu_address")),
        cu_window=int(need("window", int, cu, "cu_address")),
        max_compute_units=int(need("max_compute_units", int)),
        max_ports_per_bank=int(need("max_ports_per_bank", int)),
        slrs=declared_slrs, banks=tuple(banks),
        resources={k: int(x) for k, x in (v.get("resources") or {}).items()},
        source=doc.file,
        kernel_clock=kernel_clock,
        fabric=_fabric(doc, declared_slrs),
    )


# The m_axi settings a platform file may give a memory for the ports that read it.
READ_SETTINGS = ("latency", "num_read_outstanding")


def _bank_slrs(doc: yamlpos.Located, group: dict, i: int, count: int,
               declared: tuple[str, ...]) -> list[str]:
    """The SLR of each of a memory entry's banks: ``slr: SLR0`` for all of them, ``slrs:
    [SLR0, SLR1]`` one each, or none stated."""
    if "slr" in group and "slrs" in group:
        raise doc.error("memories", "give slr (every bank) or slrs (one per bank), not both",
                        "memories", i)
    if "slrs" in group:
        slrs = group["slrs"]
        if not isinstance(slrs, list) or len(slrs) != count:
            raise doc.error("memories", f"slrs must list one SLR for each of the {count} "
                            "banks", "memories", i, "slrs")
        named = [str(s) for s in slrs]
    else:
        named = [str(group["slr"])] * count if "slr" in group else [""] * count
    for name in named:
        if name and name not in declared:
            raise doc.error("memories", f"{name!r} is not one of the platform's slrs "
                            f"({', '.join(declared) or 'none'})", "memories", i)
    return named


def _read_settings(doc: yamlpos.Located, group: dict, i: int) -> tuple[tuple[str, int], ...]:
    settings = group.get("m_axi") or {}
    if not isinstance(settings, dict):
        raise doc.error("memories", "m_axi must be a mapping such as {latency: 300}",
                        "memories", i, "m_axi")
    out = []
    for key, value in settings.items():
        if key not in READ_SETTINGS or not isinstance(value, int) or value < 1:
            raise doc.error("memories", f"m_axi {key}: {value!r}: give a positive number "
                            f"for one of {', '.join(READ_SETTINGS)}", "memories", i, "m_axi")
        out.append((str(key), value))
    return tuple(out)


def _fabric(doc: yamlpos.Located, declared: tuple[str, ...]) -> Fabric | None:
    """The per-SLR budgets (``slr_resources``, ``fit_margin``), None without figures."""
    v = doc.value
    table = v.get("slr_resources")
    if table is None:
        return None
    if not isinstance(table, dict) or list(table) != list(declared):
        raise doc.error("slr_resources", "give one entry for each of the platform's slrs, "
                        f"in order ({', '.join(declared) or 'none declared'})",
                        "slr_resources")
    regions = []
    for name, figures in table.items():
        wanted = (*RESOURCE_NAMES, "AXI")
        if not isinstance(figures, dict) or set(figures) != set(wanted) or not all(
                isinstance(x, int) and x >= 0 for x in figures.values()):
            raise doc.error("slr_resources", f"{name}: give whole numbers for "
                            f"{', '.join(wanted)}", "slr_resources", name)
        regions.append(Region(str(name), Usage(*(float(figures[k]) for k in RESOURCE_NAMES)),
                              figures["AXI"]))
    margin = v.get("fit_margin", 1.0)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 < margin <= 1:
        raise doc.error("fit_margin", "give the share of each SLR kernels may take, "
                        "above 0 and at most 1 (0.8: 80 %)", "fit_margin")
    return Fabric(tuple(regions), float(margin))
