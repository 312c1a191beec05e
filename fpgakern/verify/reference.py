"""The numpy oracle: evaluate a kernel's typed graph with the op table's references.

Every evaluator takes ``apply``, how one op computes on its operands: the op table's
reference by default (:func:`ieee`); :func:`fpgakern.verify.flush.csim_apply` models
Vitis C simulation, whose hls::sqrt flushes subnormals.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from fpgakern.ir import expr, shapes
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.kernel import Kernel
from fpgakern.ir.ops import Op
from fpgakern.verify import spectral
from fpgakern.verify.stimulus import Case

Apply = Callable[[Op, list[np.ndarray]], np.ndarray]


def ieee(entry: Op, args: list[np.ndarray]) -> np.ndarray:
    """One op as torch computes it: the op table's reference."""
    return entry.reference(*args)


def evaluate_node(node: expr.Node, case: Case, size: int,
                  offsets: Mapping[int, int] | None = None, apply: Apply = ieee) -> np.ndarray:
    """Evaluate one node on a case; scalars and literals broadcast to ``size`` elements.
    ``offsets`` moves the float32 results of some applications (by ``id`` of the node) that
    many ulps (:func:`perturbed_outputs`)."""
    if offsets and id(node) in offsets and isinstance(node, expr.Apply):
        exact = evaluate_node(node, case, size, {k: v for k, v in offsets.items()
                                                 if k != id(node)}, apply)
        return step_ulps(exact, offsets[id(node)])
    match node:
        case expr.Input(name=name):
            return np.asarray(case.tensors[name], dtype=DTYPES[node.dtype].numpy)
        case expr.Scalar(name=name):
            return np.full(size, case.scalars[name], dtype=DTYPES[node.dtype].numpy)
        case expr.Const(value=value):
            return np.full(size, value, dtype=DTYPES[node.dtype].numpy)
        case expr.Apply(op=entry, args=args):
            return apply(entry, [evaluate_node(a, case, size, offsets, apply) for a in args])
    raise TypeError(node)


def reduction_operand(kernel: Kernel, dtype_name: str, case: Case,
                      apply: Apply = ieee) -> np.ndarray:
    """The values a reduction kernel reduces (its elementwise body on the case)."""
    return evaluate_node(kernel.elementwise_body(dtype_name), case, case.size, apply=apply)


def expected_output(kernel: Kernel, dtype_name: str, case: Case,
                    apply: Apply = ieee) -> np.ndarray:
    """What the kernel must produce for ``case``: n elements, or one for a reduction, or
    a transform kernel's rows (fpgakern.verify.spectral; no op of theirs depends on
    ``apply``)."""
    if kernel.transform is not None:
        return spectral.expected(kernel, case)
    return evaluate_node(kernel.graph(dtype_name), case, case.size, apply=apply)


def ordered_ints(x: np.ndarray) -> np.ndarray:
    """float32 bit patterns mapped to integers that are monotonic in the float order, so
    that the difference of two is their distance in ulps (-0 and +0 are one apart)."""
    bits = x.astype(np.float32).view(np.int32).astype(np.int64)
    return np.where(bits < 0, -(bits & 0x7FFF_FFFF) - 1, bits)


def step_ulps(values: np.ndarray, ulps: int) -> np.ndarray:
    """float32 ``values`` moved ``ulps`` places along the floats (negative: down), never
    past an infinity; NaNs stay NaN. -0 and +0 count as one place apart."""
    ordered = np.clip(ordered_ints(values) + ulps, -0x7F80_0000 - 1, 0x7F80_0000)
    moved = np.where(ordered < 0, (-(ordered + 1)) | 0x8000_0000, ordered)
    out = moved.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(values), values, out)


def inexact_inner_applications(kernel: Kernel, dtype_name: str) -> list[expr.Apply]:
    """The applications of ulp-bounded ops whose results feed another op
    (:meth:`Kernel.inexact_inner_applications`): for a broadcast kernel, those of its
    stages (:func:`shaped_expected`)."""
    return kernel.inexact_inner_applications(dtype_name)


