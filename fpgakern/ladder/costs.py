"""What one compute unit takes of the fabric, estimated from the code generated for it.

A CU's cost is three parts (docs/link.md, "Resources"):

* its on-chip memories (``Microarchitecture.memories``: chunk buffers, FIFOs, tables,
  row buffers, lane copies), each mapped to the block RAM or UltraRAM primitives that
  hold it (:func:`memory_usage`);
* its operators: every operator instance the RTL schedules for the element pipeline, once
  per lane, and those that run once per channel or row, each at the cost Yosys measured
  for its module alone (``costs.json`` ``operators``: the table of docs/operators.md);
* the rest of the CU (AXI engines, control, FIFO logic, delay lines), measured with Yosys
  on one reference kernel of each kind and rung whose operators are subtracted
  (``costs.json`` ``overheads``).

``python benchmarks/resources.py --calibrate`` measures both tables again with Yosys
(``fpgakern.backends.rtl.resources``) and rewrites ``costs.json``. These are synthesis
estimates without place and route, held against whole-kernel Yosys runs by the tests.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fpgakern.ir import complex_lowering, expr, fft
from fpgakern.ir.ops import OPS, Op
from fpgakern.ladder.fabric import Usage
from fpgakern.ladder.microarch import Microarchitecture, OnChipMemory

COSTS_FILE = Path(__file__).resolve().with_name("costs.json")

# Block RAM shapes (words, bits) and what each costs in BRAM36: a RAMB36E2 or half of one
# (a RAMB18E2), in their true dual port and (the widest) simple dual port forms (UG573).
_BRAM_SHAPES: tuple[tuple[int, int, float], ...] = (
    (32768, 1, 1.0), (16384, 2, 1.0), (8192, 4, 1.0), (4096, 9, 1.0), (2048, 18, 1.0),
    (1024, 36, 1.0), (512, 72, 1.0),
    (16384, 1, 0.5), (8192, 2, 0.5), (4096, 4, 0.5), (2048, 9, 0.5), (1024, 18, 0.5),
    (512, 36, 0.5))
# An UltraRAM (URAM288) is 4096 words of 72 bits (UG573).
_URAM_WORDS, _URAM_BITS = 4096, 72
# Arrays this shallow go to LUT RAM when the tools choose (as Yosys maps the RTL's 64-deep
# FIFOs); their LUTs are in the measured overhead of the CU, not counted again here.
_LUTRAM_WORDS = 64
# Where a rung's CU is the CU of another rung (rung 3 is rung 2's kernel, rung 5 rung 4's).
_SAME_CU = {3: 2, 5: 4}


@functools.cache
def _table() -> dict[str, Any]:
    return dict(json.loads(COSTS_FILE.read_text(encoding="utf-8")))


def operator_cost(module: str) -> Usage | None:
    """Yosys's figures for an RTL operator module alone; None where none is recorded."""
    figures = _table()["operators"].get(module)
    return None if figures is None else Usage.from_json(figures)


def overhead(kind: str, rung: int) -> Usage:
    """The measured cost of a CU of ``kind`` at ``rung`` beyond its operators and block
    memories; the elementwise kind's where no kernel of the kind was measured."""
    by_kind = _table()["overheads"]
    rung = _SAME_CU.get(rung, rung)
    figures = by_kind.get(kind, {}).get(str(rung)) or by_kind["elementwise"].get(str(rung))
    return Usage.from_json(figures or {})


def memory_usage(memory: OnChipMemory) -> Usage:
    """The block RAM (BRAM36 equivalents) or UltraRAM that holds ``memory``: the fewest
    primitives of any shape, for each copy; nothing for registers and LUT RAM."""
    storage = memory.storage
    if storage == "auto":
        storage = "lutram" if memory.words <= _LUTRAM_WORDS else "bram"
    if storage == "uram":
        blocks = math.ceil(memory.words / _URAM_WORDS) * math.ceil(memory.bits / _URAM_BITS)
        return Usage(uram=blocks * memory.copies)
    if storage != "bram":
        return Usage()
    bram = min(math.ceil(memory.words / words) * math.ceil(memory.bits / bits) * weight
               for words, bits, weight in _BRAM_SHAPES)
    return Usage(bram=bram * memory.copies)


@dataclass(frozen=True)
class CuCost:
    """One compute unit's estimated cost: its logic (operators and the rest), each
    on-chip memory with its blocks, the AXI masters it has, and the operator modules the
    estimate has no figure for."""

    logic: Usage
    memories: tuple[tuple[OnChipMemory, Usage], ...]
    masters: int
    unknown: tuple[str, ...] = ()

    @property
    def total(self) -> Usage:
        out = self.logic
        for _, blocks in self.memories:
            out = out + blocks
        return out

    def to_json(self) -> dict[str, Any]:
        return {"total": {k: round(v, 1) for k, v in self.total.items()},
                "logic": {k: round(v, 1) for k, v in self.logic.items()},
                "memories": [{"name": m.name, "words": m.words, "bits": m.bits,
                              "copies": m.copies, **{k: v for k, v in b.items() if v}}
                             for m, b in self.memories],
                "axi_masters": self.masters, "unknown": list(self.unknown)}


