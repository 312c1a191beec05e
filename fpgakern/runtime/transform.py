"""The host's side of a transform kernel call (spectral kernels, fpgakern.ir.fft).

The hardware contract (docs/spectral.md): ``rows`` transforms of length ``n``; a row of
the input holds fft.input_length(n) elements, of the output fft.output_length(n), each
row starting at a multiple of its pointer's lanes (at rung 4, 8 complex or 16 float32
elements: the host pads rows on the way in and strips the padding on the way out).
Rows are split across compute units. Every result is multiplied by the ``scale``
register, which the host makes from torch's ``norm`` (fft.norm_scale).

Arrays arrive with any leading shape; the last dimension is transformed. ``n`` pads
with zeros or trims the last dimension as torch.fft does (irfft: to n/2 + 1 bins).
"""

from __future__ import annotations

import math

import numpy as np

from fpgakern.errors import UsageError
from fpgakern.ir import fft
from fpgakern.ir.kernel import Kernel
from fpgakern.ladder import Plan
from fpgakern.runtime import host

INT32_MAX = 2**31 - 1


def length(kernel: Kernel, last: int, n: int | None) -> int:
    """The transform length: ``n``, or torch's default from the last dimension (its
    length; irfft: 2 * (length - 1)); a UsageError unless a power of two the kernels take."""
    assert kernel.transform is not None
    if n is None:
        n = fft.default_length(kernel.transform, last)
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise UsageError(f"{kernel.qualname}: n must be an int, got {n!r}")
    try:
        fft.check_length(int(n))
    except ValueError as err:
        raise UsageError(f"{kernel.qualname}: {err}") from None
    return int(n)


def check_input(kernel: Kernel, arrays: tuple[object, ...], where: str) -> np.ndarray:
    """The one input array of a transform call, checked."""
    if len(arrays) != 1:
        raise UsageError(f"{where} takes 1 array ({kernel.inputs[0]}), got {len(arrays)}")
    a = arrays[0]
    if not isinstance(a, np.ndarray):
        raise UsageError(f"{where}: {kernel.inputs[0]} must be a numpy array, got "
                         f"{type(a).__name__}")
    if a.ndim == 0:
        raise UsageError(f"{where}: {kernel.inputs[0]} is a 0-d array; a transform needs a "
                         "last dimension")
    if a.size > INT32_MAX:
        raise UsageError(f"{where}: {a.size} elements; the kernel's size registers are "
                         "32-bit ints")
    return a


def fit(kernel: Kernel, a: np.ndarray, n: int) -> np.ndarray:
    """``a`` with its last dimension zero-padded or trimmed to the input row length of a
    transform of ``n``, as torch.fft does, as contiguous rows."""
    assert kernel.transform is not None
    cols = fft.input_length(kernel.transform, n)
    last = a.shape[-1]
    if last >= cols:
        return np.ascontiguousarray(a[..., :cols])
    padded = np.zeros((*a.shape[:-1], cols), dtype=a.dtype)
    padded[..., :last] = a
    return padded


def _pitch(count: int, lanes: int) -> int:
    return -(-count // lanes) * lanes


def prepare(plan: Plan, compute_units: int, rows_in: np.ndarray, n: int,
            scalars: dict[str, int]) -> host.Prepared:
    """Pad the rows to their pitch and split them over the CUs."""
    kernel = plan.kernel
    assert kernel.transform is not None
    shape = rows_in.shape
    rows = math.prod(shape[:-1])
    in_cols = fft.input_length(kernel.transform, n)
    out_cols = fft.output_length(kernel.transform, n)
    in_pitch = _pitch(in_cols, plan.arch.pointer_lanes(kernel.inputs[0]))
    out_pitch = _pitch(out_cols, plan.arch.pointer_lanes(kernel.output))
    buf = host.aligned_zeros(rows * in_pitch, rows_in.dtype)
    if rows:
        buf.reshape(rows, in_pitch)[:, :in_cols] = rows_in.reshape(rows, in_cols)
    out_dtype = kernel.output_dtype(plan.dtype.name).numpy
    output = host.aligned_zeros(rows * out_pitch, out_dtype)
    per_cu = -(-rows // compute_units) if rows else 0
    shares = []
    for cu in range(compute_units):
        first = per_cu * cu
        if first >= rows:
            break
        count = min(per_cu, rows - first)
        inputs = [buf[first * in_pitch:(first + count) * in_pitch]]
        out = output[first * out_pitch:(first + count) * out_pitch]
        shares.append(host.Share(cu, inputs, out, count * n,
                                 count * in_pitch // plan.arch.pointer_lanes(kernel.inputs[0]),
                                 {"rows": count, "n": n}))
    out_shape = (*shape[:-1], out_cols)
    return host.Prepared(plan, rows * n, shares, scalars, output, out_shape,
                         [rows * in_pitch * buf.itemsize])


def finish(prepared: host.Prepared) -> np.ndarray:
    """The call's result in the output's shape, the row padding stripped."""
    assert prepared.main_shape is not None
    out_shape = prepared.main_shape
    rows = math.prod(out_shape[:-1])
    cols = out_shape[-1]
    if not rows:
        return prepared.output[:0].reshape(out_shape).copy()
    plan = prepared.plan
    pitch = _pitch(cols, plan.arch.pointer_lanes(plan.kernel.output))
    padded = prepared.output[:rows * pitch].reshape(rows, pitch)
    return np.ascontiguousarray(padded[:, :cols]).reshape(out_shape)
