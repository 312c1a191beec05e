"""Which aten nodes fpgakern can run, and each one as a piece of a kernel expression.

The table is derived, not written out: an aten operator is supported when a float32
kernel of the bundled library mirrors it (``mirrors: torch.add`` makes ``aten.add``) or
when it is one of the op table's reductions (``sum``, ``mean``, ``amax`` ...), and the
node's dtypes, shapes and options fit what the kernel computes. The kernel's expression
is its contribution to a fused spec, with the node's operands put in for its inputs and
the node's options for its scalars. Everything else gets the reason it stays in torch.
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass
from functools import cache
from typing import Any

import torch
from torch import fx

from fpgakern import paths
from fpgakern.ir import shapes
from fpgakern.ir.kernel import NO_RUNTIME_KINDS, Kernel
from fpgakern.ir.ops import OPS, Accuracy
from fpgakern.runtime.torch_ops import mirror_path, torch_keyword
from fpgakern.spec.library import Library

DTYPE = torch.float32

# Library kernels that mirror a torch operator but whose answer is not torch's in a way
# no accuracy bound covers: the torch ops decide per call, on the data, which a compiled
# graph cannot.
EXCLUDED = {
    "fmod": "torch's result depends on the element's position when a / b overflows "
            "(docs/runtime.md); the torch op decides on the data, a fused kernel cannot",
    "remainder": "torch's result depends on the element's position when a / b overflows "
                 "(docs/runtime.md); the torch op decides on the data, a fused kernel "
                 "cannot",
}
# aten operators mirrored by several kernels, told apart by an option's value.
CHOSEN_BY = {"gelu": ("approximate", {"none": "gelu", "tanh": "gelu_tanh"})}
# Library row kernels under the aten names a traced graph calls them by: the aten
# operator, then which of its arguments are the kernel's inputs (None: absent, which the
# kernel's identity stands in for) and scalars, and the dimension options to check.
ROW_KERNELS = {
    "native_layer_norm": "nn_ops/layer_norm",
    "_softmax": "nn_ops/softmax",
    "_log_softmax": "nn_ops/log_softmax",
}
# Stand-ins for absent optional operands (layer_norm without affine parameters).
ABSENT = {"weight": 1.0, "bias": 0.0}
# The op table's reductions under their aten names: full or along the last dimension.
REDUCTIONS = {"sum": "sum", "mean": "mean", "amax": "max", "amin": "min", "max": "max",
              "min": "min", "prod": "prod"}
# Nodes that only pick one result of a multi-result node (native_layer_norm's output).
PICK = operator.getitem


@dataclass(frozen=True)
class Term:
    """One node as part of a fused kernel's expression.

    ``text`` is its value over its operands, each written as ``_k`` for operand k
    (:func:`operand`), and ``lets`` its own named steps (layer_norm's ``centered`` and
    ``rstd``), named ``_self_<step>`` (:func:`own`) until the spec names the node.
    ``role`` says how it may fuse: ``elementwise`` (its result has the shape of its main
    operand), ``row`` (a row kernel's per-element result: softmax), ``row_stat`` (one
    value per row, kept as ``(*, 1)``), ``row_reduction`` (one value per row, the
    dimension dropped), ``reduction`` (one value) or ``pick`` (a row kernel's result
    picked from the tuple its aten operator returns)."""

    node: fx.Node
    text: str
    operands: tuple[fx.Node, ...]
    role: str
    lets: tuple[tuple[str, str], ...] = ()
    accuracy: Accuracy | None = None  # a library row kernel's stated accuracy
    source: str = ""  # what it was made from: a kernel's qualname or an operator's name


@dataclass(frozen=True)
class Unsupported:
    node: fx.Node
    reason: str


def operand(index: int) -> str:
    """How a Term's text names its operand ``index`` (an identifier no spec uses)."""
    return f"_{index}"


def own(step: str) -> str:
    """How a Term's text names one of its own ``let`` steps."""
    return f"_self_{step}"


def _meta(value: object) -> torch.Tensor | None:
    if isinstance(value, fx.Node):
        found = value.meta.get("val")
        return found if isinstance(found, torch.Tensor) else None
    return None


