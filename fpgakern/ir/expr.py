"""Kernel expressions: parsed from spec text into a typed graph of op applications.

The grammar is a small, safe subset of Python expressions (parsed with :mod:`ast`, never
evaluated): names of inputs and scalars, numeric literals, the infix and prefix operators
of the op table (``+ - * / < >> ...``) and calls of op-table names (``maximum(a, b)``,
``exp(x)``, ``sum(x)``). A reduction may only stand at the root.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from fpgakern.errors import shorten, shown
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.ops import BINARY_SYMBOLS, OPS, UNARY_SYMBOLS, Op


class ExprError(ValueError):
    """A problem with an expression; the message is shown after ``expression:``."""


# Limits that keep parsing, type checking and code generation (all recursive) far from
# Python's recursion limit and fast: real expressions are a few dozen characters.
MAX_CHARS = 1000
MAX_DEPTH = 32
# Printable ASCII but '#' and backslash: the expression is copied into // comments of
# the generated C++/SystemVerilog, and a Python comment or line continuation would let a
# second line (a #include, say) escape the comment. Non-ASCII would let a look-alike
# letter (NFKC) or a bidi override through.
_ALLOWED = re.compile(r"[ -\"$-\[\]-~]*")
FLOAT32_MAX = 3.4028234663852886e38
INT32_RANGE = range(-(2**31), 2**31)


def value_problem(value: float | int, dtype_name: str, *, integral: bool = False) -> str | None:
    """Why ``value`` is not a value of ``dtype_name`` (None if it is one). ``integral``:
    an int32 value must be an int, not an integral float like 2.0."""
    if isinstance(value, float) and not math.isfinite(value):
        return "not a finite number"
    if DTYPES[dtype_name].is_ieee:  # complex64: a real literal, (value, +0)
        # int vs float compares exactly: no OverflowError for a huge int.
        return None if abs(value) <= FLOAT32_MAX else f"outside ±{FLOAT32_MAX:.8g}"
    if isinstance(value, float) and (integral or not value.is_integer()):
        return "not an integer"
    if int(value) not in INT32_RANGE:
        return f"outside {INT32_RANGE.start}..{INT32_RANGE.stop - 1}"
    return None


_AST_BINARY = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
}
_AST_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
                ast.GtE: ">="}
_AST_UNARY: dict[type[ast.unaryop], str] = {ast.USub: "-"}
# The dtype of a comparison's result: only a condition operand (where's first) takes it.
BOOL = "bool"


@dataclass(frozen=True)
class Node:
    """A typed expression node. ``dtype`` is the name of its element type."""

    dtype: str

    def children(self) -> tuple[Node, ...]:
        return ()

    def walk(self) -> Iterator[Node]:
        """Every node, operands before the node that uses them."""
        for child in self.children():
            yield from child.walk()
        yield self


@dataclass(frozen=True)
class Input(Node):
    """An element of a tensor input."""

    name: str


@dataclass(frozen=True)
class Scalar(Node):
    """A scalar kernel argument (passed through s_axi_control)."""

    name: str


@dataclass(frozen=True)
class Const(Node):
    value: float | int


@dataclass(frozen=True)
class Apply(Node):
    op: Op
    args: tuple[Node, ...]

    def children(self) -> tuple[Node, ...]:
        return self.args


def parse(
    text: str,
    inputs: Mapping[str, str],
    scalars: Mapping[str, str],
    lets: Mapping[str, Node] | None = None,
    nested_reductions: bool = False,
) -> Node:
    """Parse and type-check ``text``.

    ``inputs`` and ``scalars`` map each name to its dtype name; ``lets`` names parsed
    expressions the text may use (a spec's ``let``, see :func:`parse_lets`).
    ``nested_reductions``: reductions may stand anywhere (a shaped kernel's reductions run
    along a row, :mod:`fpgakern.ir.shapes`), not only at the root. Raises ExprError with a
    message that names the offending part of the expression.
    """
    root = _Builder(inputs, scalars, lets, nested_reductions).build(syntax(text), top=True)
    if root.dtype == BOOL:
        raise ExprError(f"{shown(to_text(root))} is a comparison, whose bool no output "
                        "holds; use it as where()'s condition: where(x > 0, x, 0)")
    if isinstance(root, Const):
        raise ExprError("the expression is a constant; it must use at least one input"
                        + ("" if inputs else " or scalar"))
    # A register kernel declares no tensor inputs: its expressions are over scalars.
    if inputs and not any(isinstance(n, Input) for n in root.walk()):
        raise ExprError("the expression uses no tensor input")
    return root


def syntax(text: str) -> ast.expr:
    """The syntax tree of ``text``, within the length, character and depth limits (the
    same for every dtype). Raises ExprError."""
    text = text.strip()
    if len(text) > MAX_CHARS:
        raise ExprError(f"is {len(text)} characters long (at most {MAX_CHARS})")
    if not _ALLOWED.fullmatch(text):
        bad = next(c for c in text if not _ALLOWED.fullmatch(c))
        raise ExprError(f"character {shown(bad)} is not allowed (no '#', backslash, "
                        "line break or non-ASCII)")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as err:
        reason = err.msg if isinstance(err, SyntaxError) else "too complex"
        raise ExprError(f"cannot parse {shown(text)}: {reason}") from None
    _check_depth(tree.body)
    return tree.body


def _check_depth(tree: ast.expr) -> None:
    """Refuse nesting deeper than MAX_DEPTH, measured without recursion (the recursive
    builder below must never meet a tree deep enough to overflow)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ExprError(f"nested too deeply (more than {MAX_DEPTH} levels of operators "
                            "and calls)")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node)
                     if isinstance(child, ast.expr))


