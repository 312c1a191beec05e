"""torch signatures of the contraction kernels (matrix_ops): how a call of ``torch.mm``,
``torch.bmm``, ``torch.addmm`` or ``torch.nn.functional.linear`` maps onto a kernel.

Each binder checks the call the way torch does (dimensions, the summed size, one dtype)
and, where torch would refuse it, says so (:data:`TORCH_REFUSES`): the op then calls the
torch operator on the real arguments, which raises torch's own error (``mat1 and mat2
shapes cannot be multiplied (2x3 and 4x5)``). Otherwise it gives the kernel's tensors in
the spec's order (views: the runtime gathers strided ones, such as ``w.T``, into the
contiguous index order the kernel reads, runtime/matrix.py), its scalars, and how torch's
answer follows, or the reason no kernel computes it (a fallback).

float32 results are torch's up to rounding: the kernel sums in its declared order
(docs/matrix.md), torch's BLAS in its own, and both are within the stated bound of the
exact product (``gamma_d * sum|a b| + K 2^-150``, docs/matrix.md "Bound"). What an order
could change beyond rounding falls back: operands so large that a partial sum might
overflow in one order and not in another. A zero result of ``mm``, ``bmm`` and ``linear``
without bias is +0, as torch's accumulators start at +0 (the kernel's first product
itself may be -0). int32 results wrap as torch's, and are torch's bits (modular sums do
not depend on the order).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

TORCH_REFUSES = "torch refuses these arguments"
_DTYPES = (torch.float32, torch.int32)
_FLT_MAX = float(torch.finfo(torch.float32).max)


@dataclass(frozen=True)
class MatrixCall:
    """One call on a kernel: which (``kernel``: the op's own, or another kernel of its
    category, as ``linear`` without bias runs ``mm``), its tensors in spec order, its
    scalars, the result's shape, and whether a zero result is +0 (torch's)."""

    kernel: str
    tensors: tuple[torch.Tensor, ...]
    scalars: dict[str, Any]
    shape: tuple[int, ...]
    plus_zero: bool


Bind = Callable[[str, dict[str, Any]], MatrixCall | str]


@dataclass(frozen=True)
class MatrixSignature:
    schema: str  # torch's argument list, in torch.library schema syntax
    names: tuple[str, ...]  # the positional parameters, in order
    defaults: Mapping[str, Any]
    bind: Bind

    def arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        bound = dict(self.defaults)
        bound.update(zip(self.names, args, strict=False))
        bound.update(kwargs)
        return bound


def _dtype(tensors: list[torch.Tensor]) -> str | None:
    """Why these operands run on no kernel (None: they do)."""
    if any(t.device.type != "cpu" for t in tensors):
        return "operands not in host memory"
    dtype = tensors[0].dtype
    if dtype not in _DTYPES:
        return f"no {dtype} variant of the kernel (float32 and int32)"
    return None


def overflow_risk(a: torch.Tensor, b: torch.Tensor, k: int) -> str | None:
    """Why the kernel's float32 sums of ``a``'s by ``b``'s products may not be torch's
    beyond rounding, or None. Another summation order changes the rounding, never whether
    a partial sum overflows, as long as K times the largest product (grown by K + 2
    roundings of at most 2^-24 each) stays below FLT_MAX; NaN and infinite products then
    decide every order alike."""
    if k <= 2 or not a.dtype.is_floating_point or a.numel() == 0 or b.numel() == 0:
        return None

    def largest(x: torch.Tensor) -> float:
        finite = x[torch.isfinite(x)]
        return float(finite.abs().max()) if finite.numel() else 0.0

    if k * math.exp((k + 2) * 2.0**-24) * largest(a) * largest(b) <= _FLT_MAX:
        return None
    return ("products this large may overflow a partial sum in one summation order and "
            "not in another (the kernel's order is not torch's BLAS's)")


def _mm(kernel: str, a: dict[str, Any]) -> MatrixCall | str:
    x, y = a["input"], a["mat2"]
    if x.dim() != 2 or y.dim() != 2 or x.shape[1] != y.shape[0] or x.dtype != y.dtype:
        return TORCH_REFUSES
    problem = _dtype([x, y]) or overflow_risk(x, y, x.shape[1])
    if problem:
        return problem
    return MatrixCall(kernel, (x, y), {}, (x.shape[0], y.shape[1]), True)


def _bmm(kernel: str, a: dict[str, Any]) -> MatrixCall | str:
    x, y = a["input"], a["mat2"]
    if (x.dim() != 3 or y.dim() != 3 or x.shape[0] != y.shape[0]
            or x.shape[2] != y.shape[1] or x.dtype != y.dtype):
        return TORCH_REFUSES
    problem = _dtype([x, y]) or overflow_risk(x, y, x.shape[2])
    if problem:
        return problem
    return MatrixCall(kernel, (x, y), {}, (x.shape[0], x.shape[1], y.shape[2]), True)


def _broadcasts(t: torch.Tensor, shape: tuple[int, ...]) -> bool:
    try:
        return tuple(torch.broadcast_shapes(t.shape, shape)) == shape
    except RuntimeError:
        return False


def _scalars(dtype: torch.dtype, values: dict[str, Any]) -> dict[str, Any] | str:
    out = {}
    for name, value in values.items():
        if isinstance(value, torch.Tensor):
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, int | float):
            return TORCH_REFUSES
        if not dtype.is_floating_point and not float(value).is_integer():
            return (f"{name}={value!r} for {dtype} operands: torch converts a fractional "
                    "scalar its own way; the int32 kernel takes integers")
        out[name] = value
    return out


def _addmm(kernel: str, a: dict[str, Any]) -> MatrixCall | str:
    z, x, y = a["input"], a["mat1"], a["mat2"]
    if (x.dim() != 2 or y.dim() != 2 or x.shape[1] != y.shape[0]
            or len({x.dtype, y.dtype, z.dtype}) > 1):
        return TORCH_REFUSES
    return _scaled_sum(kernel, a, z, x, y, (x.shape[0], y.shape[1]))


def _baddbmm(kernel: str, a: dict[str, Any]) -> MatrixCall | str:
    z, x, y = a["input"], a["batch1"], a["batch2"]
    if (x.dim() != 3 or y.dim() != 3 or x.shape[0] != y.shape[0] or x.shape[2] != y.shape[1]
            or len({x.dtype, y.dtype, z.dtype}) > 1):
        return TORCH_REFUSES
    return _scaled_sum(kernel, a, z, x, y, (x.shape[0], x.shape[1], y.shape[2]))


def _scaled_sum(kernel: str, a: dict[str, Any], z: torch.Tensor, x: torch.Tensor,
                y: torch.Tensor, shape: tuple[int, ...]) -> MatrixCall | str:
    """addmm and baddbmm: beta * z + alpha * (x @ y), z broadcast to the result's shape."""
    if not _broadcasts(z, shape):
        return TORCH_REFUSES
    scalars = _scalars(x.dtype, {"beta": a["beta"], "alpha": a["alpha"]})
    if isinstance(scalars, str):
        return scalars
    if scalars["beta"] == 0:
        return ("beta=0: torch ignores input (its NaN and inf are not propagated); the "
                "kernel computes beta * input")
    problem = _dtype([x, y, z]) or overflow_risk(x, y, x.shape[-1])
    if problem:
        return problem
    return MatrixCall(kernel, (x, y, z.expand(shape)), scalars, shape, False)


