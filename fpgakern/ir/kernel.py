"""The kernel IR: one validated kernel spec, typed per dtype."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fpgakern.ir import expr
from fpgakern.ir.dtypes import DTYPES, RESULT_DTYPES, DType
from fpgakern.ir.ops import Accuracy, Op

# What shape of computation a kernel is; every generator and checker dispatches on it,
# never on the folder (category) a spec sits in. Kinds to come (DESIGN.md): broadcast
# operands, reductions along a dimension, reduce-then-map (softmax), transforms (FFT).
KernelKind = Literal["elementwise", "reduction"]
KINDS: tuple[KernelKind, ...] = ("elementwise", "reduction")


@dataclass(frozen=True)
class ScalarArg:
    """A scalar kernel argument with its default (torch.add's ``alpha=1``)."""

    name: str
    default: float | int


@dataclass(frozen=True)
class Kernel:
    """A kernel of the library, as its spec declares it."""

    name: str
    category: str
    doc: str
    mirrors: str | None
    inputs: tuple[str, ...]
    scalars: tuple[ScalarArg, ...]
    outputs: tuple[str, ...]
    dtypes: tuple[str, ...]
    expression: str
    rungs: tuple[int, ...]
    compute_units: int
    source: Path

    @property
    def qualname(self) -> str:
        """``category/name``, the way users name a kernel on the command line."""
        return f"{self.category}/{self.name}"

    @property
    def output(self) -> str:
        return self.outputs[0]

    def top_name(self, dtype_name: str) -> str:
        """The C/RTL top name of one dtype variant, unique across the library: ``add_f32``."""
        return f"{self.name}_{DTYPES[dtype_name].short}"

    @functools.cached_property
    def _graphs(self) -> dict[str, expr.Node]:
        return {d: self._parse(d) for d in self.dtypes}

    def _parse(self, dtype_name: str) -> expr.Node:
        inputs = dict.fromkeys(self.inputs, dtype_name)
        scalars = {s.name: dtype_name for s in self.scalars}
        return expr.parse(self.expression, inputs, scalars)

    def graph(self, dtype_name: str) -> expr.Node:
        """The typed expression graph for one dtype."""
        return self._graphs[dtype_name]

    @property
    def reduction(self) -> Op | None:
        """The reduction op at the root, or None for an elementwise kernel."""
        return expr.reduction_of(self.graph(self.dtypes[0]))

    @property
    def is_reduction(self) -> bool:
        return self.reduction is not None

    @property
    def kind(self) -> KernelKind:
        """``elementwise`` (n elements in, n out) or ``reduction`` (all elements to one),
        from the expression alone: a ``sum(...)`` in any category is a reduction."""
        return "reduction" if self.is_reduction else "elementwise"

    def elementwise_body(self, dtype_name: str) -> expr.Node:
        """The per-element part: the whole graph, or the reduction's operand."""
        root = self.graph(dtype_name)
        return root.args[0] if self.is_reduction and isinstance(root, expr.Apply) else root

    def output_dtype(self, dtype_name: str) -> DType:
        return RESULT_DTYPES[self.graph(dtype_name).dtype]

    def accuracy(self, dtype_name: str) -> Accuracy:
        """The loosest accuracy class among the ops the kernel applies (exact < ulp <
        reduction); ulp bounds add up along a chain of inexact ops. Every verifier (csim's
        testbench, fpgakern's own comparison) holds results to it."""
        classes = [op.accuracy_for(dtype_name) for op in self.ops_used(dtype_name)]
        reductions = [a for a in classes if a.kind == "reduction"]
        if reductions:  # one at most: a reduction stands only at the root
            return reductions[0]
        ulps = sum(a.ulps for a in classes if a.kind == "ulp")
        return Accuracy("ulp", ulps) if ulps else Accuracy("exact")

    def ops_used(self, dtype_name: str) -> list[Op]:
        """Each op the expression applies, once, in evaluation order."""
        seen: dict[str, Op] = {}
        for node in self.graph(dtype_name).walk():
            if isinstance(node, expr.Apply):
                seen.setdefault(node.op.name, node.op)
        return list(seen.values())