def ulp_offsets(dtype_name: str, applications: list[expr.Apply]) -> Iterator[dict[int, int]]:
    """Each way of moving ``applications`` within their ops' bounds but not moving them
    all by 0 ((2k + 1)^m - 1 of them): ulps by ``id`` of the node, for the evaluators'
    ``offsets``."""
    steps = [range(-a.op.accuracy_for(dtype_name).ulps, a.op.accuracy_for(dtype_name).ulps + 1)
             for a in applications]
    for combination in itertools.product(*steps):
        if any(combination):
            yield {id(a): k for a, k in zip(applications, combination, strict=True)}


def perturbed_outputs(kernel: Kernel, dtype_name: str, case: Case,
                      applications: list[expr.Apply], apply: Apply = ieee) -> Iterator[np.ndarray]:
    """The kernel's output with each of ``applications`` moved every number of ulps its
    op's bound allows, one array for each combination ((2k + 1)^m - 1 of them)."""
    for offsets in ulp_offsets(dtype_name, applications):
        yield evaluate_node(kernel.graph(dtype_name), case, case.size, offsets, apply)


def perturbed_shaped_outputs(kernel: Kernel, dtype_name: str,
                             tensors: Mapping[str, np.ndarray],
                             scalars: Mapping[str, float | int],
                             applications: list[expr.Apply],
                             apply: Apply = ieee) -> Iterator[np.ndarray]:
    """:func:`perturbed_outputs` for a broadcast kernel: :func:`shaped_expected` with
    ``applications`` (of its stages: :func:`inexact_inner_applications`) moved."""
    for offsets in ulp_offsets(dtype_name, applications):
        yield shaped_expected(kernel, dtype_name, tensors, scalars, offsets, apply)


def shaped_expected(kernel: Kernel, dtype_name: str, tensors: Mapping[str, np.ndarray],
                    scalars: Mapping[str, float | int],
                    offsets: Mapping[int, int] | None = None,
                    apply: Apply = ieee) -> np.ndarray:
    """What a shaped kernel (fpgakern.ir.shapes) must produce for whole tensors of their
    real shapes (the main tensor's, per-channel operands' (C,)). A broadcast kernel's
    result is exact: its stages evaluated with the op table's float32 references in the
    hardware's order. A row kernel's is the float64 evaluation of its expression rounded
    to float32, which its stated ``rows`` accuracy is held to (compare.compare_rows).
    ``offsets`` moves a broadcast kernel's applications as :func:`evaluate_node`'s do
    (:func:`perturbed_shaped_outputs`)."""
    staged = kernel.staged(dtype_name)
    layout = kernel.layout
    assert staged is not None and layout is not None
    main = np.asarray(tensors[kernel.inputs[0]])
    dims = shapes.expand(layout.main, main.ndim)
    assert dims is not None
    if staged.kind == "broadcast":
        assert layout.channel_dim is not None
        axis = dims.index(layout.channel_dim)
        view = [1] * main.ndim
        view[axis] = main.shape[axis]
        env = {x: np.asarray(tensors[x]) for x in layout.full_inputs}
        channel = {x: np.asarray(tensors[x]) for x in layout.channel_inputs}
        for value in staged.channel_values:
            channel[value.name] = _evaluate(value.node, channel, scalars, wide=False,
                                            offsets=offsets, apply=apply)
        env.update({name: a.reshape(view) for name, a in channel.items()})
        out = _evaluate(staged.body, env, scalars, wide=False, offsets=offsets, apply=apply)
        return np.broadcast_to(out, main.shape).astype(DTYPES[dtype_name].numpy)
    assert not offsets, "offsets move a broadcast kernel's applications only"
    cols = main.shape[-1] if main.ndim else 1
    rows = int(np.prod(main.shape[:-1])) if main.ndim else 1  # (rows, 0) has rows too
    env = {x: np.asarray(tensors[x], dtype=np.float64).reshape(rows, cols)
           for x in layout.full_inputs}
    env.update({x: np.asarray(tensors[x], dtype=np.float64).reshape(1, cols)
                for x in layout.channel_inputs})
    row_env: dict[str, np.ndarray] = {}
    with np.errstate(all="ignore"):
        for stat in staged.stats:
            operand = _evaluate(stat.operand, {**env, **row_env}, scalars, wide=True,
                                apply=apply)
            row_env[stat.name] = _row_reduce(stat.op.name, np.broadcast_to(operand,
                                                                           (rows, cols)))
        for value in staged.row_values:
            row_env[value.name] = _evaluate(value.node, row_env, scalars, wide=True,
                                           apply=apply)
        out = _evaluate(staged.body, {**env, **row_env}, scalars, wide=True, apply=apply)
        out = np.broadcast_to(out, (rows, cols))
        if staged.final is not None:
            out = _row_reduce(staged.final.name, out)
            return out.reshape(main.shape[:-1]).astype(np.float32)
        return out.reshape(main.shape).astype(np.float32)


