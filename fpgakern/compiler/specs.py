"""A fused group of nodes written as a kernel spec, the same YAML a user writes.

Each node but the last becomes a ``let`` named after its position and operator
(``v0_sigmoid``), the last one the ``expression``; tensors from outside the group are the
inputs (``in0``, ``in1`` ...), the first of them one of the result's shape (the spec's
main tensor). The kernel's name is a hash
of the rest of the spec, so one computation always gets one name, in any model and any
process: the build cache and the emulation models then serve it again.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import torch
import yaml
from torch import fx

from fpgakern.compiler.support import Term, library_kernel, operand, own, substitute

CATEGORY = "compiled"
CATEGORY_DOC = "Kernels fused by fpgakern's torch.compile backend (written by it)."
NAME_PREFIX = "fused_"
_MAX_NAME = 16  # of a step name's operator part: names stay within 31 characters
_RESERVED_ENDINGS = ("_buf", "_v", "_stream", "_path")
# Row statistics count into a rows accuracy as sums (sum_ulps) or as exact picks.
_SUMS = ("sum", "mean")


@dataclass(frozen=True)
class FusedSpec:
    name: str
    text: str  # the YAML file's content
    inputs: tuple[fx.Node, ...]  # the kernel's inputs, in order
    nodes: tuple[fx.Node, ...]  # the nodes it computes, the result last
    kind: str  # elementwise, reduction, broadcast, row_map or row_reduction (expected)
    # Why no kernel can compute this group as it stands (None: a kernel may): an input
    # of a shape kernels do not take, or a result that is a per-row value in the middle
    # of a row computation (``rsqrt(mean(x * x))``), which more nodes may yet complete.
    problem: str | None = None
    pending: bool = False  # the problem is such a per-row result

    @property
    def qualname(self) -> str:
        return f"{CATEGORY}/{self.name}"


def category_text() -> str:
    return yaml.safe_dump({"doc": CATEGORY_DOC,
                           "defaults": {"outputs": ["out"], "dtypes": ["float32"]}},
                          sort_keys=False)


def _identifier(name: str) -> str:
    text = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_") or "t"
    text = re.sub(r"_+", "_", text)[:_MAX_NAME].rstrip("_")
    if text.endswith(_RESERVED_ENDINGS):
        text += "_t"
    return text


class _Names:
    """Spec names for fx nodes, by position in the kernel, not by the graph's node names
    (which shift when a model changes elsewhere): ``in0``, ``in1`` ... for the inputs,
    ``v0_sigmoid``, ``v1_mul`` ... for the steps, so one computation is one spec text in
    any graph."""

    def __init__(self) -> None:
        self.of: dict[fx.Node, str] = {}
        self.inputs = 0
        self.steps = 0

    def input(self, node: fx.Node) -> str:
        self.of[node] = f"in{self.inputs}"
        self.inputs += 1
        return self.of[node]

    def step(self, node: fx.Node, label: str) -> str:
        self.of[node] = f"v{self.steps}_{_identifier(label)}"
        self.steps += 1
        return self.of[node]


def _shape(node: fx.Node) -> tuple[int, ...]:
    value = node.meta.get("val")
    if isinstance(value, tuple):
        value = value[0]
    assert isinstance(value, torch.Tensor)
    return tuple(int(d) for d in value.shape)


def _main_shape(terms: list[Term]) -> tuple[int, ...]:
    """The shape the group's tensors are elements of: the widest any term works on."""
    shapes = [_shape(t.operands[0]) if t.role in ("row_stat", "row_reduction", "reduction")
              else _shape(t.node) for t in terms]
    return max(shapes, key=len)


