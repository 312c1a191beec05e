"""Shapes: how a kernel's tensors relate, and the stages a shaped kernel computes in.

A spec without ``shapes`` maps same-length inputs to one output element each, or reduces
them all to one value. A spec with ``shapes`` names each tensor's dimensions
(``x: (N, C, *)``, ``weight: (C)``) and gets one of three further kinds:

* ``broadcast``: elementwise, with per-channel operands of shape ``(C)`` applied along
  dimension ``C`` of the main tensor (batch_norm, bias add). What depends on per-channel
  operands only is computed once per channel (:attr:`Staged.channel_values`).
* ``row_reduction``: a reduction at the root, along the last dimension: one result per
  row (the output drops the main shape's last dimension).
* ``row_map``: reductions inside the expression reduce along the last dimension and the
  element expression uses them (softmax: ``exp(x - max(x)) * (1 / sum(exp(x - max(x))))``):
  every row statistic in order (:attr:`Staged.stats`), then the per-row values made of
  them, then one result per element. Per-column operands (``weight: (D)`` where ``D``
  is the last dimension) are per-channel operands whose channel is the column.

Every generator reads :class:`Staged`: its stages are ordinary expression graphs whose
leaves are inputs, scalars and literals, the hoisted values appearing as inputs named
after them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from fpgakern.ir import expr
from fpgakern.ir.ops import Op

ANY = "*"  # any number of dimensions (also none), at most once per shape
_DIM = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,15}")

# The hardware keeps these on chip: a per-channel (per-column) table entry per channel,
# and a whole row per statistic stage. Larger tensors are refused by the host (torch ops
# fall back, with this reason).
MAX_CHANNELS = 4096
MAX_ROW = 4096

ShapedKind = Literal["broadcast", "row_reduction", "row_map"]

# What a reduction along a row of no elements gives, as torch gives it (the sum of
# nothing 0, the product 1, the mean NaN; torch raises for max and min, and the kernels
# write NaN): the reference, the HLS C++ and the RTL all take it from here.
EMPTY_ROW_RESULT: dict[str, float] = {"sum": 0.0, "mean": math.nan, "max": math.nan,
                                      "min": math.nan, "prod": 1.0}

# The size arguments of each kind's kernel, after its scalars (docs/spec-format.md):
# ``n`` elements; for broadcast, element e belongs to channel
# (channel0 + e // inner) % channels; for the row kinds, ``rows`` rows of ``cols``
# elements, each row starting at a multiple of the rung's lanes (Microarchitecture.lanes).
SIZE_ARGS: dict[str, tuple[str, ...]] = {
    "elementwise": ("n",),
    "reduction": ("n",),
    "broadcast": ("n", "inner", "channels", "channel0"),
    "row_reduction": ("rows", "cols"),
    "row_map": ("rows", "cols"),
    # a contraction: ``batch`` products of (m, k) by (k, n) (fpgakern.ir.contraction)
    "contraction": ("batch", "m", "n", "k"),
    # A transform: ``rows`` transforms of length ``n`` (a row of the input holds
    # fpgakern.ir.fft.input_length(n) elements, of the output output_length(n)).
    "transform": ("rows", "n"),
    # A register kernel has no size: its arguments are its scalars and results.
    "registers": (),
}


class ShapeError(ValueError):
    """A problem with ``shapes`` (or with reductions in a shaped expression)."""


def parse_shape(value: object) -> tuple[str, ...]:
    """``"(N, C, *)"``, ``"N, C, *"`` or a list of dimension names -> ``("N", "C", "*")``."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1]
        dims = [d.strip() for d in text.split(",")]
        if dims and dims[-1] == "":  # "(C,)", Python's one-tuple
            dims.pop()
    elif isinstance(value, list):
        dims = value
    else:
        raise ShapeError(f"expected a shape such as (N, C, *), got {value!r}")
    if not dims:
        raise ShapeError("a shape needs at least one dimension")
    for d in dims:
        if not isinstance(d, str) or not (d == ANY or _DIM.fullmatch(d)):
            raise ShapeError(f"{d!r} is not a dimension (a name such as C, or * for any "
                             "number of dimensions)")
    if dims.count(ANY) > 1:
        raise ShapeError("* may stand at most once in a shape")
    if len(set(dims)) != len(dims):
        raise ShapeError(f"a dimension is named twice in ({', '.join(dims)})")
    return tuple(dims)


def show(shape: tuple[str, ...]) -> str:
    return f"({', '.join(shape)})"


