"""complex64 expressions lowered to pairs of float32 expressions (the RTL's complex64).

Why lowering, not complex operator modules: the op table stays the one place that says
what each operation computes, and the float32 operators it lowers to (add, sub, mul,
fma, div, neg, abs, eq, ge, where; lt, gt, sqrt and atan2 for the float32 results) are
each already proven against their references, with II=1 and their op-table latency, by
tests/oplib. A complex64 kernel's RTL is then the same scheduler's pipeline
(``schedule_outputs``) over two float32 roots, the real and the imaginary part, which
share their common sub-expressions; the top module slices each 64-bit lane into its
float32 components (re in bits [31:0], im in [63:32]) and packs ``{im, re}`` back. A
kernel with a float32 result (abs, angle, real, imag) is one float32 root
(:func:`lower_real`) over the components, written to 32-bit lanes. No new arithmetic, no
new latencies to prove.

:func:`lower` rewrites a typed complex64 graph (fpgakern.ir.expr) into that pair. Its
float32 operations are exactly the op table's references (fpgakern.ir.ops.references: _cmul_parts,
_fma's complex branch, _cdiv, _conj, _to_complex64), in the same order, with the same
roundings and the same fusings, so the RTL is bit-identical to the reference and to
torch. With x = (a, b), y = (c, d), z = (zr, zi):

========================  ==============================================================
complex64 node            (re, im) in float32 operations
========================  ==============================================================
input x                   (x_re, x_im): the components of the 64-bit lane
literal v                 (v, +0)
to_complex64(s)           (s, +0): s stays a float32 expression (a scalar, neg(alpha))
conj(x)                   (a, neg(b)): a sign flip
add(x, y) / sub(x, y)     (a + c, b + d) / (a - c, b - d)
mul(x, y)                 (a*c - b*d, a*d + b*c), every product and sum rounded
fma(x, y, z)              ((a*c - b*d) + zr, (a*d + b*c) + zi): the complex product, then
                          the add, unfused (torch's complex vec::fmadd)
div(x, y)                 Smith's algorithm, both branches computed and selected:
                          r = d/c, s = 1/fma(d, r, c), (fma(b, r, a)*s,
                          fma(-a, r, b)*s), replaced by (a/|c|, b/|d|) where c == 0
                          and d == 0; r' = c/d, s' = 1/fma(c, r', d), (fma(a, r', b)*s',
                          fma(b, r', -a)*s'); where(|c| >= |d|, first, second)
real(x) / imag(x)         a / b: a float32 result (lower_real), a component as it is
angle(x)                  atan2(b, a)
abs(x)                    hypot(a, b) scaled so that no square over- or underflows
                          (_hypot: the HLS C++ fk::abs, operation for operation)
========================  ==============================================================

Every float32 sub-expression of a complex64 graph (a scalar, ``neg(alpha)``) is kept as
it is; bool operands do not occur in complex64 graphs. The latencies these pipelines
take are docs/rtl.md's ("complex64 by lowering"), measured by the schedule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fpgakern.errors import UsageError
from fpgakern.ir import expr
from fpgakern.ir.ops import OPS

F32 = "float32"
C64 = "complex64"
PARTS = ("re", "im")  # in this order: re in bits [31:0] of the 64-bit lane, im above

Pair = tuple[expr.Node, expr.Node]


def component(name: str, part: str) -> str:
    """The float32 input that holds one part (``re`` or ``im``) of complex input
    ``name``."""
    return f"{name}_{part}"


@dataclass(frozen=True)
class Lowered:
    """A complex64 graph as two float32 graphs over the inputs' components."""

    re: expr.Node
    im: expr.Node
    # The float32 inputs the graphs use, component by component: (name)_re, (name)_im
    # for each complex input name, in the order of the inputs given to :func:`lower`.
    inputs: tuple[str, ...]

    @property
    def roots(self) -> dict[str, expr.Node]:
        return {"re": self.re, "im": self.im}


def _apply(name: str, *args: expr.Node) -> expr.Node:
    op = OPS[name]
    return expr.Apply(op.result_dtype or F32, op, args)


def _zero() -> expr.Node:
    return expr.Const(F32, 0.0)


def _cmul(x: Pair, y: Pair) -> Pair:
    """(ac - bd, ad + bc) with every product and sum rounded (ops._cmul_parts)."""
    (a, b), (c, d) = x, y
    return (_apply("sub", _apply("mul", a, c), _apply("mul", b, d)),
            _apply("add", _apply("mul", a, d), _apply("mul", b, c)))