def _row_reduce(op: str, values: np.ndarray) -> np.ndarray:
    """A reduction along each row, in float64, keeping the row axis (rows, 1)."""
    if values.shape[-1] == 0:
        return np.full((values.shape[0], 1), shapes.EMPTY_ROW_RESULT[op])
    reduce: Callable[..., np.ndarray] = getattr(np, op)  # sum, mean, max, min, prod
    return reduce(values, axis=-1, keepdims=True)


def _evaluate(node: expr.Node, env: Mapping[str, np.ndarray],
              scalars: Mapping[str, float | int | np.ndarray], *, wide: bool,
              offsets: Mapping[int, int] | None = None, apply: Apply = ieee) -> np.ndarray:
    """Evaluate ``node`` on arrays that broadcast together. ``wide``: in float64 (each op's
    reference on float64 operands; fma as one float64 multiply-add), else in the dtypes
    of the graph, with the op table's references. ``offsets`` (not ``wide``) moves the
    float32 results of some applications, as :func:`evaluate_node`'s does."""
    if offsets and id(node) in offsets and isinstance(node, expr.Apply):
        assert not wide, "offsets move float32 results"
        exact = _evaluate(node, env, scalars, wide=wide,
                          offsets={k: v for k, v in offsets.items() if k != id(node)},
                          apply=apply)
        return step_ulps(exact, offsets[id(node)])

    def dtype(name: str) -> type[np.generic]:
        return np.float64 if wide else DTYPES[name].numpy.type

    match node:
        case expr.Input(name=name):
            return np.asarray(env[name], dtype=dtype(node.dtype))
        case expr.Scalar(name=name):
            return np.asarray(scalars[name], dtype=dtype(node.dtype))
        case expr.Const(value=value):
            return np.asarray(value, dtype=dtype(node.dtype))
        case expr.Apply(op=entry, args=args):
            operands = [_evaluate(a, env, scalars, wide=wide, offsets=offsets, apply=apply)
                        for a in args]
            if wide and entry.name == "fma":
                return operands[0] * operands[1] + operands[2]
            operands = list(np.broadcast_arrays(*operands))
            return np.asarray(apply(entry, operands))
    raise TypeError(node)


def evaluate(node: expr.Node, env: Mapping[str, np.ndarray],
             scalars: Mapping[str, float | int | np.ndarray], apply: Apply = ieee) -> np.ndarray:
    """Evaluate ``node`` in its graph's dtypes on arrays that broadcast together (a
    contraction's epilogue over ``acc`` and its indexed inputs, fpgakern.verify.matmul; a
    register kernel's results over arrays of its scalars)."""
    return _evaluate(node, env, scalars, wide=False, apply=apply)
