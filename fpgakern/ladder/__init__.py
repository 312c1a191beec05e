"""The optimization ladder: the rungs, a variant's identity, and the plan a rung makes
of one kernel on one memory system.

Every generator (HLS C++, RTL, host, link) reads a :class:`Plan`; none of them branches
on a rung number. A plan is its :class:`Variant` (kernel, rung, dtype, memory system,
port placement) and three parts, each a module of its own:

* ``plan.arch`` (:mod:`~fpgakern.ladder.microarch`): bursts, lanes, ports, bundles,
  the accumulator's interleave;
* ``plan.placement`` (:mod:`~fpgakern.ladder.placement`): compute units, the bank of
  each of their ports, the SLR of each CU and what they take of the fabric (the cost
  model in :mod:`~fpgakern.ladder.costs`, the budgets in :mod:`~fpgakern.ladder.fabric`);
* ``plan.performance`` (:mod:`~fpgakern.ladder.performance`): the ideal, compute,
  memory and roofline rates in elements per cycle.

The rungs themselves are in :mod:`~fpgakern.ladder.rungs`, the memory system in
:mod:`~fpgakern.ladder.memory`.
"""

from fpgakern.ladder.memory import DEFAULT_MEMORY, MemorySystem
from fpgakern.ladder.microarch import AXI_BOUNDARY_BYTES, Microarchitecture
from fpgakern.ladder.performance import TRANSFORM_IDEAL_N, Performance
from fpgakern.ladder.placement import Placement
from fpgakern.ladder.plans import Plan, plan, platform_plan
from fpgakern.ladder.rungs import (
    AXI_BURST_MAX_BEATS,
    DEFAULT_RUNGS,
    LAST_RUNG,
    RUNGS,
    Rung,
    builds,
    not_built,
    rung,
)
from fpgakern.ladder.variant import Variant

__all__ = ["AXI_BOUNDARY_BYTES", "AXI_BURST_MAX_BEATS", "DEFAULT_MEMORY", "DEFAULT_RUNGS",
           "LAST_RUNG", "RUNGS", "MemorySystem", "Microarchitecture", "Performance",
           "Placement", "Plan", "Rung", "TRANSFORM_IDEAL_N", "Variant", "builds",
           "not_built", "plan", "platform_plan", "rung"]