def _cdiv(x: Pair, y: Pair) -> Pair:
    """Smith's algorithm as ops._cdiv computes it, each branch in full, selected."""
    (a, b), (c, d) = x, y
    one = expr.Const(F32, 1.0)
    abs_c, abs_d = _apply("abs", c), _apply("abs", d)
    neg_a = _apply("neg", a)
    # |c| >= |d|: r = d/c, s = 1/fma(d, r, c)
    rat = _apply("div", d, c)
    scl = _apply("div", one, _apply("fma", d, rat, c))
    re_c = _apply("mul", _apply("fma", b, rat, a), scl)
    im_c = _apply("mul", _apply("fma", neg_a, rat, b), scl)
    # c == 0 and d == 0 (a complex inf or NaN): (a/|c|, b/|d|). The and of the two
    # comparisons is two selects.
    c_zero, d_zero = _apply("eq", abs_c, _zero()), _apply("eq", abs_d, _zero())
    re_c = _apply("where", c_zero, _apply("where", d_zero, _apply("div", a, abs_c), re_c),
                  re_c)
    im_c = _apply("where", c_zero, _apply("where", d_zero, _apply("div", b, abs_d), im_c),
                  im_c)
    # otherwise (NaN included): r = c/d, s = 1/fma(c, r, d)
    rat = _apply("div", c, d)
    scl = _apply("div", one, _apply("fma", c, rat, d))
    re_d = _apply("mul", _apply("fma", a, rat, b), scl)
    im_d = _apply("mul", _apply("fma", b, rat, neg_a), scl)
    larger_c = _apply("ge", abs_c, abs_d)
    return _apply("where", larger_c, re_c, re_d), _apply("where", larger_c, im_c, im_d)


def _fma(x: Pair, y: Pair, z: Pair) -> Pair:
    re, im = _cmul(x, y)
    return _apply("add", re, z[0]), _apply("add", im, z[1])


def _componentwise(name: str) -> Callable[[Pair, Pair], Pair]:
    def lowered(x: Pair, y: Pair) -> Pair:
        return _apply(name, x[0], y[0]), _apply(name, x[1], y[1])
    return lowered


def _hypot(x: Pair) -> expr.Node:
    """complex64 abs as float32 operations, exactly fk::abs (fpgakern_ops.h): m and s the
    larger and the smaller of |re| and |im|, both scaled by 2^100 where m < 2^-60 and by
    2^-70 where m > 2^60 (exact: a power of two, and no result overflows; a scaled s that
    underflows is below 2^-90 of m), then sqrt(fma(m, m, s*s)) scaled back, and +inf where
    either part is infinite (C99 hypot, even beside a NaN). Unscaled, m^2 + s^2 lies in
    [2^-120, 2^121]: no overflow, and an s*s that underflows is below 2^-24 of m^2's ulp
    scale. Error: s*s rounded (<= 2^-24 s^2 <= 2^-25 (m^2 + s^2)), the fma rounded
    (2^-24), halved by the sqrt, plus the sqrt's half ulp: < 1.25 ulp, and one more
    rounding where the result is subnormal (docs/operators.md)."""
    a, b = _apply("abs", x[0]), _apply("abs", x[1])
    a_larger = _apply("ge", a, b)
    big, small = _apply("where", a_larger, a, b), _apply("where", a_larger, b, a)

    def const(v: float) -> expr.Node:
        return expr.Const(F32, v)

    tiny = _apply("lt", big, const(2.0**-60))
    huge = _apply("gt", big, const(2.0**60))
    up = _apply("where", tiny, const(2.0**100), _apply("where", huge, const(2.0**-70),
                                                        const(1.0)))
    down = _apply("where", tiny, const(2.0**-100), _apply("where", huge, const(2.0**70),
                                                           const(1.0)))
    big_s, small_s = _apply("mul", big, up), _apply("mul", small, up)
    root = _apply("sqrt", _apply("fma", big_s, big_s, _apply("mul", small_s, small_s)))
    result = _apply("mul", root, down)
    inf = const(float("inf"))
    return _apply("where", _apply("eq", a, inf), inf,
                  _apply("where", _apply("eq", b, inf), inf, result))


