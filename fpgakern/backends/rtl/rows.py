"""RTL for the row kinds (``row_map``, ``row_reduction``): one read of each input, the row
kept on chip while each statistic is computed.

The kernel is a chain of stages (docs/rtl.md, "Row kernels"): stage k < S computes the
operand of statistic k (``Staged.stats[k]``) per element and reduces it along the row in
one of two accumulators (alternating by row, so one drains while the other takes the next
row), while the row's beats wait in an on-chip row FIFO that feeds stage k + 1; the
statistic's result (finished, for mean, by ``div`` with float(cols)) and the row values
that become computable (``Staged.row_values``) form the row's record, which travels with
the row to later stages. The last stage computes the body per element and writes it
(row_map), or reduces it along the row (row_reduction, ``Staged.final``) and packs one
result per row into the output. Per-column inputs are read once per run into tables
indexed by the beat's position in its row (a table word holds a beat's lanes). Any number
of full-shaped inputs are read in lockstep (``RowDesign.lockstep``): a beat of each, side
by side, is one wide beat into stage 0; where the later stages read them only through
the first statistic's operand (a fused prefix), stage 0 computes it once and the row FIFOs
keep it (``RowDesign.prefix``), else the wide beat travels on through the row FIFOs and
each stage's pipe reads the inputs it uses.
"""

from __future__ import annotations

from dataclasses import dataclass

from fpgakern.backends.rtl import reduce
from fpgakern.backends.rtl.schedule import Datapath, literal, schedule, schedule_outputs
from fpgakern.errors import UsageError
from fpgakern.ir import expr, shapes
from fpgakern.ir.ops import OPS, Op
from fpgakern.ladder import Plan

KINDS = ("row_map", "row_reduction")
RAW = "fk_raw"  # the accumulator's result, as the post pipelines' input
COLS_F = "fk_cols_f"  # float(cols), mean's divider, as a scalar of the post pipelines
PREFIX = "fk_prefix"  # the shared prefix of several full inputs, kept in the row FIFOs
REC_DEPTH = 32  # rows whose records may wait between two stages
SLACK_BEATS = 64  # row FIFO beats beyond one whole row at MAX_ROW


@dataclass(frozen=True)
class Pipe:
    """A scheduled pipeline with the module it is rendered as (None: no operator, the
    result is the input ``bare``)."""

    module: str | None
    dp: Datapath
    bare: str | None

    @property
    def latency(self) -> int:
        return self.dp.latency


@dataclass(frozen=True)
class Post:
    """What a statistic stage adds to the row's record when its statistic is out: the
    statistic, finished, and the row values it completes, from one pipe that shares
    their common parts and delivers them all at its latency (``dp.outputs``; no module
    where every one is the accumulator's result itself)."""

    module: str | None
    dp: Datapath
    fields: tuple[tuple[str, int, str], ...]  # (name, index in the record, pipe signal)

    @property
    def latency(self) -> int:
        return self.dp.latency


@dataclass(frozen=True)
class Acc:
    """A stage's accumulator (two instances alternate by row)."""

    module: str
    partials: int
    empty: str  # the result of an empty row (cols = 0), a 32-bit literal


@dataclass
class Stage:
    k: int
    what: str  # for the comment
    pipe: Pipe
    tables: list[str]  # per-column inputs the pipe reads
    records: list[tuple[str, int]]  # record fields it reads: (name, index)
    acc: Acc | None  # None: the row_map body, written out
    body: bool
    post: Post | None = None  # statistic stages: the record's new fields
    sink_depth: int = 0


@dataclass(frozen=True)
class RowDesign:
    stages: list[Stage]
    record: list[str]  # every hoisted name, in record order
    tables: list[str]
    full: list[str]  # the full-shaped inputs, read in lockstep (a beat of each at once)
    final: Pipe | None  # row_reduction: the result's finish (mean: div, else none)
    # rendered pipes: module -> (expression, dp, lanes); per-row pipes have one lane
    modules: dict[str, tuple[str, Datapath, int]]
    operators: list[str]
    latency: int
    convert: str | None  # int-to-float module for float(cols), where a mean needs it
    convert_latency: int
    prefix: str | None = None  # the prefix's text, where the row FIFOs keep it (PREFIX)

    @property
    def x(self) -> str:
        """The main input (the first full-shaped one)."""
        return self.full[0]

    @property
    def lockstep(self) -> bool:
        """More than one full-shaped input: their beats are read side by side, one wide
        beat into stage 0 and, unless the row FIFOs keep their ``prefix``, on through
        the row FIFOs to the later stages."""
        return len(self.full) > 1