def _linear(kernel: str, a: dict[str, Any]) -> MatrixCall | str:
    x, w, bias = a["input"], a["weight"], a["bias"]
    if x.dim() < 1 or w.dim() != 2 or x.shape[-1] != w.shape[1] or x.dtype != w.dtype or (
            bias is not None and bias.dtype != x.dtype):
        if w.dim() == 1 and x.dim() >= 1 and x.shape[-1] == w.shape[0]:
            return "a 1-D weight (torch's linear then drops the output dimension)"
        return TORCH_REFUSES
    n = w.shape[0]
    rows = x.reshape(-1, x.shape[-1])
    shape = (*x.shape[:-1], n)
    problem = _dtype([x, w] if bias is None else [x, w, bias]) or overflow_risk(
        rows, w, x.shape[-1])
    if problem:
        return problem
    if bias is None:  # x @ w.T on the mm kernel: w.T gathered into (K, N)
        category = kernel.rsplit("/", 1)[0]
        return MatrixCall(f"{category}/mm", (rows, w.t()), {}, shape, True)
    if not _broadcasts(bias, (n,)):
        if _broadcasts(bias, shape):
            return "a bias of more than the output's last dimension (the kernel's is (N,))"
        return TORCH_REFUSES
    return MatrixCall(kernel, (rows, w, bias.expand(n)), {}, shape, False)