@dataclass(frozen=True)
class Layout:
    """The shapes of a shaped kernel's tensors, resolved.

    ``main`` is the first input's shape; ``full_inputs`` have it, ``channel_inputs`` have
    the one dimension ``channel_dim`` of it. ``row_output``: the output drops the main
    shape's last dimension (a row reduction).
    """

    main: tuple[str, ...]
    shapes: tuple[tuple[str, tuple[str, ...]], ...]  # every input and the output, in order
    full_inputs: tuple[str, ...]
    channel_inputs: tuple[str, ...]
    channel_dim: str | None
    row_output: bool

    def shape(self, name: str) -> tuple[str, ...]:
        return dict(self.shapes)[name]

    @property
    def last_dim(self) -> str:
        return self.main[-1]

    @property
    def channel_is_column(self) -> bool:
        return self.channel_dim is not None and self.channel_dim == self.main[-1]


def layout(shapes: Mapping[str, tuple[str, ...]], inputs: tuple[str, ...], output: str,
           root_reduces: bool) -> Layout:
    """Resolve ``shapes`` (name -> dims, for some of the inputs and the output). Raises
    ShapeError naming the tensor at fault."""
    for name in shapes:
        if name not in inputs and name != output:
            raise ShapeError(f"{name!r} is neither an input nor the output "
                             f"(inputs: {', '.join(inputs)}; output: {output})")
    main = shapes.get(inputs[0])
    if main is None:
        raise ShapeError(f"give the first input's shape ({inputs[0]}: (N, C, *), say): it "
                         "is the main tensor the others relate to")
    full, channel = [inputs[0]], []
    channel_dim = None
    for name in inputs[1:]:
        shape = shapes.get(name, main)
        if shape == main:
            full.append(name)
            continue
        if len(shape) != 1 or shape[0] == ANY or shape[0] not in main:
            raise ShapeError(f"{name}: {show(shape)} must be the main shape {show(main)} or "
                             f"one of its named dimensions, such as ({_named(main)[0]})")
        if channel_dim not in (None, shape[0]):
            raise ShapeError(f"{name}: per-channel operands all run along one dimension "
                             f"({channel_dim}), not {shape[0]}")
        channel_dim = shape[0]
        channel.append(name)
    rows_shape = main[:-1]
    default_out = rows_shape if root_reduces else main
    out = shapes.get(output, default_out)
    if out != default_out:
        want = "the main shape without its last dimension" if root_reduces else \
            "the main shape"
        raise ShapeError(f"{output}: {show(out)} must be {want}, {show(default_out)}")
    if root_reduces and (main[-1] == ANY or not rows_shape):
        raise ShapeError(f"{inputs[0]}: {show(main)} needs a named last dimension to reduce "
                         "along, after at least one more, as in (R, D) or (*, D)")
    resolved = tuple((n, shapes.get(n, main)) for n in inputs) + ((output, out),)
    return Layout(main, resolved, tuple(full), tuple(channel), channel_dim, root_reduces)


def _named(shape: tuple[str, ...]) -> list[str]:
    return [d for d in shape if d != ANY] or ["C"]


# ---------------------------------------------------------------------------- stages

Level = Literal["const", "channel", "row", "element"]


@dataclass(frozen=True)
class Hoisted:
    """A value computed once per channel (or column) or once per row, and the
    expression it is computed from (over per-channel inputs, or over statistics)."""

    name: str
    node: expr.Node


@dataclass(frozen=True)
class Stat:
    """A row statistic: ``op`` (a reduction) of ``operand`` over each row. The operand's
    leaves are the full inputs, channel values and earlier statistics and row values."""

    name: str
    op: Op
    operand: expr.Node


