"""Spelling a shaped kernel's stages (fpgakern.ir.shapes.Staged) in C++.

The broadcast and row templates (hls_templates/broadcast, row_map, row_reduction) are
written in terms of this: which inputs are full tensors and which per-channel (or
per-column) tables, the channel values computed once per channel, each row statistic's
operand, combine, identity and finish, the row values, and the element body, each an
expression whose leaves are spelled where the template keeps them (``x_row[j]``,
``scale_tab[c]``, a local ``fk_max0``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

from fpgakern.backends.hls.cexpr import expression, literal
from fpgakern.ir import expr, shapes
from fpgakern.ir.ops import OPS, Op
from fpgakern.ladder import Plan


@dataclass(frozen=True)
class Reduction:
    """One reduction along the row, spelled: the statistic's (or the row reduction's)
    name, its operand over element ``j``, and the C++ of its combine, identity, finish."""

    name: str
    op: Op
    operand: str
    identity: str
    partials: int  # interleaved partial results of the accumulate loop (Op.hls_partials)
    # A term of the operand the element body needs again (softmax's exp): its local name
    # and its C++ over element ``j``. The pass computes it once, keeps it in the row
    # buffer ``<keep>_row`` and the operand (spelled with the name) and the body read it.
    keep: tuple[str, str] | None = None

    def combine(self, left: str, right: str) -> str:
        assert self.op.combine is not None
        return OPS[self.op.combine].hls_call(left, right)

    def finish(self, combined: str, count: str, ctype: str) -> str:
        """The statistic from the combined value and the row's element count (an int)."""
        if self.op.finish is None:
            return combined
        return OPS[self.op.finish].hls_call(combined, f"static_cast<{ctype}>({count})")

    @property
    def empty(self) -> str:
        value = shapes.EMPTY_ROW_RESULT[self.op.name]
        return "fk::kFloatNaN" if math.isnan(value) else literal(value, "float32")


@dataclass(frozen=True)
class ShapedSpelling:
    plan: Plan

    @property
    def staged(self) -> shapes.Staged:
        staged = self.plan.kernel.staged(self.plan.dtype.name)
        assert staged is not None, f"{self.plan.kernel.qualname} is not a shaped kernel"
        return staged

    @property
    def layout(self) -> shapes.Layout:
        lay = self.plan.kernel.layout
        assert lay is not None
        return lay

    @property
    def full_inputs(self) -> tuple[str, ...]:
        return self.layout.full_inputs

    @property
    def channel_inputs(self) -> tuple[str, ...]:
        return self.layout.channel_inputs

    @property
    def scalars(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.plan.kernel.scalars)

    @property
    def max_channels(self) -> int:
        return shapes.MAX_CHANNELS

    @property
    def max_row(self) -> int:
        return shapes.MAX_ROW

    # ------------------------------------------------------------------ broadcast

    def channel_values(self, index: str) -> list[tuple[str, str]]:
        """(name, C++) of each channel value, computed at channel ``index`` from the
        per-channel tables and earlier channel values (``<name>_tab[index]``)."""
        names = {n: f"{n}_tab[{index}]" for n in self.channel_inputs}
        names.update({s: s for s in self.scalars})
        out = []
        for value in self.staged.channel_values:
            out.append((value.name, expression(value.node, names)))
            names[value.name] = f"{value.name}_tab[{index}]"
        return out

    @property
    def element_tables(self) -> tuple[str, ...]:
        """The per-channel tables (inputs and channel values) the element body reads."""
        used = {n.name for n in self.staged.body.walk() if isinstance(n, expr.Input)}
        tables = [*self.channel_inputs, *(h.name for h in self.staged.channel_values)]
        return tuple(t for t in tables if t in used)

    @property
    def body_scalars(self) -> tuple[str, ...]:
        """The scalars the element body reads (the others feed channel values only)."""
        used = {n.name for n in self.staged.body.walk() if isinstance(n, expr.Scalar)}
        return tuple(x for x in self.scalars if x in used)

    def body(self, full: str, table: str) -> str:
        """The element body: full input ``x`` spelled ``x<full>``, table ``t`` ``t<table>``."""
        names = {n: f"{n}{full}" for n in self.full_inputs}
        names.update({t: f"{t}{table}" for t in
                      [*self.channel_inputs, *(h.name for h in self.staged.channel_values)]})
        names.update({s: s for s in self.scalars})
        return expression(self.staged.body, names)

    # ------------------------------------------------------------------ rows

    def _row_names(self, j: str) -> dict[str, str]:
        names = {n: f"{n}_row[{j}]" for n in self.full_inputs}
        names.update({n: f"{n}_tab[{j}]" for n in self.channel_inputs})
        names.update({s: s for s in self.scalars})
        names.update({s.name: s.name for s in self.staged.stats})
        names.update({h.name: h.name for h in self.staged.row_values})
        return names

    def _reduction(self, name: str, op: Op, operand: expr.Node, j: str) -> Reduction:
        dtype = self.plan.dtype.name
        return Reduction(name, op, expression(operand, self._row_names(j)),
                         literal(op.identity[dtype], dtype), op.hls_partials(dtype))

    @functools.cached_property
    def kept(self) -> dict[str, tuple[str, expr.Node]]:
        """Per statistic, the term the element body reads back from a row buffer
        (:meth:`fpgakern.ir.shapes.Staged.kept_terms`), found once per spelling: the
        templates spell the statistics and the body several times."""
        return self.staged.kept_terms(self.plan.dtype.name)

    def stats(self, j: str) -> list[Reduction]:
        """The row statistics in order, each operand over element ``j`` of the row."""
        out = []
        kept = self.kept
        for s in self.staged.stats:
            red = self._reduction(s.name, s.op, s.operand, j)
            if s.name in kept:
                local, node = kept[s.name]
                names = {**self._row_names(j), local: local}
                red = dataclasses.replace(
                    red, operand=expression(_replace(s.operand, node, local), names),
                    keep=(local, expression(node, self._row_names(j))))
            out.append(red)
        return out

    @property
    def row_values(self) -> list[tuple[str, str]]:
        names = self._row_names("0")
        return [(h.name, expression(h.node, names)) for h in self.staged.row_values]

    def row_body(self, j: str) -> str:
        """The element body over element ``j``, kept terms read from their row buffers."""
        body, names = self.staged.body, self._row_names(j)
        for local, node in self.kept.values():
            body = _replace(body, node, local)
            names[local] = f"{local}_row[{j}]"
        return expression(body, names)

    def final(self, j: str) -> Reduction | None:
        """A row reduction's own reduction of the body, None for a row map."""
        staged = self.staged
        if staged.final is None:
            return None
        red = self._reduction(self.plan.kernel.output, staged.final, staged.body, j)
        return dataclasses.replace(red, operand=self.row_body(j)) if self.kept else red


def _replace(node: expr.Node, term: expr.Node, name: str) -> expr.Node:
    """``node`` with every occurrence of ``term`` read as the input ``name``."""
    if expr.to_text(node) == expr.to_text(term):
        return expr.Input(node.dtype, name)
    if isinstance(node, expr.Apply):
        return dataclasses.replace(node, args=tuple(_replace(a, term, name) for a in node.args))
    return node
