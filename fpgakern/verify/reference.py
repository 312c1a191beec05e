"""The numpy oracle: evaluate a kernel's typed graph with the op table's references."""

from __future__ import annotations

import numpy as np

from fpgakern.ir import expr
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.kernel import Kernel
from fpgakern.verify.stimulus import Case


def evaluate_node(node: expr.Node, case: Case, size: int) -> np.ndarray:
    """Evaluate one node on a case; scalars and literals broadcast to ``size`` elements."""
    match node:
        case expr.Input(name=name):
            return np.asarray(case.tensors[name], dtype=DTYPES[node.dtype].numpy)
        case expr.Scalar(name=name):
            return np.full(size, case.scalars[name], dtype=DTYPES[node.dtype].numpy)
        case expr.Const(value=value):
            return np.full(size, value, dtype=DTYPES[node.dtype].numpy)
        case expr.Apply(op=entry, args=args):
            return entry.reference(*(evaluate_node(a, case, size) for a in args))
    raise TypeError(node)


def reduction_operand(kernel: Kernel, dtype_name: str, case: Case) -> np.ndarray:
    """The values a reduction kernel reduces (its elementwise body on the case)."""
    return evaluate_node(kernel.elementwise_body(dtype_name), case, case.size)


def expected_output(kernel: Kernel, dtype_name: str, case: Case) -> np.ndarray:
    """What the kernel must produce for ``case``: n elements, or one for a reduction."""
    return evaluate_node(kernel.graph(dtype_name), case, case.size)