@dataclass(frozen=True)
class Staged:
    """A shaped kernel's graph, in the order the hardware computes it.

    ``channel_values`` once per channel; ``stats`` in order, each a pass over the row;
    ``row_values`` once per row, after the statistics they use; then ``body`` per element,
    reduced along the row by ``final`` for a row reduction (None otherwise). Hoisted
    values appear in later stages as :class:`expr.Input` leaves named after them.
    """

    kind: ShapedKind
    channel_values: tuple[Hoisted, ...]
    stats: tuple[Stat, ...]
    row_values: tuple[Hoisted, ...]
    body: expr.Node
    final: Op | None

    def kept_terms(self, dtype: str) -> dict[str, tuple[str, expr.Node]]:
        """Per statistic, the term of its operand the element body computes again that is
        worth keeping in a row buffer ``<stat>_term_row``: the largest sub-expression of
        both that calls a library function (an op judged in ulps: hls::exp, hls::log,
        ...). Reading it back gives the same bits as computing it again. Terms that nest
        (layer_norm's centered value holds the mean's operand) are kept once: the body
        could read back only one of the two."""
        body = {expr.to_text(n) for n in self.body.walk()}
        out: dict[str, tuple[str, expr.Node]] = {}
        for stat in self.stats:
            shared = [n for n in stat.operand.walk()
                      if isinstance(n, expr.Apply) and expr.to_text(n) in body
                      and any(isinstance(m, expr.Apply) and m.op.accuracy_for(dtype).kind == "ulp"
                              for m in n.walk())
                      and not any(_nested(n, k) for _, k in out.values())]
            if shared:  # walk() yields operands first: the last is the largest
                out[stat.name] = (f"{stat.name}_term", shared[-1])
        return out

    def element_inputs(self, full_inputs: tuple[str, ...]) -> tuple[str, ...]:
        """What the per-element stage reads: full inputs, then channel values, statistics
        and row values it uses, in that order."""
        used = {n.name for n in self.body.walk() if isinstance(n, expr.Input)}
        hoisted = [*(h.name for h in self.channel_values), *(s.name for s in self.stats),
                   *(h.name for h in self.row_values)]
        return tuple(x for x in [*full_inputs, *hoisted] if x in used)


def _nested(a: expr.Node, b: expr.Node) -> bool:
    """Whether one of the two expressions is a sub-expression of the other."""
    return (expr.to_text(a) in {expr.to_text(n) for n in b.walk()}
            or expr.to_text(b) in {expr.to_text(n) for n in a.walk()})


def stage(root: expr.Node, lay: Layout, names: Mapping[str, str]) -> Staged:
    """Split ``root`` into stages. ``names`` maps the canonical text of let-bound
    expressions to their names (hoisted values keep the name the spec gave them)."""
    return _Stager(lay, names).run(root)


class _Stager:
    def __init__(self, lay: Layout, names: Mapping[str, str]) -> None:
        self.lay = lay
        self.names = names
        self.channel: dict[str, Hoisted] = {}
        self.stats: dict[str, Stat] = {}
        self.rows: dict[str, Hoisted] = {}

    def run(self, root: expr.Node) -> Staged:
        final = None
        if self.lay.row_output:
            assert isinstance(root, expr.Apply) and root.op.kind == "reduce"
            final = root.op
            root = root.args[0]
        if final is not None and final.picks is not None:
            raise ShapeError(f"{final.name}() along a dimension is not supported yet "
                             "(index reductions reduce all elements)")
        level = self.level(root)
        if level != "element":
            what = {"const": "literals and scalars", "channel": "per-channel operands",
                    "row": "row statistics"}[level]
            raise ShapeError(f"the result depends only on {what}; it must depend on the "
                             "main tensor's elements")
        body = self.element(root)
        reducing = bool(self.stats) or final is not None
        kind: ShapedKind = ("row_reduction" if final is not None
                            else "row_map" if self.stats else "broadcast")
        if reducing and self.lay.channel_dim is not None and not self.lay.channel_is_column:
            raise ShapeError(f"per-channel operands of a kernel that reduces along the last "
                             f"dimension ({self.lay.last_dim}) must run along it too, not "
                             f"along {self.lay.channel_dim}")
        if reducing and self.lay.main[-1] == ANY:
            raise ShapeError(f"{show(self.lay.main)}: reductions run along the last "
                             "dimension, which must be named, as in (*, D)")
        return Staged(kind, tuple(self.channel.values()), tuple(self.stats.values()),
                      tuple(self.rows.values()), body, final)

    def level(self, node: expr.Node) -> Level:
        match node:
            case expr.Input(name=name):
                return "channel" if name in self.lay.channel_inputs else "element"
            case expr.Scalar() | expr.Const():
                return "const"
            case expr.Apply(op=op) if op.kind == "reduce":
                if op.picks is not None:
                    raise ShapeError(f"{op.name}() along a dimension is not supported yet")
                if self.level(node.args[0]) != "element":
                    raise ShapeError(f"{expr.to_text(node)}: a row statistic must reduce "
                                     "values of the main tensor's elements")
                return "row"
            case expr.Apply(args=args):
                levels = {self.level(a) for a in args} - {"const"}
                if not levels:
                    return "const"
                if len(levels) == 1:
                    return levels.pop()
                return "element"
        raise TypeError(node)

    def element(self, node: expr.Node) -> expr.Node:
        """``node`` as the per-element stage computes it: per-channel and per-row parts
        replaced by the hoisted values' names."""
        level = self.level(node)
        if level == "channel":
            return self.channel_ref(node)
        if level == "row":
            return self.row_ref(node)
        if isinstance(node, expr.Apply):
            return expr.Apply(node.dtype, node.op, tuple(self.element(a) for a in node.args))
        return node

    def _name(self, node: expr.Node, prefix: str, taken: Mapping[str, object]) -> str:
        text = expr.to_text(node)
        return self.names.get(text) or f"fk_{prefix}{len(taken)}"

    def channel_ref(self, node: expr.Node) -> expr.Node:
        if isinstance(node, expr.Input):
            return node  # a per-channel input is its own table
        text = expr.to_text(node)
        if text not in self.channel:
            self.channel[text] = Hoisted(self._name(node, "channel", self.channel), node)
        return expr.Input(node.dtype, self.channel[text].name)

    def row_ref(self, node: expr.Node) -> expr.Node:
        text = expr.to_text(node)
        if isinstance(node, expr.Apply) and node.op.kind == "reduce":
            if text not in self.stats:
                operand = self.element(node.args[0])
                name = self.names.get(text) or f"fk_{node.op.name}{len(self.stats)}"
                self.stats[text] = Stat(name, node.op, operand)
            return expr.Input(node.dtype, self.stats[text].name)
        if text not in self.rows:
            row_node = self.row(node)
            self.rows[text] = Hoisted(self._name(node, "row", self.rows), row_node)
        return expr.Input(node.dtype, self.rows[text].name)

    def row(self, node: expr.Node) -> expr.Node:
        """A per-row expression over statistics (and earlier row values)."""
        if isinstance(node, expr.Apply) and node.op.kind == "reduce":
            return self.row_ref(node)
        if isinstance(node, expr.Apply):
            return expr.Apply(node.dtype, node.op, tuple(
                self.row(a) if self.level(a) == "row" else a for a in node.args))
        return node