def parse_lets(lets: Mapping[str, str], inputs: Mapping[str, str],
               scalars: Mapping[str, str], nested_reductions: bool = False) -> dict[str, Node]:
    """Parse a spec's ``let`` (name -> expression text), in order: each may use the inputs,
    scalars and the names bound before it. Raises ExprError starting with the name."""
    bound: dict[str, Node] = {}
    for name, text in lets.items():
        try:
            bound[name] = _Builder(inputs, scalars, bound, nested_reductions).build(
                syntax(text), top=False)
        except ExprError as err:
            raise ExprError(f"{name}: {err}") from None
        if bound[name].dtype == BOOL:
            raise ExprError(f"{name}: a comparison cannot be named; use it as where()'s "
                            "condition")
    return bound


class _Builder:
    def __init__(self, inputs: Mapping[str, str], scalars: Mapping[str, str],
                 lets: Mapping[str, Node] | None = None,
                 nested_reductions: bool = False) -> None:
        self.inputs = inputs
        self.scalars = scalars
        self.lets = lets or {}
        self.nested_reductions = nested_reductions

    def build(self, node: ast.expr, top: bool = False) -> Node:
        match node:
            case ast.Name(id=name):
                return self._name(name)
            case ast.Constant(value=value) if isinstance(value, int | float) and not isinstance(
                value, bool
            ):
                return Const("int32" if isinstance(value, int) else "float32", value)
            case ast.BinOp(op=operator, left=left, right=right) if type(operator) in _AST_BINARY:
                name = BINARY_SYMBOLS[_AST_BINARY[type(operator)]]
                return self._apply(name, [left, right])
            case ast.Compare(left=left, ops=[operator], comparators=[right]) if (
                type(operator) in _AST_COMPARE
            ):
                return self._apply(BINARY_SYMBOLS[_AST_COMPARE[type(operator)]], [left, right])
            case ast.UnaryOp(op=ast.UAdd(), operand=operand):
                return self.build(operand)
            case ast.UnaryOp(op=operator, operand=operand) if type(operator) in _AST_UNARY:
                if isinstance(operand, ast.Constant) and isinstance(operand.value, int | float):
                    return self.build(ast.Constant(-operand.value))
                return self._apply(UNARY_SYMBOLS[_AST_UNARY[type(operator)]], [operand])
            case ast.Call(func=ast.Name(id=name), args=args, keywords=[]):
                return self._call(name, args, top)
        raise ExprError(f"unsupported syntax {shown(ast.unparse(node))}")

    def _name(self, name: str) -> Node:
        if name in self.inputs:
            return Input(self.inputs[name], name)
        if name in self.scalars:
            return Scalar(self.scalars[name], name)
        if name in self.lets:
            return self.lets[name]
        known = ", ".join([*self.inputs, *self.scalars, *self.lets]) or "none"
        raise ExprError(f"unknown name {name!r} (inputs and scalars: {known})")

    def _call(self, name: str, args: list[ast.expr], top: bool) -> Node:
        if name not in OPS:
            raise ExprError(f"unknown op {name}() (known: {', '.join(sorted(OPS))})")
        entry = OPS[name]
        if entry.kind == "reduce" and self.nested_reductions:
            return self._apply(name, args)
        if entry.kind == "reduce" and not top:
            raise ExprError(f"reduction {name}() may only stand at the root of the expression")
        if entry.kind == "reduce":
            operand = self.build(args[0]) if len(args) == 1 else None
            if operand is not None and any(
                isinstance(n, Apply) and n.op.kind == "reduce" for n in operand.walk()
            ):
                raise ExprError(f"reduction {name}() may only stand at the root")
        return self._apply(name, args)

    def _apply(self, name: str, args: list[ast.expr]) -> Node:
        entry = OPS[name]
        if len(args) != entry.arity:
            raise ExprError(f"{name}() takes {entry.arity} operand(s), got {len(args)}")
        operands = [self.build(arg) for arg in args]
        for i, n in enumerate(operands):
            is_condition = entry.condition and i == 0
            if is_condition and n.dtype != BOOL:
                raise ExprError(f"{name}() takes a comparison as its first operand "
                                f"(where(x > 0, x, 0)), not {shown(to_text(n))}")
            if not is_condition and n.dtype == BOOL:
                raise ExprError(f"comparison {shown(to_text(n))} as operand {i + 1} of "
                                f"{name}(): a comparison's bool is only where()'s "
                                "condition (where(x > 0, x, 0))")
        values = operands[1:] if entry.condition else operands
        if entry.condition and all(isinstance(n, Const) for n in values):
            # where(x > 0, 1, 0): literal values take the type the comparison compares.
            condition = operands[0]
            assert isinstance(condition, Apply)
            values = [*values, *condition.args]
        operand_dtype = _unify(name, values)
        if operand_dtype not in entry.dtypes:
            raise ExprError(
                f"op {name} is not defined for {operand_dtype} "
                f"(defined for: {', '.join(sorted(entry.dtypes))})"
            )
        for n in operands:
            if isinstance(n, Const) and (problem := value_problem(n.value, operand_dtype)):
                raise ExprError(f"literal {shorten(repr(n.value))} in {name} is not a valid "
                                f"{operand_dtype} ({problem})")
        typed = tuple(_promote(_retype_const(n, operand_dtype), operand_dtype)
                      if n.dtype != BOOL else n for n in operands)
        return Apply(entry.result_for(operand_dtype), entry, typed)


