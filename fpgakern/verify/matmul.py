"""The numpy reference of a contraction kernel, in its one declared accumulation order.

fpgakern.ir.contraction.ACCUMULATION_ORDER: for each output, PARTIALS (64) strided partial
sums, partial q sequential over k = q, q + 64, ... (its first product, then
``acc = acc + a[k] * b[k]``), then the min(K, 64) partials combined by a fixed pairwise
tree, every product and every sum rounded to the element type (float32: round to nearest
even, no fused multiply-add; int32: wrapping, as torch's integer mm). K = 0 gives +0.
Vectorised over the batch, m and n; loops over k and the tree, so that the order is the
loops' and never numpy's (``np.matmul`` and ``np.dot`` go to BLAS, which blocks and
reorders the sum).

:func:`exact` is the exact result (math.fsum of the exact float64 products, correctly
rounded to float64) and :func:`error_bound` the bound the declared order keeps to it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from fpgakern.ir.contraction import PARTIALS, Contraction, tree_levels
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.kernel import ACC, Kernel
from fpgakern.verify import reference
from fpgakern.verify.stimulus import Case

# float32's unit roundoff, and half its smallest subnormal (a product's absolute error
# when it underflows; sums of subnormals are exact).
UNIT_ROUNDOFF = 2.0 ** -24
UNDERFLOW = 2.0 ** -150


def canonical(contraction: Contraction, a: np.ndarray, b: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """The operands as (batch, m, k) and (batch, k, n) views (no copies: transposes)."""
    def view(x: np.ndarray, indices: str, order: tuple[str | None, ...]) -> np.ndarray:
        present = [i for i in order if i is not None]
        x = np.transpose(x, [indices.index(i) for i in present])
        shape = [x.shape[present.index(i)] if i is not None else 1 for i in order]
        return x.reshape(shape)
    c = contraction
    return (view(a, c.a, (c.batch, c.free_a, c.summed)),
            view(b, c.b, (c.batch, c.summed, c.free_b)))


def accumulate(a: np.ndarray, b: np.ndarray, dtype_name: str) -> np.ndarray:
    """(batch, m, k) by (batch, k, n) in the declared order: a (batch, m, n) array."""
    numpy = DTYPES[dtype_name].numpy
    a = np.asarray(a, dtype=numpy)
    b = np.asarray(b, dtype=numpy)
    batch, m, k = a.shape
    n = b.shape[2]
    if k == 0:
        return np.zeros((batch, m, n), dtype=numpy)
    with np.errstate(all="ignore"):  # inf, NaN and int32 wrapping are the point
        partials = []
        for q in range(min(k, PARTIALS)):
            acc = a[:, :, q, None] * b[:, None, q, :]
            for step in range(q + PARTIALS, k, PARTIALS):
                acc = acc + a[:, :, step, None] * b[:, None, step, :]
            partials.append(acc)
        return np.asarray(combine(partials), dtype=numpy)


def combine(partials: list[np.ndarray]) -> np.ndarray:
    """The declared tree over the partial sums: pairs (0, 1), (2, 3), ... added, an odd
    last passed up unchanged, level by level until one is left."""
    while len(partials) > 1:
        pairs = [partials[i] + partials[i + 1] for i in range(0, len(partials) - 1, 2)]
        partials = pairs + partials[len(pairs) * 2:]
    return partials[0]


def _epilogue_env(kernel: Kernel, dtype_name: str, tensors: Mapping[str, np.ndarray]
                  ) -> tuple[dict[str, np.ndarray], tuple[int, ...]]:
    """The epilogue's operands: ``acc`` in the declared order as (batch, m, n), each
    further input shaped to broadcast over it; and the output's shape."""
    contraction = kernel.contraction
    assert contraction is not None, kernel.qualname
    a = tensors[kernel.inputs[0]]
    b = tensors[kernel.inputs[1]]
    batch, m, n, _ = contraction.sizes(a.shape, b.shape)
    env: dict[str, np.ndarray] = {ACC: accumulate(*canonical(contraction, a, b), dtype_name)}
    for name, indices in kernel.indices:
        order = (contraction.batch, contraction.free_a, contraction.free_b)
        shape = [tensors[name].shape[indices.index(i)] if i is not None and i in indices
                 else 1 for i in order]
        env[name] = np.asarray(tensors[name]).reshape(shape)
    return env, contraction.output_shape(batch, m, n)


