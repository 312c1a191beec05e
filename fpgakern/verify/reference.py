"""The numpy oracle: evaluate a kernel's typed graph with the op table's references."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping

import numpy as np

from fpgakern.ir import expr
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.kernel import Kernel
from fpgakern.verify.stimulus import Case


def evaluate_node(node: expr.Node, case: Case, size: int,
                  offsets: Mapping[int, int] | None = None) -> np.ndarray:
    """Evaluate one node on a case; scalars and literals broadcast to ``size`` elements.
    ``offsets`` moves the float32 results of some applications (by ``id`` of the node) that
    many ulps (:func:`perturbed_outputs`)."""
    if offsets and id(node) in offsets and isinstance(node, expr.Apply):
        exact = evaluate_node(node, case, size, {k: v for k, v in offsets.items()
                                                 if k != id(node)})
        return step_ulps(exact, offsets[id(node)])
    match node:
        case expr.Input(name=name):
            return np.asarray(case.tensors[name], dtype=DTYPES[node.dtype].numpy)
        case expr.Scalar(name=name):
            return np.full(size, case.scalars[name], dtype=DTYPES[node.dtype].numpy)
        case expr.Const(value=value):
            return np.full(size, value, dtype=DTYPES[node.dtype].numpy)
        case expr.Apply(op=entry, args=args):
            return entry.reference(*(evaluate_node(a, case, size, offsets) for a in args))
    raise TypeError(node)


def reduction_operand(kernel: Kernel, dtype_name: str, case: Case) -> np.ndarray:
    """The values a reduction kernel reduces (its elementwise body on the case)."""
    return evaluate_node(kernel.elementwise_body(dtype_name), case, case.size)


def expected_output(kernel: Kernel, dtype_name: str, case: Case) -> np.ndarray:
    """What the kernel must produce for ``case``: n elements, or one for a reduction."""
    return evaluate_node(kernel.graph(dtype_name), case, case.size)


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
    """The applications of ulp-bounded ops whose results feed another op (not the root):
    where the hardware may pick another float than the reference, within the op's bound,
    and the ops after it carry the difference on."""
    root = kernel.graph(dtype_name)
    found: dict[int, expr.Apply] = {}
    for node in root.walk():
        if (node is not root and isinstance(node, expr.Apply)
                and node.op.accuracy_for(dtype_name).kind == "ulp"):
            found.setdefault(id(node), node)
    return list(found.values())


def perturbed_outputs(kernel: Kernel, dtype_name: str, case: Case,
                      applications: list[expr.Apply]) -> Iterator[np.ndarray]:
    """The kernel's output with each of ``applications`` moved every number of ulps its
    op's bound allows, one array for each combination ((2k + 1)^m of them)."""
    steps = [range(-a.op.accuracy_for(dtype_name).ulps, a.op.accuracy_for(dtype_name).ulps + 1)
             for a in applications]
    for combination in itertools.product(*steps):
        if any(combination):
            offsets = {id(a): k for a, k in zip(applications, combination, strict=True)}
            yield evaluate_node(kernel.graph(dtype_name), case, case.size, offsets)