# complex64 -> float32 ops, by op-table name: the operand's (re, im) pair in, the float32
# result out.
_TO_REAL: dict[str, Callable[[Pair], expr.Node]] = {
    "real": lambda x: x[0],
    "imag": lambda x: x[1],
    "angle": lambda x: _apply("atan2", x[1], x[0]),
    "abs": _hypot,
}


# Each complex64 op, by op-table name: its complex64 operands' (re, im) pairs in, the
# result's pair out (to_complex64 and conj are handled in _Lowering.pair).
_LOWERINGS: dict[str, Callable[..., Pair]] = {
    "add": _componentwise("add"),
    "sub": _componentwise("sub"),
    "mul": _cmul,
    "fma": _fma,
    "div": _cdiv,
}

# Every complex64 op lower() handles (the op table's complex64 ops it may meet).
LOWERED_OPS = frozenset({*_LOWERINGS, *_TO_REAL, "to_complex64", "conj"})


class _Lowering:
    def __init__(self, inputs: tuple[str, ...]) -> None:
        self.inputs = inputs
        # Memo by canonical text: a sub-expression used twice is lowered once.
        self.done: dict[str, Pair] = {}

    def real(self, node: expr.Node) -> expr.Node:
        """A float32 node with its complex64 operands lowered: a complex64 -> float32 op
        (abs, real, imag, angle) on its operand's pair; any other float32 op on its lowered
        operands; inputs, scalars and literals as they are."""
        if isinstance(node, expr.Apply):
            complex_args = [a for a in node.args if a.dtype == C64]
            if complex_args:
                if node.op.name not in _TO_REAL:
                    raise UsageError(f"complex64 {node.op.name} has no RTL (no float32 "
                                     "lowering) yet")
                (arg,) = complex_args
                return _TO_REAL[node.op.name](self.pair(arg))
            return expr.Apply(node.dtype, node.op, tuple(self.real(a) for a in node.args))
        return node

    def pair(self, node: expr.Node) -> Pair:
        assert node.dtype == C64, node
        key = expr.to_text(node)
        if key in self.done:
            return self.done[key]
        match node:
            case expr.Input(name=name):
                result: Pair = (expr.Input(F32, component(name, "re")),
                                expr.Input(F32, component(name, "im")))
            case expr.Const(value=value):  # a real literal in complex context: (v, +0)
                result = (expr.Const(F32, float(value)), _zero())
            case expr.Apply(op=op, args=(real,)) if op.name == "to_complex64":
                result = (self.real(real), _zero())
            case expr.Apply(op=op, args=(x,)) if op.name == "conj":
                re, im = self.pair(x)
                result = (re, _apply("neg", im))
            case expr.Apply(op=op, args=args) if op.name in _LOWERINGS:
                result = _LOWERINGS[op.name](*(self.pair(a) for a in args))
            case expr.Apply(op=op):
                raise UsageError(f"complex64 {op.name} has no RTL (no float32 lowering) yet")
            case _:
                raise UsageError(f"complex64 {expr.to_text(node)} has no RTL yet")
        self.done[key] = result
        return result


def lower_real(root: expr.Node, inputs: tuple[str, ...]) -> tuple[expr.Node, tuple[str, ...]]:
    """The float32 graph of a float32 ``root`` over complex64 ``inputs`` (abs, real,
    imag, angle of a complex64 expression), and the float32 component inputs it may use
    (as :func:`lower`'s)."""
    assert root.dtype == F32, root
    names = _component_names(inputs)
    return _Lowering(inputs).real(root), names


def _component_names(inputs: tuple[str, ...]) -> tuple[str, ...]:
    names = [component(x, part) for x in inputs for part in PARTS]
    clash = sorted(set(names) & set(inputs))
    if clash:
        raise UsageError(f"complex64 RTL: input {clash[0]} clashes with the component of "
                         "another input; rename it")
    return tuple(names)


def lower(root: expr.Node, inputs: tuple[str, ...]) -> Lowered:
    """The (re, im) float32 graphs of the complex64 graph ``root`` over complex64
    ``inputs``: each input ``x`` becomes the float32 inputs ``x_re`` and ``x_im``
    (:func:`component`). UsageError for an op with no lowering, or where a component's
    name would be another input's."""
    names = _component_names(inputs)
    re, im = _Lowering(inputs).pair(root)
    return Lowered(re, im, names)