def build_spec(terms: list[Term]) -> FusedSpec:
    """The spec of a group (``terms`` in graph order, the result last)."""
    inside = {t.node for t in terms}
    main = _main_shape(terms)
    names = _Names()
    inputs: list[fx.Node] = []
    for term in terms:
        for node in term.operands:
            if node not in inside and node not in inputs:
                inputs.append(node)
    # The main tensor first (the spec's rule), then the rest in order of use.
    inputs.sort(key=lambda n: _shape(n) != main)
    problem, pending = _shape_problem(terms, inputs, main)
    for node in inputs:
        names.input(node)
    per_column = [n for n in inputs if _shape(n) != main]
    rows = any(t.role in ("row", "row_stat", "row_reduction") for t in terms)
    shaped = bool(per_column) or rows
    lets: list[tuple[str, str]] = []
    expression = ""
    # The result is the last term's, or the row kernel's that trailing picks select.
    result_index = max(i for i, t in enumerate(terms) if t.role != "pick")
    for index, term in enumerate(terms):
        last = index == result_index
        operands = [names.of[o] for o in term.operands]
        if term.role == "pick":  # the picked result is the row kernel's own value
            names.of[term.node] = names.of[term.operands[0]]
            continue
        value = names.step(term.node, term.source.rsplit("/", 1)[-1])
        prefix = value
        spelled = {operand(k): name for k, name in enumerate(operands)}
        spelled.update({step: f"{prefix}_{step.removeprefix(own(''))}"
                        for step, _ in term.lets})
        for step, text in term.lets:
            lets.append((spelled[step], substitute(text, spelled)))
        text = substitute(term.text, spelled)
        if last:
            expression = text
        else:
            if term.role == "row_stat" and term.source in _SUMS:
                # torch's row sums start from +0.0 (a zero sum is +0.0, whatever its
                # zeros' signs); the kernel's IEEE sum of -0.0s is -0.0.
                text = f"{text} + 0"
            lets.append((value, text))
    root = terms[-1]
    if root.role == "pick":
        root = next(t for t in terms if t.node is root.operands[0])
    body: dict[str, object] = {
        "kernel": "",
        "doc": "Fused by torch.compile: " + ", ".join(_label(t) for t in terms
                                                       if t.role != "pick") + ".",
        "inputs": [names.of[n] for n in inputs],
    }
    if shaped:
        shapes = {names.of[n]: "(D)" if n in per_column else "(*, D)" for n in inputs}
        if root.role in ("row_stat", "row_reduction"):
            shapes["out"] = "(*)"
        body["shapes"] = shapes
    if lets:
        body["let"] = dict(lets)
    body["expression"] = expression
    if rows:
        body["accuracy"] = _accuracy(terms)
    kind = _kind(root.role, shaped, rows)
    text = yaml.safe_dump(body, sort_keys=False, width=10_000)
    name = NAME_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:12]
    body["kernel"] = name
    final = ("# Written by fpgakern's torch.compile backend; its name is a hash of the rest.\n"
             + yaml.safe_dump(body, sort_keys=False, width=10_000))
    return FusedSpec(name, final, tuple(inputs), tuple(t.node for t in terms), kind,
                     problem, pending)


def _shape_problem(terms: list[Term], inputs: list[fx.Node],
                   main: tuple[int, ...]) -> tuple[str | None, bool]:
    """Why the group's shapes fit no kernel, and whether only because its result is a
    per-row value a later node may still use (see FusedSpec)."""
    for node in inputs:
        have = _shape(node)
        if have != main and not (len(main) >= 2 and have == main[-1:]):
            return (f"input {node.name} of shape {list(have)} is neither the main tensor "
                    f"{list(main)} nor a per-column operand"), False
    root = next(t for t in reversed(terms) if t.role != "pick")
    result = _shape(root.node)
    if root.role == "reduction" or result == main:
        return None, False
    if root.role in ("row_stat", "row_reduction"):
        return None, False
    return (f"its result, of shape {list(result)}, is a value per row of {list(main)}; "
            "kernels return rows or elements"), True


def _label(term: Term) -> str:
    """The node's operator as the doc line names it (``sigmoid``)."""
    target = term.node.target
    if isinstance(target, torch._ops.OpOverload):
        return target.overloadpacket.__name__
    return getattr(target, "__name__", str(target))


def _kind(role: str, shaped: bool, rows: bool) -> str:
    if role == "reduction":
        return "reduction"
    if role in ("row_stat", "row_reduction"):
        return "row_reduction"
    if rows:
        return "row_map"
    return "broadcast" if shaped else "elementwise"


def _term_ulps(term: Term) -> int:
    """An elementwise term's share of a rows bound: its kernel's ulps, at least one (a
    rounding)."""
    kernel = library_kernel(term.source)
    return 1 if kernel is None else max(1, kernel.accuracy("float32").ulps)


def _accuracy(terms: list[Term]) -> dict[str, int]:
    """The rows bound a fused row kernel states (docs/compile.md): its row kernels'
    stated bounds, plus an ulp of the row's largest per elementwise step before the rows
    are reduced (an error relative to an element, which normalization scales to the
    row's), an ulp of each element per step after, and a row-sum ulp per sum statistic.
    C simulation holds the kernel to it against the float64 evaluation; a bound too
    tight fails the build, and the nodes then stay in torch."""
    stated = [t.accuracy for t in terms if t.accuracy is not None]
    ulps = sum(a.ulps for a in stated) or 1
    row_ulps = sum(a.row_ulps for a in stated)
    sum_ulps = sum(a.sum_ulps for a in stated)
    seen_rows = False
    for term in terms:
        if term.role in ("row", "row_stat", "row_reduction"):
            seen_rows = True
            if term.role != "row":
                if term.source in _SUMS:
                    sum_ulps += 1
                else:
                    row_ulps += 1
            continue
        if term.role == "elementwise":
            if seen_rows:
                ulps += _term_ulps(term)
            else:
                row_ulps += _term_ulps(term)
    return {"ulps": ulps, "row_ulps": row_ulps, "sum_ulps": max(sum_ulps, 1)}