SIGNATURES: dict[str, MatrixSignature] = {
    "torch.mm": MatrixSignature("(Tensor input, Tensor mat2) -> Tensor", ("input", "mat2"),
                                {}, _mm),
    "torch.bmm": MatrixSignature("(Tensor input, Tensor mat2) -> Tensor",
                                 ("input", "mat2"), {}, _bmm),
    "torch.addmm": MatrixSignature(
        "(Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
        ("input", "mat1", "mat2"), {"beta": 1, "alpha": 1}, _addmm),
    "torch.baddbmm": MatrixSignature(
        "(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) "
        "-> Tensor", ("input", "batch1", "batch2"), {"beta": 1, "alpha": 1}, _baddbmm),
    "torch.nn.functional.linear": MatrixSignature(
        "(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
        ("input", "weight", "bias"), {"bias": None}, _linear),
}


def _matmul(kernel: str, a: dict[str, Any]) -> MatrixCall | str:
    """torch.matmul on the mm kernel (``kernel``) or, with batch dimensions, the bmm kernel
    of its category: a 1-D operand gets a dimension of 1 (dropped from the result), the
    batch dimensions broadcast, and each output is one sum over K in the declared order
    whichever kernel computes it."""
    x, y = a["input"], a["other"]
    if x.dim() == 0 or y.dim() == 0 or x.dtype != y.dtype:
        return TORCH_REFUSES
    xm = x[None] if x.dim() == 1 else x  # (..., M, K)
    ym = y[:, None] if y.dim() == 1 else y  # (..., K, N)
    if xm.shape[-1] != ym.shape[-2]:
        return TORCH_REFUSES
    try:
        batch = tuple(torch.broadcast_shapes(xm.shape[:-2], ym.shape[:-2]))
    except RuntimeError:
        return TORCH_REFUSES
    m, k, n = xm.shape[-2], xm.shape[-1], ym.shape[-1]
    shape = (*batch, *((m,) if x.dim() > 1 else ()), *((n,) if y.dim() > 1 else ()))
    problem = _dtype([x, y]) or overflow_risk(x, y, k)
    if problem:
        return problem
    category = kernel.rsplit("/", 1)[0]
    if not batch:
        return MatrixCall(kernel, (xm, ym), {}, shape, True)
    if ym.dim() == 2:  # (..., M, K) @ (K, N): the rows folded into one mm, as torch does
        return MatrixCall(kernel, (xm.reshape(-1, k), ym), {}, shape, True)
    count = math.prod(batch)
    xb = xm.expand(*batch, m, k).reshape(count, m, k)
    yb = ym.expand(*batch, k, n).reshape(count, k, n)
    return MatrixCall(f"{category}/bmm", (xb, yb), {}, shape, True)


MATMUL = MatrixSignature("(Tensor input, Tensor other) -> Tensor", ("input", "other"), {},
                         _matmul)