def describe(node: fx.Node) -> str:
    """The node's operator as a reader knows it: ``aten.addmm.default``."""
    if node.op != "call_function":
        return node.op
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    return getattr(target, "__name__", str(target))


@cache
def mirrored(*, runnable: bool = True) -> dict[str, list[Kernel]]:
    """Float32 kernels of the bundled library by the aten name of the operator they
    mirror, in library order (``binary_ops/mul`` before ``binary_ops/mul_scalar``).
    ``runnable=False``: the kernels of the kinds the runtime cannot run instead
    (NO_RUNTIME_KINDS), which the backend names as the reason an op stays in torch.
    Contractions are not in it: they run as library kernels of their own
    (:func:`lower_matrix`), never fused into a spec."""
    table: dict[str, list[Kernel]] = {}
    for kernel in Library(paths.library_dir()).kernels:
        if "float32" not in kernel.dtypes or kernel.transform is not None:
            continue
        if (kernel.kind in NO_RUNTIME_KINDS) == runnable or kernel.kind == "contraction":
            continue
        if kernel.kind == "reduction":
            continue  # full reductions come from the op table (REDUCTIONS)
        name = mirror_path(kernel).rsplit(".", 1)[-1]
        table.setdefault(name, []).append(kernel)
    return table


def library_kernel(qualname: str) -> Kernel | None:
    """A float32 kernel of the table by its qualname (None: not one of them)."""
    return next((k for ks in mirrored().values() for k in ks if k.qualname == qualname),
                None)


def _bind(op: torch._ops.OpOverload, node: fx.Node) -> dict[str, Any]:
    """The node's arguments by the aten schema's names, defaults filled in."""
    bound: dict[str, Any] = {}
    arguments = op._schema.arguments
    for argument, value in zip(arguments, node.args, strict=False):
        bound[argument.name] = value
    bound.update(node.kwargs)
    for argument in arguments:
        if argument.name not in bound and argument.has_default_value():
            bound[argument.name] = argument.default_value
    return bound