def _unify(name: str, operands: list[Node]) -> str:
    """The common dtype of an op's operands; literals adapt, other mismatches are errors."""
    typed = {n.dtype for n in operands if not isinstance(n, Const)}
    if typed == {COMPLEX64, PROMOTED}:  # a real operand of a complex op: _promote
        typed = {COMPLEX64}
    if len(typed) > 1:
        raise ExprError(
            f"type mismatch in {name}: operands are {' and '.join(sorted(typed))}; "
            "convert one with to_float32() or to_int32()"
        )
    if typed:
        dtype = typed.pop()
        for n in operands:
            if (
                isinstance(n, Const)
                and isinstance(n.value, float)
                and dtype in DTYPES
                and not DTYPES[dtype].is_ieee
                and not float(n.value).is_integer()
            ):
                raise ExprError(f"type mismatch in {name}: float literal {n.value} in {dtype}")
        return dtype
    return "float32" if any(isinstance(n.value, float) for n in operands if isinstance(n, Const)) \
        else "int32"


def _retype_const(node: Node, dtype: str) -> Node:
    if not isinstance(node, Const) or node.dtype == dtype:
        return node
    value = float(node.value) if DTYPES[dtype].is_ieee else int(node.value)
    return Const(dtype, value)  # complex64: the real literal (value, +0)


# float32 operands (a complex64 variant's real scalars, or what they compute) meeting
# complex64 ones are promoted by an explicit to_complex64 node, as torch promotes, so that
# every backend and the reference see the conversion: sub's fma(-alpha, b, a) negates
# alpha in float32 first, then promotes (-alpha, +0).
COMPLEX64 = "complex64"
PROMOTED = "float32"


def _promote(node: Node, dtype: str) -> Node:
    if dtype == COMPLEX64 and node.dtype == PROMOTED and not isinstance(node, Const):
        return Apply(COMPLEX64, OPS["to_complex64"], (node,))
    return node


def reduction_of(root: Node) -> Op | None:
    """The reduction op at the root of an expression, or None for elementwise kernels."""
    if isinstance(root, Apply) and root.op.kind == "reduce":
        return root.op
    return None


def to_text(node: Node) -> str:
    """A canonical, fully parenthesised rendering, for messages and hashes."""
    match node:
        case Input(name=name) | Scalar(name=name):
            return name
        case Const(value=value):
            return repr(value)
        case Apply(op=entry, args=args):
            return f"{entry.name}({', '.join(to_text(a) for a in args)})"
    raise TypeError(node)
