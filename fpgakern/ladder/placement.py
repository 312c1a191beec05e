"""Where a variant runs: how many compute units, which memory bank each of their ports
uses, which SLR each CU sits in, and whether that fits the fabric. Rung 5 chooses its
compute units from what the memory system's banks feed and what fits the platform's
SLRs (docs/link.md, "Placement" and "Resources")."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from fpgakern.ladder.costs import CuCost, cu_cost
from fpgakern.ladder.fabric import Fabric, Fit, Usage
from fpgakern.ladder.memory import MemorySystem
from fpgakern.ladder.microarch import Microarchitecture

# The most compute units rung 5 considers (a platform allows up to 128), and the share of
# the best rate for which it keeps each port on a bank of its own rather than adding CUs
# that share banks (fewer CUs: less area for a few per cent of bandwidth).
MAX_SPREAD_CUS = 64
SPREAD_SHARE = 0.9
SPANS = "spans SLRs"  # the SLR of a CU too large for any one SLR: v++ spreads its logic


@dataclass(frozen=True)
class Placement:
    """The compute units of one variant on its memory system (None: memory without
    banks, one CU per bank, no fabric to fit).

    Ports: before the dataflow rungs a CU has one port, on its bank (CU i on the i-th
    default bank). From rung 2 each pointer has a port of its own (but the tables, which
    share one: ``Microarchitecture.bundle``); where the banks are
    pseudo-channels beside one SLR (HBM), or with ``bank_per_port``, each port that moves
    data takes a bank of its own; where each bank sits in an SLR of its own (DDR), all a
    CU's ports stay on its bank, so that no port crosses an SLR."""

    arch: Microarchitecture
    memory: MemorySystem | None
    bank_per_port: bool

    @cached_property
    def compute_units(self) -> int:
        """CUs: the spec's N at rung 3; at rung 5 as many as the memory system feeds and
        the fabric holds (:meth:`_sized_cus`); else 1."""
        rung = self.arch.rung
        if rung.sized_by_platform:
            return self._sized_cus()
        return self.arch.kernel.compute_units if rung.multi_cu else 1

    @property
    def spreads_ports(self) -> bool:
        """Each data-moving port on a bank of its own (else all a CU's ports on one)."""
        if self.memory is None or not self.arch.rung.dataflow:
            return False
        return self.bank_per_port or self.memory.shares_one_slr

    @cached_property
    def traffic_ports(self) -> tuple[str, ...]:
        """The m_axi bundles (ports) that move data per element, in order: those of the
        data-moving pointers (every bundle where none moves data). A bundle is one AXI
        master, so all its pointers share its bank."""
        arch = self.arch
        traffic = arch.traffic_pointers or arch.pointers
        return tuple(dict.fromkeys(arch.bundle(p) for p in traffic))

    def port_bank(self, cu: int, pointer: str) -> int:
        """The index in ``memory.banks`` of the bank ``pointer`` of compute unit ``cu``
        uses: CU i's bank for all its ports, or, spreading ports, the data-moving ports
        of all CUs on the banks in turn (CU c's k-th on bank c * ports + k), with the
        ports that move no data per element (a reduction's result, a shaped kernel's
        tables) on their CU's first bank. Pointers that share a bundle share its bank."""
        banks = len(self.memory.banks) if self.memory else 1 << 30
        if not self.spreads_ports:
            return cu % banks
        ports = self.traffic_ports
        bundle = self.arch.bundle(pointer)
        index = ports.index(bundle) if bundle in ports else 0
        return (cu * len(ports) + index) % banks

    def home_bank(self, cu: int) -> int:
        """The bank of CU ``cu``'s first port (of the CU itself without one: a kernel of
        stream ports only), whose SLR a CU on SLR-local banks sits in."""
        pointers = self.arch.pointers
        if pointers:
            return self.port_bank(cu, pointers[0])
        return cu % (len(self.memory.banks) if self.memory else 1 << 30)

    def bank_tag(self, cu: int, pointer: str) -> str | None:
        """The tag (``HBM[3]``) of :meth:`port_bank`; None without a memory system."""
        return self.memory.banks[self.port_bank(cu, pointer)] if self.memory else None

    def feed_rate(self, cus: int) -> float | None:
        """Elements per cycle the banks can feed with ``cus`` CUs splitting the work
        evenly: every CU moves its share, so each bank must carry the bytes of all ports
        placed on it, and the busiest bank (bytes per element over its bytes per cycle)
        sets the pace. None without bandwidth figures."""
        if self.memory is None or not self.memory.limited:
            return None
        load: dict[int, float] = {}
        for cu in range(cus):
            for pointer in self.arch.pointers:
                bank = self.port_bank(cu, pointer)
                load[bank] = load.get(bank, 0.0) + self.arch.pointer_bytes(pointer) / cus
        speeds = self.memory.bytes_per_cycle
        rates = [speed / bytes_ for b, bytes_ in load.items()
                 if bytes_ > 0 and (speed := speeds[b]) is not None]
        return min(rates) if rates else None

    # ------------------------------------------------------------------ resources

    @cached_property
    def cost(self) -> CuCost:
        """One compute unit's estimated cost (``fpgakern.ladder.costs``)."""
        return cu_cost(self.arch)

    @cached_property
    def fit(self) -> Fit | None:
        """What the CUs take of each SLR, placed as :meth:`cu_slr` says; None on a
        memory system without fabric figures."""
        return self._fit(self.compute_units)[0]

    def cu_slr(self, cu: int) -> str | None:
        """The SLR compute unit ``cu`` is placed in (the link config's ``slr=``); None
        for a CU larger than any one SLR (v++ spreads it) and without fabric figures."""
        placed = self._fit(self.compute_units)[1]
        return placed[cu] if placed and placed[cu] != SPANS else None

    def port_settings(self, pointer: str) -> tuple[tuple[str, int], ...]:
        """The m_axi settings the memory asks of a port that reads it (HBM: its latency
        and outstanding reads, from the platform file): for an input on a bundle that only
        reads (from rung 2; before, one bundle also writes), none elsewhere."""
        if (self.memory is None or not self.arch.rung.dataflow
                or pointer not in self.arch.kernel.inputs):
            return ()
        return self.memory.read_settings

    def port_bytes(self, pointer: str) -> int | None:
        """The size of the smallest bank ``pointer`` uses on any CU, in bytes: the most
        one CU's share of it may take (None without bank sizes)."""
        if self.memory is None or not self.memory.bank_bytes:
            return None
        return min(self.memory.bank_bytes[self.port_bank(cu, pointer)]
                   for cu in range(self.compute_units))

    @property
    def share_limit(self) -> tuple[int, int, str] | None:
        """The most elements one CU's share of the work may hold at a multi-CU rung, where
        each CU's share of a port lives in one bank: the fewest any data-moving port's
        smallest bank holds (a 512 MiB pseudo-channel: 134,217,728 float32), with that
        bank's size and tag for messages. None without bank sizes or at one CU (whose
        buffers the runtime allocates as the xclbin's connectivity allows)."""
        if not self.arch.rung.multi_cu:
            return None
        limits = [(size // self.arch.pointer_dtype(p).bytes, size, self.bank_tag(0, p) or "")
                  for p in self.arch.traffic_pointers if (size := self.port_bytes(p))]
        return min(limits) if limits else None

    def _master_slrs(self, cu: int, fabric: Fabric) -> list[int]:
        """The SLR (index in ``fabric``) whose memory takes each AXI master of CU ``cu``:
        one master per bundle, on the bank of its first pointer (a bank with no SLR
        stated takes none of the SLRs' budgets)."""
        assert self.memory is not None
        names = [r.name for r in fabric.regions]
        out = []
        for bundle in self.arch.bundles:
            first = next(p for p in self.arch.pointers if self.arch.bundle(p) == bundle)
            slr = self.memory.bank_slr(self.port_bank(cu, first))
            if slr in names:
                out.append(names.index(slr))
        return out

    def _fit(self, cus: int) -> tuple[Fit | None, tuple[str, ...]]:
        """The fit of ``cus`` CUs and the SLR of each (None, () without fabric figures)."""
        fits, slrs = self._in_turn(cus)
        return (fits[cus - 1], slrs[:cus]) if fits else (None, ())

    def _in_turn(self, count: int) -> tuple[list[Fit], tuple[str, ...]]:
        """``_placed(n)`` for an ``n`` of at least ``count``, kept: placing CUs one after
        the other, the first ``count`` are placed alike however many follow, so a plan
        places only as many as it asks about (rung 5 asks about MAX_SPREAD_CUS; the other
        rungs about their few, which makes planning the library several times quicker)."""
        placed = self.__dict__.get("_placed_so_far")  # frozen: kept as cached_property does
        if placed is None or (placed[0] and len(placed[0]) < count):
            placed = self._placed(count)
            self.__dict__["_placed_so_far"] = placed
        return placed

    def _placed(self, count: int) -> tuple[list[Fit], tuple[str, ...]]:
        """The fits of the first 1, 2, ..., ``count`` CUs placed one after the other, and
        the SLR of each (none without fabric figures). A CU goes to the SLR of its
        bank where the banks sit in SLRs of their own; else to its memory's SLR while that
        has room (no SLR crossing), then to the SLR it leaves the most room in. A CU that
        no SLR could hold even empty spans them all (v++ spreads a kernel too large for
        one SLR; UG1393 "Assigning Compute Units to SLRs")."""
        memory = self.memory
        fabric = memory.fabric if memory is not None else None
        if memory is None or fabric is None:
            return [], ()
        regions = range(len(fabric.regions))
        cost = self.cost.total
        used = [Usage() for _ in regions]
        held = [0] * len(fabric.regions)
        masters = [0] * len(fabric.regions)
        placed: list[str] = []
        fits: list[Fit] = []
        too_large = all(_share(cost, fabric.budget(r)) > 1.0 for r in regions)
        local = not memory.shares_one_slr and bool(memory.bank_slrs)
        names = [r.name for r in fabric.regions]
        for cu in range(count):
            for r in self._master_slrs(cu, fabric):
                masters[r] += 1
            if too_large:
                used = [u + cost * (1.0 / len(fabric.regions)) for u in used]
                placed.append(SPANS)
            else:
                slr = memory.bank_slr(self.home_bank(cu))
                home = fabric.index(slr) if slr in names else None
                if local and home is not None:
                    choice = home
                elif home is not None and _share(used[home] + cost, fabric.budget(home)) <= 1:
                    choice = home  # beside its memory while that SLR has room
                else:
                    choice = min(regions, key=lambda r: (
                        _share(used[r] + cost, fabric.budget(r)), r))
                used[choice] = used[choice] + cost
                held[choice] += 1
                placed.append(fabric.regions[choice].name)
            fits.append(Fit(fabric, tuple(held), tuple(used), tuple(masters),
                            (cu + 1) if too_large else 0))
        return fits, tuple(placed)

    def _sized_cus(self) -> int:
        """Rung 5's CU count, among the counts up to MAX_SPREAD_CUS that fit the fabric
        (all of them without fabric figures; 1 when none does, which the build refuses).
        Each CU's ports on banks of their own, as many CUs as the banks hold their ports
        (U55C fp32 add, 3 ports on 32 pseudo-channels: 10 CUs, 93.75 % of the roofline),
        when that count fits and reaches SPREAD_SHARE of the best rate a fitting count
        reaches; else the fewest fitting CUs that reach the best (U250 add: 4 CUs, one per
        DDR4 channel and SLR; U55C sum: 16, the 32 HBM AXI interfaces taking two
        masters each)."""
        memory = self.memory
        assert memory is not None, "a rung sized by its platform is placed on one"
        ports = max(1, len(self.traffic_ports))
        own = max(1, len(memory.banks) // ports) if memory.shares_one_slr or \
            self.bank_per_port else len(memory.banks)
        self._in_turn(MAX_SPREAD_CUS)  # every count below at once
        fitting = [cus for cus in range(1, MAX_SPREAD_CUS + 1) if self._fits(cus)]
        if not fitting:
            return 1
        if not memory.limited:
            return max(c for c in fitting if c <= own) if min(fitting) <= own else min(fitting)

        def rate(cus: int) -> float:
            return min(float(self.arch.lanes * cus), self.feed_rate(cus) or math.inf)

        rates = {cus: rate(cus) for cus in fitting}
        best = max(rates.values())
        if own in rates and rates[own] >= SPREAD_SHARE * best:
            return own
        return min(cus for cus, r in rates.items() if r >= best * (1 - 1e-9))

    def _fits(self, cus: int) -> bool:
        fit = self._fit(cus)[0]
        return fit is None or fit.fits


def _share(used: Usage, budget: Usage) -> float:
    """The largest share of any resource of ``budget`` that ``used`` takes (a resource
    the budget has none of counts only where it is used)."""
    shares = [u / b if b else (math.inf if u else 0.0)
              for u, b in zip(used.values(), budget.values(), strict=True)]
    return max(shares)