# ---------------------------------------------------------------------------- sizes

def expand(shape: tuple[str, ...], ndim: int) -> tuple[str, ...] | None:
    """``shape``'s dimension names for a tensor of ``ndim`` dimensions, ``*`` standing for
    as many as are left (named ``*0``, ``*1``...); None if ``ndim`` does not fit."""
    named = len(shape) - (ANY in shape)
    if ndim < named or (ANY not in shape and ndim != named):
        return None
    out: list[str] = []
    for d in shape:
        out += [f"*{i}" for i in range(ndim - named)] if d == ANY else [d]
    return tuple(out)


def sizes(kind: str, lay: Layout, main_shape: tuple[int, ...]) -> dict[str, int]:
    """The size arguments (SIZE_ARGS) of a whole tensor of ``main_shape``: for broadcast
    ``n``, ``inner``, ``channels`` and ``channel0`` = 0; for the row kinds ``rows`` and
    ``cols``. Raises ShapeError if ``main_shape`` does not fit the main shape."""
    dims = expand(lay.main, len(main_shape))
    if dims is None:
        raise ShapeError(f"a tensor of {len(main_shape)} dimensions does not fit "
                         f"{show(lay.main)}")
    total = 1
    for extent in main_shape:
        total *= extent
    if kind == "broadcast":
        assert lay.channel_dim is not None
        axis = dims.index(lay.channel_dim)
        inner = 1
        for extent in main_shape[axis + 1:]:
            inner *= extent
        return {"n": total, "inner": inner, "channels": main_shape[axis], "channel0": 0}
    cols = main_shape[-1]
    rows = 1
    for extent in main_shape[:-1]:  # rows of no columns are rows too (row_reduction)
        rows *= extent
    return {"rows": rows, "cols": cols}


def operand_shape(name: str, lay: Layout, main_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape ``name`` must have beside a main tensor of ``main_shape``."""
    dims = expand(lay.main, len(main_shape))
    assert dims is not None
    extent = dict(zip(dims, main_shape, strict=True))
    shape = lay.shape(name)
    if shape == lay.main:
        return main_shape
    if name == lay.shapes[-1][0] and lay.row_output:
        return main_shape[:-1]
    return tuple(extent[d] for d in shape)