def _literal(value: object) -> str | None:
    """A Python number as a spec literal; None for anything a spec cannot spell."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return repr(float(value)) if isinstance(value, float) else str(value)


def substitute(text: str, names: dict[str, str]) -> str:
    """``text`` with each name of ``names`` replaced by its text (parenthesized)."""
    tree = ast.parse(text, mode="eval")

    class Put(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id in names:
                return ast.parse(names[node.id], mode="eval").body
            return node

    return ast.unparse(Put().visit(tree))


def _shape_reason(node: fx.Node, out: torch.Tensor, operands: list[fx.Node],
                  row_stats: bool) -> str | None:
    """Why the operands' shapes do not fit a fused kernel (None: they fit): each has the
    result's shape, or is a per-column operand ``(D,)`` of its last dimension, or (inside
    a row kernel) a row statistic ``(*, 1)``."""
    shape = tuple(out.shape)
    for operand in operands:
        value = _meta(operand)
        if value is None:
            return f"operand {operand.name} is not a tensor the trace describes"
        have = tuple(value.shape)
        if have == shape:
            continue
        if len(shape) >= 2 and have == shape[-1:]:
            continue
        if row_stats and len(shape) >= 1 and have == (*shape[:-1], 1):
            continue
        return (f"operand {operand.name} of shape {list(have)} broadcasts to "
                f"{list(shape)}; kernels take same-shaped operands and per-column "
                f"({shape[-1] if shape else 1},) ones")
    return None


def _common(node: fx.Node) -> tuple[torch.Tensor | None, str | None]:
    out = _meta(node)
    found = node.meta.get("val")
    if out is None and isinstance(found, tuple) and found and all(
            user.target is PICK and user.args[1] == 0 for user in node.users):
        # A multi-result row operator (native_layer_norm) of which only the first result
        # is used: the one the kernel computes.
        out = found[0] if isinstance(found[0], torch.Tensor) else None
    if out is None:
        return None, "its result is not one tensor"
    if out.dtype != DTYPE:
        return None, f"its result is {out.dtype}; the backend fuses float32"
    if any(not isinstance(d, int) for d in out.shape):
        return None, "its shape is symbolic (compile with dynamic=False)"
    if out.device.type != "cpu":
        return None, f"its tensors are on {out.device}, not the CPU"
    for arg in node.all_input_nodes:
        value = _meta(arg)
        if value is not None and value.dtype != DTYPE:
            return None, f"operand {arg.name} is {value.dtype}; the backend fuses float32"
    return out, None


def lower(node: fx.Node) -> Term | Unsupported:
    """``node`` as a Term, or why it stays in torch."""
    if node.op != "call_function":
        return Unsupported(node, "not an operator call")
    if node.target is PICK:
        return _pick(node)
    op = node.target
    if not isinstance(op, torch._ops.OpOverload):
        return Unsupported(node, f"{describe(node)} is not an aten operator")
    name = op.overloadpacket.__name__
    out, problem = _common(node)
    if problem is not None or out is None:
        return Unsupported(node, problem or "no result")
    if out.dim() == 0 and name not in REDUCTIONS:
        return Unsupported(node, "a 0-d result: scalar arithmetic stays in torch (on the "
                                 "device it would cost more transfers than it computes)")
    if name in ROW_KERNELS:
        return _row_kernel(node, op, ROW_KERNELS[name], out)
    if name in REDUCTIONS:
        return _reduction(node, op, REDUCTIONS[name], out)
    kernels = mirrored().get(name)
    if not kernels:
        waiting = mirrored(runnable=False).get(name)
        if waiting:
            return Unsupported(node, f"{waiting[0].qualname}: "
                                     f"{NO_RUNTIME_KINDS[waiting[0].kind]}")
        return Unsupported(node, f"no fpgakern kernel or operator mirrors aten.{name}")
    if name in EXCLUDED:
        return Unsupported(node, EXCLUDED[name])
    bound = _bind(op, node)
    if name in CHOSEN_BY:
        option, choices = CHOSEN_BY[name]
        value = bound.pop(option, None)
        kernels = [k for k in kernels if k.name == choices.get(str(value))]
        if not kernels:
            return Unsupported(node, f"{option}={value!r} has no kernel")
    reasons = []
    for kernel in kernels:
        term = _elementwise(node, op, kernel, bound, out)
        if isinstance(term, Term):
            return term
        reasons.append(term)
    return Unsupported(node, reasons[0])


def _elementwise(node: fx.Node, op: torch._ops.OpOverload, kernel: Kernel,
                 bound: dict[str, Any], out: torch.Tensor) -> Term | str:
    """An elementwise kernel's expression for ``node``: its inputs are the schema's first
    arguments (tensors, or numbers that become literals), its scalars the options of
    torch's names; every other option must have its default."""
    arguments = [a.name for a in op._schema.arguments]
    if len(arguments) < len(kernel.inputs):
        return f"aten {op} takes fewer operands than {kernel.qualname}"
    names: dict[str, str] = {}
    operands: list[fx.Node] = []
    for input_name, argument in zip(kernel.inputs, arguments, strict=False):
        value = bound.get(argument)
        if isinstance(value, fx.Node):
            names[input_name] = operand(len(operands))
            operands.append(value)
            continue
        literal = _literal(value)
        if literal is None:
            return f"{argument}={value!r} is not a finite number or a tensor"
        names[input_name] = literal
    if not operands:
        return "no tensor operand"
    used = set(arguments[:len(kernel.inputs)])
    for scalar in kernel.scalars:
        keyword = torch_keyword(kernel, scalar.name)
        value = bound.get(keyword, scalar.default)
        used.add(keyword)
        literal = _literal(value)
        if literal is None:
            return f"{keyword}={value!r} is not a finite number"
        names[scalar.name] = literal
    for option in op._schema.arguments:
        if option.name in used or option.name not in bound:
            continue
        default = option.default_value if option.has_default_value() else None
        if bound[option.name] != default:
            return (f"option {option.name}={bound[option.name]!r} is not what "
                    f"{kernel.qualname} computes")
    problem = _shape_reason(node, out, operands, row_stats=True)
    if problem is not None:
        return problem
    return Term(node, simplify(substitute(kernel.expression, names)), tuple(operands),
                "elementwise", source=kernel.qualname)