def contract(kernel: Kernel, dtype_name: str, tensors: Mapping[str, np.ndarray],
             scalars: Mapping[str, float | int] | None = None) -> np.ndarray:
    """A contraction kernel's output for ``tensors`` (its inputs by name), in the output's
    index order, epilogue applied."""
    env, out_shape = _epilogue_env(kernel, dtype_name, tensors)
    values = {s.name: s.default for s in kernel.scalars} | dict(scalars or {})
    with np.errstate(all="ignore"):
        out = reference.evaluate(kernel.graph(dtype_name), env, values)
    out = np.broadcast_to(out, env[ACC].shape).astype(DTYPES[dtype_name].numpy)
    return out.reshape(out_shape)


def epilogue_case(kernel: Kernel, dtype_name: str, tensors: Mapping[str, np.ndarray],
                  scalars: Mapping[str, float | int] | None = None) -> Case:
    """The epilogue as an elementwise case, one element per output: ``acc`` in the declared
    order and the further inputs broadcast to it (what fpgakern.verify.compare.judge takes,
    for an epilogue of inexact operators)."""
    env, _ = _epilogue_env(kernel, dtype_name, tensors)
    shape = env[ACC].shape
    flat = {name: np.ascontiguousarray(np.broadcast_to(x, shape)).ravel()
            for name, x in env.items()}
    values = {s.name: s.default for s in kernel.scalars} | dict(scalars or {})
    return Case("epilogue", flat, values)


def exact(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(m, k) by (k, n) float32 operands, exactly: each float32 product is exact in
    float64, and math.fsum rounds their sum once (to float64)."""
    a64 = np.asarray(a, dtype=np.float64)
    b64 = np.asarray(b, dtype=np.float64)
    out = np.empty((a64.shape[0], b64.shape[1]))
    for i in range(a64.shape[0]):
        products = a64[i, :, None] * b64
        for j in range(b64.shape[1]):
            out[i, j] = math.fsum(products[:, j])
    return out


def gamma(k: int) -> float:
    """gamma_K = K u / (1 - K u): the relative bound of K rounded steps (Higham, 3.1)."""
    return k * UNIT_ROUNDOFF / (1 - k * UNIT_ROUNDOFF)


def rounding_depth(k: int) -> int:
    """How many rounded steps any product's error passes through in the declared order:
    its own rounding, the sums of its partial after it (at most ceil(K/P) - 1) and the
    tree's levels."""
    if k == 0:
        return 0
    return -(-k // PARTIALS) + tree_levels(min(k, PARTIALS))


def error_bound(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The declared order's bound on |ours - exact| for each output of finite (m, k) by
    (k, n) float32 operands without overflow: gamma_d * sum_k |a b| + K * 2^-150, with d
    the rounding depth (:func:`rounding_depth`: ceil(K/64) + ceil(log2 min(K, 64))). A
    product rounds once and its error carries on through every later sum of its partial
    and every level of the tree (the classical bound for summation, Higham 3.1, with the
    depth of this order's summation tree); an underflowing product also loses at most half
    a subnormal ulp (sums of subnormals are exact)."""
    k = a.shape[1]
    magnitude = np.abs(np.asarray(a, np.float64)) @ np.abs(np.asarray(b, np.float64))
    # float64 BLAS's own rounding of the magnitude: a relative 2^-52 K, far below gamma.
    return gamma(rounding_depth(k)) * magnitude * (1 + 2.0 ** -40) + k * UNDERFLOW
