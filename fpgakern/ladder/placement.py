"""Where a variant runs: how many compute units, and which memory bank each of their
ports uses. Rung 5 chooses its compute units from what the memory system's banks feed."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from fpgakern.ladder.memory import MemorySystem
from fpgakern.ladder.microarch import Microarchitecture

# The most compute units rung 5 considers (a platform allows up to 128), and the share of
# the best rate for which it keeps each port on a bank of its own rather than adding CUs
# that share banks (fewer CUs: less area for a few per cent of bandwidth).
MAX_SPREAD_CUS = 64
SPREAD_SHARE = 0.9


@dataclass(frozen=True)
class Placement:
    """The compute units of one variant on its memory system (None: memory without a
    bandwidth limit, every CU on a bank of its own), with the default placement (all of
    a CU's ports on its bank) or, with ``bank_per_port`` or at a rung that spreads its
    ports (rung 5), each port on a bank of its own."""

    arch: Microarchitecture
    memory: MemorySystem | None
    bank_per_port: bool

    @cached_property
    def compute_units(self) -> int:
        """CUs: the spec's N at rung 3; at rung 5 as many as the memory system feeds (the
        fewest that reach the highest rate, :meth:`_spread_cus`); else 1."""
        rung = self.arch.rung
        if rung.spread_ports:
            return self._spread_cus()
        return self.arch.kernel.compute_units if rung.multi_cu else 1

    def port_bank(self, cu: int, pointer: str) -> int:
        """The index in ``memory.banks`` of the bank ``pointer`` of compute unit ``cu``
        uses. The default placement puts all of a CU's ports on its bank (CU i on bank
        i); with a bank per port, the data-moving ports of all CUs take the banks in turn
        (CU c's k-th on bank c * ports + k), and a reduction's output shares its CU's
        first bank. Before dataflow a CU has one port (one bundle): one bank."""
        banks = len(self.memory.banks) if self.memory else 1 << 30
        rung = self.arch.rung
        spread = (self.bank_per_port or rung.spread_ports) and rung.dataflow
        if not spread:
            return cu % banks
        traffic = self.arch.traffic_pointers or self.arch.pointers
        index = traffic.index(pointer) if pointer in traffic else 0
        return (cu * len(traffic) + index) % banks

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

    def _spread_cus(self) -> int:
        """Rung 5's CU count. Each data-moving port on a bank of its own (as many CUs as
        the banks hold their ports: U55C fp32 add, 3 ports on 32 pseudo-channels, 10 CUs,
        93.75 % of the roofline) when that reaches SPREAD_SHARE of the best rate any
        count up to MAX_SPREAD_CUS reaches; else the fewest CUs that reach the best,
        sharing banks evenly (U250 add: 4 CUs, 3 ports on each DDR4 channel)."""
        memory = self.memory
        assert memory is not None, "a rung sized by its memory system is placed on one"
        ports = max(1, len(self.arch.traffic_pointers))
        own = max(1, len(memory.banks) // ports)
        if not memory.limited:
            return own

        def rate(cus: int) -> float:
            return min(float(self.arch.lanes * cus), self.feed_rate(cus) or math.inf)

        rates = {cus: rate(cus) for cus in range(1, MAX_SPREAD_CUS + 1)}
        best = max(rates.values())
        if rates[min(own, MAX_SPREAD_CUS)] >= SPREAD_SHARE * best:
            return min(own, MAX_SPREAD_CUS)
        return min(cus for cus, r in rates.items() if r >= best * (1 - 1e-9))