def simplify(text: str) -> str:
    """``fma(1, b, a)`` (torch's add with alpha 1) as ``a + b``, and ``fma(-1, b, a)`` as
    ``a - b``: the same single rounding, in the form a reader expects. ``pow(a, 2)`` as
    ``a * a`` and ``pow(a, 0.5)`` as ``sqrt(a)``: what torch's pow computes for those
    exponents (its scalar-exponent fast paths), where the pow operator would be within
    its ulps."""
    tree = ast.parse(text, mode="eval")

    class Fold(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            if (isinstance(node.func, ast.Name) and node.func.id == "fma"
                    and len(node.args) == 3):
                scale = _number(node.args[0])
                if scale in (1.0, -1.0):
                    op: ast.operator = ast.Add() if scale == 1.0 else ast.Sub()
                    return ast.BinOp(node.args[2], op, node.args[1])
            if (isinstance(node.func, ast.Name) and node.func.id == "pow"
                    and len(node.args) == 2 and isinstance(node.args[0], ast.Name)):
                exponent = _number(node.args[1])
                if exponent == 2.0:
                    return ast.BinOp(node.args[0], ast.Mult(), node.args[0])
                if exponent == 0.5:
                    return ast.Call(ast.Name("sqrt", ast.Load()), [node.args[0]], [])
            return node

    return ast.unparse(Fold().visit(tree))


def _number(node: ast.expr) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant)
            and isinstance(node.operand.value, int | float)):
        return -float(node.operand.value)
    return None


def _last_dim(dims: object, ndim: int) -> bool:
    """Whether ``dims`` (an int or a list of them) names just the last dimension."""
    values = [dims] if isinstance(dims, int) else list(dims) if isinstance(
        dims, list | tuple) else None
    return values is not None and len(values) == 1 and isinstance(values[0], int) and \
        values[0] % max(ndim, 1) == ndim - 1


def _row_size_reason(value: torch.Tensor) -> str | None:
    cols = value.shape[-1] if value.dim() else 1
    if cols > shapes.MAX_ROW:
        return f"rows of {cols} elements; kernels keep at most {shapes.MAX_ROW} on chip"
    return None


def _row_kernel(node: fx.Node, op: torch._ops.OpOverload, qualname: str,
                out: torch.Tensor) -> Term | Unsupported:
    kernel = library_kernel(qualname)
    assert kernel is not None, f"ROW_KERNELS names {qualname}, not a library row kernel"
    name = kernel.name
    bound = _bind(op, node)
    main = bound.get("input", bound.get("self"))
    value = _meta(main)
    if not isinstance(main, fx.Node) or value is None:
        return Unsupported(node, "its input is not a traced tensor")
    if value.dim() < 1:
        return Unsupported(node, "a 0-d input has no row")
    if name == "layer_norm":
        if list(bound["normalized_shape"]) != [value.shape[-1]]:
            return Unsupported(node, f"normalized_shape={list(bound['normalized_shape'])}: "
                                     "the kernel normalizes the last dimension only")
    elif not _last_dim(bound["dim"], value.dim()) or bound.get("half_to_float"):
        return Unsupported(node, f"dim={bound['dim']}: the kernel works along the last "
                                 "dimension")
    problem = _row_size_reason(value)
    if problem is not None:
        return Unsupported(node, problem)
    names: dict[str, str] = {}
    operands = [main]
    names[kernel.inputs[0]] = operand(0)
    for input_name in kernel.inputs[1:]:
        given = bound.get(input_name)
        if isinstance(given, fx.Node):
            names[input_name] = operand(len(operands))
            operands.append(given)
        else:
            names[input_name] = repr(ABSENT[input_name])
    for scalar in kernel.scalars:
        literal = _literal(bound.get(scalar.name, scalar.default))
        if literal is None:
            return Unsupported(node, f"{scalar.name} is not a finite number")
        names[scalar.name] = literal
    problem = _shape_reason(node, out, operands[1:], row_stats=False)
    if problem is not None:
        return Unsupported(node, problem)
    for let_name, _ in kernel.lets:
        names[let_name] = own(let_name)
    lets = [(own(let_name), substitute(text, names)) for let_name, text in kernel.lets]
    return Term(node, substitute(kernel.expression, names), tuple(operands), "row",
                tuple(lets), kernel.stated_accuracy, kernel.qualname)