def _pow2_at_least(value: int) -> int:
    return 1 << max(1, (value - 1).bit_length())


def _names(node: expr.Node, kind: type[expr.Input | expr.Scalar]) -> list[str]:
    return list(dict.fromkeys(n.name for n in node.walk() if isinstance(n, kind)))


def _pipe(node: expr.Node, module: str, modules: dict[str, tuple[str, Datapath, int]],
          lanes: int = 1) -> Pipe:
    dp = schedule(node, tuple(_names(node, expr.Input)), tuple(_names(node, expr.Scalar)))
    if not dp.instances:
        return Pipe(None, dp, dp.result.removeprefix("in_"))
    modules[module] = (expr.to_text(node), dp, lanes)
    return Pipe(module, dp, None)


def _post(values: dict[str, expr.Node], record: list[str], module: str,
          modules: dict[str, tuple[str, Datapath, int]]) -> Post:
    roots = list(values.values())
    inputs = tuple(dict.fromkeys(n for r in roots for n in _names(r, expr.Input)))
    scalars = tuple(dict.fromkeys(n for r in roots for n in _names(r, expr.Scalar)))
    dp = schedule_outputs(values, inputs, scalars)
    fields = tuple((name, record.index(name), signal) for name, signal in dp.outputs)
    if not dp.instances:
        return Post(None, dp, fields)
    modules[module] = ("; ".join(f"{n} = {expr.to_text(v)}" for n, v in values.items()),
                       dp, 1)
    return Post(module, dp, fields)


def _substitute(node: expr.Node, values: dict[str, expr.Node]) -> expr.Node:
    if isinstance(node, expr.Input) and node.name in values:
        return values[node.name]
    if isinstance(node, expr.Apply):
        return expr.Apply(node.dtype, node.op, tuple(_substitute(a, values)
                                                     for a in node.args))
    return node


def _finished(op: Op, dtype: str) -> expr.Node:
    """The statistic from the accumulator's result: mean's sum divided by float(cols)."""
    raw = expr.Input(dtype, RAW)
    if op.finish is None:
        return raw
    return expr.Apply(dtype, OPS[op.finish], (raw, expr.Scalar(dtype, COLS_F)))


def _acc(op: Op, dtype: str) -> Acc:
    acc = reduce.accumulator(op.accumulates or op.name, dtype)
    empty = shapes.EMPTY_ROW_RESULT[op.name]
    return Acc(acc.module, op.partials(dtype), literal(empty, dtype))


def _replace(node: expr.Node, text: str, by: expr.Node) -> expr.Node:
    if expr.to_text(node) == text:
        return by
    if isinstance(node, expr.Apply):
        return expr.Apply(node.dtype, node.op, tuple(_replace(a, text, by) for a in node.args))
    return node


def _prefix(staged: shapes.Staged, full: tuple[str, ...]) -> tuple[expr.Node, ...] | None:
    """The later stages' graphs over the shared prefix (``PREFIX``) instead of the full
    inputs, where several full inputs reach them only through the first statistic's
    operand (layer_norm or softmax of a fused prefix h: mean(h), max(h)); None otherwise.
    Stage 0 computes the prefix once and the row FIFOs keep it instead of every input."""
    if len(full) < 2 or not staged.stats:
        return None
    p = staged.stats[0].operand
    later = [s.operand for s in staged.stats[1:]] + [staged.body]
    by = expr.Input(p.dtype, PREFIX)
    replaced = tuple(_replace(n, expr.to_text(p), by) for n in later)
    if any(set(_names(n, expr.Input)) & set(full) for n in replaced):
        return None
    return replaced


def check(plan: Plan) -> None:
    kernel = plan.kernel
    layout = kernel.layout
    assert layout is not None
    if not plan.dtype.is_float:
        raise UsageError(f"{kernel.qualname}: the RTL {kernel.kind} kernel is float32 only")


