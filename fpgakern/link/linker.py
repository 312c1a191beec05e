"""The link step: kernels + platform + config -> a design of placed compute units.

What v++ decides at link time and records in the xclbin, decided here the same way:

* CUs per kernel from ``nk=`` (default: the kernel's own count, N for rung-3 plans, else 1;
  a rung sized by the memory system, rung 5, takes its count and one sp= per port from
  the plan made for the platform being linked, whatever platform its build was for),
  named ``<kernel>_1 .. <kernel>_N`` unless nk lists names;
* control base addresses in the platform's CU window, one ``stride`` apart, in link order
  (IP_LAYOUT is sorted by base address, so that order is also the IP_LAYOUT index);
* interrupt ids 0, 1, 2 ... in the same order;
* a free-running CU (ap_ctrl_none) has no control port: no window, no interrupt, and the
  base address all ones (``sections.NO_ADDRESS``, what XRT's readers take as "no address":
  xclbinutil prints it "not_used"), so it sorts after the others in IP_LAYOUT;
* every AXI4-Stream port of every CU is joined by exactly one ``stream_connect`` (an
  output to an input); a port left unconnected, or connected twice, is refused, as v++
  refuses a kernel-to-kernel stream it cannot route;
* memory banks per m_axi interface from ``sp=``; interfaces no sp= places go to the
  platform's default banks, one bank per CU in turn (CU i -> default bank i mod n), so the
  N CUs of a rung-3 kernel each get their own bank where the card has enough. (v++
  itself would put every unplaced interface on one bank: fpgakern's default differs on
  purpose, and the config it hands a real v++ spells every sp= out.)

Fit checks raise a UsageError that says what to change: too many CUs for the platform,
more AXI masters on one bank than it takes, unknown CUs, ports, banks or SLRs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from fpgakern.errors import UsageError
from fpgakern.ladder import Plan
from fpgakern.link.config import LinkConfig, Nk, Slr, Sp, StreamConnect
from fpgakern.link.kernel_xml import KernelDesc
from fpgakern.link.platforms import Bank, Platform
from fpgakern.link.sections import NO_ADDRESS

TARGETS = ("hw", "hw_emu", "sw_emu")


@dataclass(frozen=True)
class LinkInput:
    """One kernel to link, with where it came from (for messages and for v++)."""

    kernel: KernelDesc
    compute_units: int = 1  # the default nk
    config: LinkConfig = field(default_factory=LinkConfig)  # e.g. a rung-3 build's link.cfg
    origin: str = ""  # "binary_ops/add@opt3:float32" or the .xo path
    xo: str | None = None  # the .xo file, when one exists (v++ needs it)
    plan: Plan | None = None  # the variant, when named by kernel (not by an .xo path)


@dataclass(frozen=True)
class ComputeUnit:
    kernel: KernelDesc
    name: str
    base: int
    interrupt_id: int
    port_banks: tuple[tuple[str, tuple[Bank, ...]], ...]  # m_axi interface -> its banks
    slr: str | None = None

    @property
    def ip_name(self) -> str:
        return f"{self.kernel.name}:{self.name}"

    def banks_of_port(self, port: str) -> tuple[Bank, ...]:
        for name, banks in self.port_banks:
            if name.lower() == port.lower():
                return banks
        return ()


@dataclass(frozen=True)
class Design:
    platform: Platform
    target: str
    inputs: tuple[LinkInput, ...]
    cus: tuple[ComputeUnit, ...]  # sorted by base address: the IP_LAYOUT order
    streams: tuple[StreamConnect, ...]
    extra_config: tuple[tuple[str, str, str], ...] = ()  # non-connectivity lines for v++
    notes: tuple[str, ...] = ()  # what the linker adjusted, for the user to read

    @property
    def kernels(self) -> tuple[KernelDesc, ...]:
        return tuple(i.kernel for i in self.inputs)

    def cus_of(self, kernel: KernelDesc) -> tuple[ComputeUnit, ...]:
        return tuple(cu for cu in self.cus if cu.kernel.name == kernel.name)

    @property
    def used_banks(self) -> set[int]:
        return {b.index for cu in self.cus for _, banks in cu.port_banks for b in banks}

    def to_config(self) -> LinkConfig:
        """Every decision as a v++ config: nk per kernel, sp per CU interface, slr."""
        nk = tuple(Nk(k.name, len(cus), () if _default_names(cus) else
                      tuple(c.name for c in cus))
                   for k in self.kernels for cus in (self.cus_of(k),))
        sp = tuple(Sp(cu.name, port, _bank_ref(banks))
                   for cu in self.cus for port, banks in cu.port_banks)
        slr = tuple(Slr(cu.name, cu.slr) for cu in self.cus if cu.slr)
        return LinkConfig(nk, sp, slr, self.streams, self.extra_config)


def _default_names(cus: tuple[ComputeUnit, ...]) -> bool:
    return all(cu.name == f"{cu.kernel.name}_{i}" for i, cu in enumerate(cus, 1))


def _bank_ref(banks: tuple[Bank, ...]) -> str:
    """``DDR[0]`` or the range ``HBM[0:3]`` v++ reads back."""
    if len(banks) == 1:
        return banks[0].tag
    family = banks[0].family
    index = [b.tag[len(family) + 1:-1] for b in (banks[0], banks[-1])]
    return f"{family}[{index[0]}:{index[1]}]"


def link(inputs: list[LinkInput], platform: Platform, config: LinkConfig | None = None,
         target: str = "hw") -> Design:
    """Place the CUs of ``inputs`` on ``platform``; ``config`` (the user's) overrides the
    per-kernel configs the inputs carry."""
    if target not in TARGETS:
        raise UsageError(f"unknown target {target!r} (targets: {', '.join(TARGETS)})")
    if not inputs:
        raise UsageError("nothing to link: name at least one kernel or .xo")
    _check_unique_kernels(inputs)
    replaced, before = [], 0
    for item in inputs:  # each kernel's CUs take the banks after the ones before them
        replaced.append(_for_platform(item, platform, before, alone=len(inputs) == 1))
        before += replaced[-1].compute_units
    inputs = replaced
    built = LinkConfig()
    notes: list[str] = []
    for item in inputs:
        built = built.merged(_fit_build_config(item, platform, notes))
    user = config or LinkConfig()
    merged = built.merged(user)
    names = {i.kernel.name for i in inputs}
    for nk in merged.nk:
        if nk.kernel not in names:
            raise UsageError(f"{nk.where or 'nk'}: nk names kernel {nk.kernel!r}, which is "
                             f"not being linked (linking: {', '.join(sorted(names))})")

    placed: list[tuple[KernelDesc, str]] = []
    for item in inputs:
        chosen = merged.nk_for(item.kernel.name)
        cu_names = (chosen or Nk(item.kernel.name, item.compute_units, ())).cu_names
        placed += [(item.kernel, name) for name in cu_names]
    duplicates = [n for n, c in Counter(n for _, n in placed).items() if c > 1]
    if duplicates:
        raise UsageError(f"CU name {duplicates[0]!r} is used twice: give distinct nk names")
    if len(placed) > platform.cu_capacity:
        raise UsageError(f"{len(placed)} compute units do not fit platform {platform.name}, "
                         f"which takes at most {platform.cu_capacity}: lower nk counts or "
                         "link fewer kernels")

    cu_kernels = {name: kernel for kernel, name in placed}
    # The builds' own sp= are defaults: a user's sp= for the same interface wins, whether
    # it names the argument (b) or its interface (m_axi_gmem1), and a build's sp= for a CU
    # the user's nk= renamed away gives way. Within the user's configs a clash is an error.
    port_sp = {**_resolve_sp(tuple(sp for sp in built.sp if sp.cu in cu_kernels),
                             cu_kernels, platform),
               **_resolve_sp(user.sp, cu_kernels, platform)}
    slrs = _resolve_slr(merged, cu_kernels, platform)
    cus = []
    window = 0  # control windows and interrupt ids go to the CUs that have a control port
    for i, (kernel, name) in enumerate(placed):
        default = (platform.cu_bank(i),)
        port_banks = tuple((p.name, port_sp.get((name, p.name.lower()), default))
                           for p in kernel.masters)
        base = platform.cu_base + window * platform.cu_stride if kernel.has_control else NO_ADDRESS
        cus.append(ComputeUnit(kernel, name, base, window if kernel.has_control else 0,
                               port_banks, slrs.get(name)))
        window += kernel.has_control
    _check_bank_fit(cus, platform)
    streams = tuple(_check_stream(s, cu_kernels) for s in merged.stream_connect)
    _check_streams_joined(streams, placed)
    return Design(platform, target, tuple(inputs), tuple(sorted(cus, key=lambda c: c.base)),
                  streams, merged.other, tuple(notes))


def _for_platform(item: LinkInput, platform: Platform, first_cu: int = 0, *,
                  alone: bool = True) -> LinkInput:
    """``item`` as linked on ``platform``: a rung whose placement follows the memory
    system (a port per pointer from rung 2, replicated CUs at rungs 3 and 5) is planned
    again for this platform, and its nk=, per-port sp= and per-CU slr= replace the
    build's link.cfg (written for the build's platform). Its CUs are placed as the
    ``first_cu``-th and later CUs of the design, so that kernels linked together take
    the banks in turn; an slr= names the SLR of a CU's bank where banks sit in SLRs of
    their own, and the plan's own choice where the kernel is linked ``alone``. A plan
    whose CUs do not fit the platform's SLRs is refused, as ``fpgakern build`` refuses
    it."""
    if item.plan is None or not (item.plan.rung.dataflow or item.plan.rung.multi_cu):
        return item
    p = item.plan.placed_on(platform.memory_system())
    placement = p.placement
    fit = placement.fit
    if fit is not None and not fit.fits:
        raise UsageError(f"{item.origin}: does not fit {platform.name}: "
                         f"{'; '.join(fit.problems)}")
    name = item.kernel.name
    where = f"{item.origin} on {platform.name}"
    nk = Nk(name, placement.compute_units, ())
    sp = tuple(Sp(cu_name, pointer, tag, where)
               for cu, cu_name in enumerate(nk.cu_names) for pointer in p.arch.pointers
               if (tag := placement.bank_tag(first_cu + cu, pointer)) is not None)
    memory = placement.memory
    slrs: dict[str, str] = {}
    for cu, cu_name in enumerate(nk.cu_names):
        own = placement.cu_slr(cu)
        if alone and own is not None:
            slrs[cu_name] = own
        elif memory is not None and not memory.shares_one_slr and memory.bank_slrs:
            slrs[cu_name] = memory.bank_slr(placement.home_bank(first_cu + cu))
    slr = tuple(Slr(cu_name, s, where) for cu_name, s in slrs.items() if s)
    own_config = replace(item.config, nk=(nk,), sp=sp, slr=slr)
    return replace(item, compute_units=placement.compute_units, config=own_config, plan=p)


def _fit_build_config(item: LinkInput, platform: Platform, notes: list[str]) -> LinkConfig:
    """A build's own link.cfg names banks of the platform it was written for (rung 3
    spreads CUs over the default platform's banks, HBM[0:3] on u55c); on a card without
    them its sp= lines give way to the default placement, which follows the same rule
    (``Platform.cu_bank``). A user's --config is not softened: there a wrong bank is an
    error."""
    kept = []
    for sp in item.config.sp:
        try:
            platform.resolve_banks(sp.memory)
            kept.append(sp)
        except UsageError:
            notes.append(f"{sp.where}: sp={sp.cu}.{sp.port}:{sp.memory} does not fit "
                         f"{platform.name}; {sp.cu} uses the default banks")
    return replace(item.config, sp=tuple(kept))


def _check_unique_kernels(inputs: list[LinkInput]) -> None:
    seen: dict[str, str] = {}
    for item in inputs:
        name = item.kernel.name
        if name in seen:
            raise UsageError(f"kernel {name} is named twice ({seen[name]} and {item.origin}): "
                             f"both have the hardware top {name!r}, and an xclbin holds "
                             "one kernel per name (use nk= for more CUs, or give one a "
                             "top: of its own in its spec)")
        seen[name] = item.origin or name


def _resolve_sp(sps: tuple[Sp, ...], cu_kernels: dict[str, KernelDesc],
                platform: Platform) -> dict[tuple[str, str], tuple[Bank, ...]]:
    """sp= lines -> {(cu, m_axi interface in lower case): banks}."""
    out: dict[tuple[str, str], tuple[Bank, ...]] = {}
    origin: dict[tuple[str, str], Sp] = {}
    for sp in sps:
        where = sp.where or "sp"
        kernel = cu_kernels.get(sp.cu)
        if kernel is None:
            raise UsageError(f"{where}: sp={sp.cu}.{sp.port}: no CU {sp.cu!r} "
                             f"(CUs: {', '.join(cu_kernels)})")
        port = _memory_port(kernel, sp, where)
        try:
            banks = platform.resolve_banks(sp.memory)
        except UsageError as err:
            raise UsageError(f"{where}: {err}") from None
        key = (sp.cu, port.lower())
        if key in out and out[key] != banks:
            first = origin[key]
            raise UsageError(f"{where}: sp={sp.cu}.{sp.port}:{sp.memory} conflicts with "
                             f"sp={first.cu}.{first.port}:{first.memory} ({first.where}): "
                             f"both place interface {port}")
        out[key], origin[key] = banks, sp
    return out


def _memory_port(kernel: KernelDesc, sp: Sp, where: str) -> str:
    """The m_axi interface an sp= target names: the interface itself or an argument on it."""
    port = kernel.port(sp.port)
    if port is not None and port.mode == "master":
        return port.name
    for arg in kernel.args:
        if arg.name == sp.port:
            if not arg.is_memory:
                raise UsageError(f"{where}: sp={sp.cu}.{sp.port}: argument {arg.name!r} of "
                                 f"{kernel.name} is a scalar, not a memory pointer")
            return arg.port
    choices = [a.name for a in kernel.memory_args] + [p.name for p in kernel.masters]
    raise UsageError(f"{where}: sp={sp.cu}.{sp.port}: {kernel.name} has no memory argument "
                     f"or m_axi interface {sp.port!r} (it has: {', '.join(choices)})")


def _resolve_slr(config: LinkConfig, cu_kernels: dict[str, KernelDesc],
                 platform: Platform) -> dict[str, str]:
    out = {}
    for s in config.slr:
        if s.cu not in cu_kernels:
            raise UsageError(f"{s.where or 'slr'}: slr={s.cu}:{s.slr}: no CU {s.cu!r}")
        if s.slr not in platform.slrs:
            have = ", ".join(platform.slrs) or "none"
            raise UsageError(f"{s.where or 'slr'}: platform {platform.name} has no {s.slr} "
                             f"(its SLRs: {have})")
        out[s.cu] = s.slr
    return out


def _check_bank_fit(cus: list[ComputeUnit], platform: Platform) -> None:
    load: Counter[int] = Counter()
    for cu in cus:
        for _, banks in cu.port_banks:
            load.update(b.index for b in banks)
    for index, count in sorted(load.items()):
        if count > platform.max_ports_per_bank:
            bank = platform.banks[index]
            raise UsageError(
                f"memory {bank.tag} of platform {platform.name} would take {count} AXI "
                f"masters, it takes at most {platform.max_ports_per_bank}: spread the CUs "
                "over more banks with sp= lines in a link config")


def _check_stream(s: StreamConnect, cu_kernels: dict[str, KernelDesc]) -> StreamConnect:
    where = s.where or "stream_connect"
    for cu, port_name, mode in ((s.src_cu, s.src_port, "write_only"),
                                (s.dst_cu, s.dst_port, "read_only")):
        kernel = cu_kernels.get(cu)
        if kernel is None:
            raise UsageError(f"{where}: stream_connect names no CU {cu!r}")
        port = kernel.port(port_name)
        streams = [p.name for p in kernel.ports if p.is_stream]
        if port is None or not port.is_stream:
            raise UsageError(f"{where}: {kernel.name} has no AXI4-Stream port {port_name!r} "
                             f"(its stream ports: {', '.join(streams) or 'none'})")
        if port.mode != mode:
            raise UsageError(f"{where}: {cu}.{port_name} is {port.mode}; a stream_connect "
                             f"{'source' if mode == 'write_only' else 'sink'} must be {mode}")
    return s


def _check_streams_joined(streams: tuple[StreamConnect, ...],
                          placed: list[tuple[KernelDesc, str]]) -> None:
    """Every stream port of every CU in exactly one stream_connect."""
    uses: Counter[tuple[str, str]] = Counter()
    for s in streams:
        uses[(s.src_cu, s.src_port.lower())] += 1
        uses[(s.dst_cu, s.dst_port.lower())] += 1
    for kernel, cu in placed:
        for port in kernel.streams:
            count = uses[(cu, port.name.lower())]
            role = "output" if port.mode == "write_only" else "input"
            if count == 0:
                other = "<cu>.<input>" if role == "output" else "<cu>.<output>"
                line = (f"stream_connect={cu}.{port.name}:{other}" if role == "output"
                        else f"stream_connect={other}:{cu}.{port.name}")
                raise UsageError(f"AXI4-Stream {role} {cu}.{port.name} is not connected: "
                                 f"join it to another CU's stream with '{line}' in the "
                                 "[connectivity] section of a link config (--config)")
            if count > 1:
                raise UsageError(f"AXI4-Stream {role} {cu}.{port.name} is in {count} "
                                 "stream_connect lines: a stream joins one output to one "
                                 "input")