@dataclass(frozen=True)
class _Pipeline:
    """Operator instances of one scheduled pipeline (structurally equal sub-expressions
    once, as the RTL schedule computes them) and its latency in cycles."""

    modules: tuple[str, ...]
    latency: int


def _pipeline(roots: list[expr.Node]) -> _Pipeline:
    """The instances and latency the RTL schedule (fpgakern.backends.rtl.schedule) gives
    ``roots``: one instance per distinct application, at the op table's RTL operator
    for its operands' dtype, each starting when its last operand is ready."""
    ready: dict[tuple[str, str], int] = {}
    modules: list[str] = []

    def visit(node: expr.Node) -> int:
        key = (expr.to_text(node), node.dtype)
        if key in ready:
            return ready[key]
        start = 0
        if isinstance(node, expr.Apply):
            start = max((visit(a) for a in node.args), default=0)
            operand = next((a.dtype for a in node.args if a.dtype != expr.BOOL), node.dtype)
            impl = node.op.rtl.get(operand)
            if impl is not None:
                modules.append(impl.module)
                start += impl.latency
        ready[key] = start
        return start

    latency = max((visit(r) for r in roots), default=0)
    return _Pipeline(tuple(modules), latency)


def _element_roots(arch: Microarchitecture, body: expr.Node) -> list[expr.Node]:
    """The float32 graphs the RTL computes for ``body``: a complex64 body's lowering."""
    if not arch.dtype.is_complex:
        return [body]
    inputs = arch.kernel.inputs
    if body.dtype != complex_lowering.C64:
        return [complex_lowering.lower_real(body, inputs)[0]]
    return list(complex_lowering.lower(body, inputs).roots.values())


def _accumulator(op: Op, dtype: str, lanes: int) -> list[str]:
    """The modules of a reduction's accumulator at ``lanes``: the accumulator (with one
    combine operator) and the lane tree's ``lanes - 1`` more."""
    impl = op.rtl.get(dtype)
    if impl is None:
        return []
    combine = OPS[op.combine].rtl.get(dtype) if op.combine else None
    tree = [combine.module] * (lanes - 1) if combine is not None and op.picks is None else []
    return [impl.module, *tree]


def _logic_modules(arch: Microarchitecture) -> tuple[list[str], list[str], int]:
    """(modules once per lane, modules once per CU, element pipeline latency)."""
    kernel, dtype = arch.kernel, arch.dtype.name
    if kernel.kind == "transform":
        # One butterfly per stage of the streaming pipeline per lane; one at rungs 0-1.
        stages = fft.MAX_FFT.bit_length() - 1 if arch.rung.dataflow else 1
        return ["fk_fft_butterfly"] * stages, [], 0
    staged = kernel.staged(dtype)
    body = _pipeline(_element_roots(arch, kernel.elementwise_body(dtype)))
    per_lane, once = list(body.modules), []
    if kernel.reduction is not None:
        once += _accumulator(kernel.reduction, dtype, arch.lanes)
    if staged is not None:
        once += _pipeline([v.node for v in staged.channel_values]).modules
        once += _pipeline([v.node for v in staged.row_values]).modules
        for stat in staged.stats:
            per_lane += _pipeline([stat.operand]).modules
            once += _accumulator(OPS[stat.op.accumulates or stat.op.name], dtype, arch.lanes)
        if staged.final is not None:
            once += _accumulator(staged.final, dtype, arch.lanes)
    return per_lane, once, body.latency


def cu_cost(arch: Microarchitecture) -> CuCost:
    """The estimated cost of one compute unit of ``arch``."""
    per_lane, once, latency = _logic_modules(arch)
    logic = overhead(arch.kernel.kind, arch.rung.index)
    unknown: list[str] = []
    for modules, times in ((per_lane, arch.lanes), (once, 1)):
        for module in modules:
            cost = operator_cost(module)
            if cost is None:
                unknown.append(module)
            else:
                logic = logic + cost * times
    memories = tuple((m, memory_usage(m)) for m in arch.memories(latency))
    return CuCost(logic, memories, len(arch.bundles), tuple(dict.fromkeys(unknown)))


def operator_logic(arch: Microarchitecture) -> Usage:
    """The operators' share of :func:`cu_cost`'s logic (what calibration subtracts from a
    whole-kernel measurement to leave the CU's overhead)."""
    per_lane, once, _ = _logic_modules(arch)
    out = Usage()
    for modules, times in ((per_lane, arch.lanes), (once, 1)):
        for module in modules:
            out = out + (operator_cost(module) or Usage()) * times
    return out