def design(plan: Plan) -> RowDesign:
    """The stages of ``plan``'s row kernel (raises UsageError or NoRtlOperator)."""
    check(plan)
    kernel, dtype = plan.kernel, plan.dtype.name
    staged = kernel.staged(dtype)
    layout = kernel.layout
    assert staged is not None and layout is not None
    record = [s.name for s in staged.stats] + [h.name for h in staged.row_values]
    tables = list(layout.channel_inputs)
    modules: dict[str, tuple[str, Datapath, int]] = {}
    operators: list[str] = []
    known: set[str] = set()
    pending = list(staged.row_values)
    stages: list[Stage] = []
    graphs = _prefix(staged, layout.full_inputs)
    prefix = None if graphs is None else expr.to_text(staged.stats[0].operand)
    operands = [s.operand for s in staged.stats]
    body_node = staged.body
    if graphs is not None:
        operands[1:], body_node = graphs[:-1], graphs[-1]

    def stage_of(k: int, node: expr.Node, what: str, acc: Acc | None, body: bool) -> Stage:
        pipe = _pipe(node, f"{plan.top}_s{k}", modules, plan.arch.lanes)
        leaves = _names(node, expr.Input)
        return Stage(k, what, pipe, [t for t in tables if t in leaves],
                     [(n, record.index(n)) for n in leaves if n in record], acc, body)

    for k, stat in enumerate(staged.stats):
        st = stage_of(k, operands[k], f"{stat.name} = {stat.op.name}("
                      f"{expr.to_text(operands[k])}) along the row", _acc(stat.op, dtype),
                      False)
        values: dict[str, expr.Node] = {stat.name: _finished(stat.op, dtype)}
        known.add(stat.name)
        for h in list(pending):
            if set(_names(h.node, expr.Input)) <= known:
                values[h.name] = _substitute(h.node, values)
                known.add(h.name)
                pending.remove(h)
        st.post = _post(values, record, f"{plan.top}_s{k}_row", modules)
        stages.append(st)
    assert not pending, "row values depend only on statistics"
    final = None
    if staged.final is not None:
        body = stage_of(len(stages), body_node, f"{staged.final.name}("
                        f"{expr.to_text(body_node)}) along the row, one result per row",
                        _acc(staged.final, dtype), True)
        final = _pipe(_finished(staged.final, dtype), f"{plan.top}_final", modules)
    else:
        body = stage_of(len(stages), body_node, f"{kernel.output} = "
                        f"{expr.to_text(body_node)} per element", None, True)
    stages.append(body)
    for st in stages:
        # The sink (accumulator FIFO or output FIFO) covers the pipe's latency, the table
        # register and the credit loop, so a stage issues a beat per cycle.
        st.sink_depth = max(16, _pow2_at_least(st.pipe.latency + 1 + 8))
    for acc in accumulators(plan):
        operators += acc.operators
    for _, dp, _ in modules.values():
        operators += dp.modules
    uses_mean = any(s.op.finish for s in staged.stats) or (
        staged.final is not None and staged.final.finish is not None)
    convert, convert_latency = None, 0
    if uses_mean:
        impl = OPS["to_" + dtype].rtl["int32"]
        convert, convert_latency = impl.module, impl.latency
        operators.append(convert)
    return RowDesign(stages, record, tables, list(layout.full_inputs), final, modules,
                     list(dict.fromkeys(operators)), body.pipe.latency, convert,
                     convert_latency, prefix)


def max_row_beats(plan: Plan) -> int:
    return shapes.MAX_ROW // plan.arch.lanes


def row_fifo_depth(plan: Plan) -> int:
    """A whole row at MAX_ROW plus slack, so that the next row streams in meanwhile."""
    return _pow2_at_least(max_row_beats(plan) + SLACK_BEATS)


def rows_in_flight(plan: Plan) -> int:
    """Rows between the first stage and the last at once: one at the sequential rungs
    (read, statistics, body in turn), unlimited (0) at the dataflow rungs."""
    return 0 if plan.rung.dataflow else 1


def accumulators(plan: Plan) -> list[reduce.Accumulator]:
    """The accumulator modules the kernel ships (generated beside its top)."""
    staged = plan.kernel.staged(plan.dtype.name)
    assert staged is not None
    ops = [s.op for s in staged.stats] + ([staged.final] if staged.final else [])
    names = dict.fromkeys(op.accumulates or op.name for op in ops)
    return [reduce.accumulator(name, plan.dtype.name) for name in names]