def _reduction(node: fx.Node, op: torch._ops.OpOverload, reduce: str,
               out: torch.Tensor) -> Term | Unsupported:
    """sum, mean, amax ... of the whole tensor, or along its last dimension."""
    bound = _bind(op, node)
    main = bound.get("self", bound.get("input"))
    value = _meta(main)
    if not isinstance(main, fx.Node) or value is None:
        return Unsupported(node, "its input is not a traced tensor")
    if bound.get("dtype") is not None:
        return Unsupported(node, f"dtype={bound['dtype']}: the kernels reduce in float32")
    if reduce not in OPS or OPS[reduce].kind != "reduce":
        return Unsupported(node, f"{reduce} is not a reduction of the op table")
    dims = bound.get("dim")
    keepdim = bool(bound.get("keepdim"))
    every = dims is None or (isinstance(dims, list | tuple) and (
        len(dims) == 0 or sorted(d % max(value.dim(), 1) for d in dims)
        == list(range(value.dim()))))
    text = f"{reduce}({operand(0)})"
    if every and value.dim() <= 1 or (every and not keepdim):
        if keepdim:
            return Unsupported(node, "keepdim=True over every dimension")
        return Term(node, text, (main,), "reduction", source=reduce)
    if not _last_dim(dims, value.dim()):
        return Unsupported(node, f"dim={dims}: kernels reduce every element, or along the "
                                 "last dimension")
    problem = _row_size_reason(value)
    if problem is not None:
        return Unsupported(node, problem)
    return Term(node, text, (main,), "row_stat" if keepdim else "row_reduction",
                source=reduce)


def _pick(node: fx.Node) -> Term | Unsupported:
    """``native_layer_norm(...)[0]``: the normalized tensor. The mean and rstd it also
    returns are not computed by the kernel."""
    source, index = node.args
    if not isinstance(source, fx.Node) or index != 0:
        return Unsupported(node, f"result {index} of {getattr(source, 'name', source)} "
                                 "(the kernel computes result 0 only)")
    if not isinstance(source.target, torch._ops.OpOverload) or \
            source.target.overloadpacket.__name__ not in ROW_KERNELS:
        return Unsupported(node, "picks a result of a node the backend does not run")
    return Term(node, operand(0), (source,), "pick", source="getitem")


# --------------------------------------------------------------------------- matrices

# The aten matrix products the backend runs on the bundled contraction kernels.
MATRIX_OPS = ("mm", "addmm", "bmm")
MATRIX_CATEGORY = "matrix_ops"
# Nodes that only transpose a 2-D operand (a Linear's ``t(weight)``): absorbed into the
# matrix node they feed, which reads the untransposed tensor in the kernel's index order.
_TRANSPOSES = ("t", "transpose", "permute")


# Elementwise epilogues a library contraction kernel computes after its kernel's own:
# kernel -> {the aten operator applied to its result: the kernel that fuses it}. The
# operator's node must have the result as its only argument (gelu: approximate='none').
EPILOGUES = {f"{MATRIX_CATEGORY}/linear": {
    torch.ops.aten.relu.default: f"{MATRIX_CATEGORY}/linear_relu",
    torch.ops.aten.gelu.default: f"{MATRIX_CATEGORY}/linear_gelu",
    torch.ops.aten.silu.default: f"{MATRIX_CATEGORY}/linear_silu"}}


@dataclass(frozen=True)
class MatrixTerm:
    """A matrix node run on a library contraction kernel (not fused into a spec).

    ``operands`` are the kernel's inputs in spec order (a Linear's weight as it is:
    the linear kernel reads ``mk,nk->mn``, so ``t(weight)`` costs no copy); ``zeros`` a
    further input of zeros of that shape the kernel adds (``mm`` as ``linear`` with a
    zero bias: torch's +0 for a zero sum, the same bits as ``mm`` otherwise);
    ``absorbed`` the transpose nodes it reads through."""

    node: fx.Node
    kernel: str  # qualname of the library kernel
    operands: tuple[fx.Node, ...]
    scalars: tuple[tuple[str, float], ...] = ()
    zeros: tuple[int, ...] | None = None
    absorbed: tuple[fx.Node, ...] = ()
    plus_zero: bool = False  # the result comes to the host as +0 where zero (bmm)


def _transposed(value: object) -> fx.Node | None:
    """The 2-D tensor a transpose node reads (None: ``value`` is no such node)."""
    if not isinstance(value, fx.Node) or value.op != "call_function":
        return None
    op = value.target
    if not isinstance(op, torch._ops.OpOverload):
        return None
    name = op.overloadpacket.__name__
    source = value.args[0] if value.args else None
    meta = _meta(source)
    if name not in _TRANSPOSES or meta is None or meta.dim() != 2:
        return None
    dims: Any = list(value.args[1:3]) if name == "transpose" else (
        list(value.args[1]) if name == "permute" and isinstance(value.args[1], list | tuple)
        else [1, 0])
    if [d % 2 if isinstance(d, int) else d for d in dims] not in ([1, 0], [0, 1]) or (
            name == "permute" and dims[0] % 2 != 1):
        return None
    if not all(_matrix_name(user) in ("mm", "addmm") for user in value.users):
        return None  # torch needs the transpose too: the kernel reads it as torch does
    return source if isinstance(source, fx.Node) else None


def _matrix_name(node: fx.Node) -> str | None:
    op = node.target
    if node.op != "call_function" or not isinstance(op, torch._ops.OpOverload):
        return None
    return op.overloadpacket.__name__


def lower_matrix(node: fx.Node) -> MatrixTerm | Unsupported | None:
    """A matrix node (aten.mm, addmm, bmm) as a library kernel call, or why it stays in
    torch; None for every other node."""
    op = node.target
    if node.op != "call_function" or not isinstance(op, torch._ops.OpOverload):
        return None
    name = op.overloadpacket.__name__
    if name not in MATRIX_OPS:
        return None
    out, problem = _common(node)
    if problem is not None or out is None:
        return Unsupported(node, problem or "no result")
    bound = _bind(op, node)
    a, b = bound["self" if name != "addmm" else "mat1"], bound["mat2"]
    if not isinstance(a, fx.Node) or not isinstance(b, fx.Node):
        return Unsupported(node, "its operands are not traced tensors")
    weight = _transposed(b)
    if name == "bmm":
        return MatrixTerm(node, f"{MATRIX_CATEGORY}/bmm", (a, b),
                          plus_zero=True)
    n = int(out.shape[1])
    if name == "mm":
        if weight is not None:
            return MatrixTerm(node, f"{MATRIX_CATEGORY}/linear", (a, weight),
                              zeros=(n,), absorbed=(b,))
        return MatrixTerm(node, f"{MATRIX_CATEGORY}/addmm", (a, b),
                          (("beta", 1.0), ("alpha", 1.0)), zeros=tuple(out.shape))
    z = bound["self"]
    beta, alpha = bound.get("beta", 1), bound.get("alpha", 1)
    if _literal(beta) is None or _literal(alpha) is None:
        return Unsupported(node, "beta and alpha must be finite numbers")
    if beta == 0:
        return Unsupported(node, "beta=0: torch ignores input (its NaN and inf are not "
                                 "propagated); the kernel computes beta * input")
    z_meta = _meta(z)
    if not isinstance(z, fx.Node) or z_meta is None:
        return Unsupported(node, "its input is not a traced tensor")
    if (weight is not None and beta == 1 and alpha == 1
            and tuple(z_meta.shape) == (n,)):
        return MatrixTerm(node, f"{MATRIX_CATEGORY}/linear",
                          (a, weight, z), absorbed=(b,))
    if tuple(z_meta.shape) != tuple(out.shape):
        return Unsupported(node, f"input of shape {list(z_meta.shape)} broadcasts to "
                                 f"{list(out.shape)} (the addmm kernel reads a whole (M, N) "
                                 "input; a Linear's (N,) bias runs on the linear kernel)")
    return MatrixTerm(node, f"{MATRIX_CATEGORY}/addmm",
                      (a, b, z),
                      (("beta", float(beta)), ("alpha", float(alpha))))
