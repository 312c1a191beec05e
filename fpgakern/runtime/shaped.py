"""The host's side of a shaped kernel call (kinds broadcast, row_reduction, row_map).

The hardware contract (docs/spec-format.md, fpgakern.ir.shapes) as the host keeps it:

* broadcast: the main tensor and every full-shaped input and the output are ``n``
  contiguous elements; a per-channel input holds ``channels`` elements (whole words). With
  several compute units, ``n`` is split at multiples of ``inner`` (whole channel runs,
  and whole memory words), each CU told the channel of its first element (``channel0``);
* row kinds: ``rows`` rows of ``cols`` elements, each row starting at a multiple of the
  rung's lanes (the row pitch): the host pads each row on the way in and strips the
  padding on the way out; a row reduction writes ``rows`` contiguous results. Rows are
  split across compute units (a row reduction's at whole words of results).

Arrays arrive with their real shapes: the main tensor any shape fitting the spec's,
per-channel (per-column) operands of shape ``(C,)`` (``(D,)``). Anything else is a
UsageError saying what to pass. An input may be ``host.Placed``: already in device memory in
this layout (rows at the pitch), used in place; the others are copied in (``uploads``).
"""

from __future__ import annotations

import math

import numpy as np

from fpgakern.errors import UsageError
from fpgakern.ir import shapes
from fpgakern.ir.kernel import Kernel
from fpgakern.ladder import Plan
from fpgakern.runtime import host

INT32_MAX = 2**31 - 1


def check_inputs(kernel: Kernel, arrays: tuple[object, ...],
                 where: str) -> tuple[list[host.Input], tuple[int, ...]]:
    """The inputs of a shaped call, checked against the spec's shapes, and the main
    tensor's shape."""
    lay = kernel.layout
    assert lay is not None
    if len(arrays) != len(kernel.inputs):
        raise UsageError(f"{where} takes {len(kernel.inputs)} array(s) "
                         f"({', '.join(kernel.inputs)}), got {len(arrays)}")
    checked: list[host.Input] = []
    for name, a in zip(kernel.inputs, arrays, strict=True):
        if isinstance(a, host.Placed):  # its layout was checked by its owner (device.py)
            checked.append(a)
            continue
        if not isinstance(a, np.ndarray):
            raise UsageError(f"{where}: {name} must be a numpy array, got {type(a).__name__}")
        if not a.flags.c_contiguous:
            raise UsageError(f"{where}: {name} is not contiguous (a strided view); pass "
                             "np.ascontiguousarray(x)")
        checked.append(a)
    main = checked[0]
    main_shape = tuple(int(d) for d in main.shape)
    if shapes.expand(lay.main, main.ndim) is None:
        raise UsageError(f"{where}: {kernel.inputs[0]} has shape {main_shape}, which does "
                         f"not fit {shapes.show(lay.main)}")
    for name, a in zip(kernel.inputs[1:], checked[1:], strict=True):
        want = shapes.operand_shape(name, lay, main_shape)
        if a.shape != want:
            raise UsageError(f"{where}: {name} has shape {a.shape}; beside "
                             f"{kernel.inputs[0]} of shape {main_shape} it must be {want} "
                             f"({shapes.show(lay.shape(name))})")
    dtypes = {a.dtype for a in checked}
    if len(dtypes) > 1:
        raise UsageError(f"{where}: inputs have different dtypes "
                         f"({', '.join(sorted(str(d) for d in dtypes))}); kernels do not "
                         "promote types")
    sizes = shapes.sizes(kernel.kind, lay, main_shape)
    if kernel.kind == "broadcast" and sizes["channels"] > shapes.MAX_CHANNELS:
        raise UsageError(f"{where}: {sizes['channels']} channels; the kernel keeps at most "
                         f"{shapes.MAX_CHANNELS} on chip")
    if kernel.kind != "broadcast" and sizes["cols"] > shapes.MAX_ROW:
        raise UsageError(f"{where}: rows of {sizes['cols']} elements; the kernel keeps at "
                         f"most {shapes.MAX_ROW} on chip")
    if main.size > INT32_MAX:
        raise UsageError(f"{where}: {main.size} elements; the kernel's size registers are "
                         "32-bit ints")
    return checked, main_shape


def _words(count: int, lanes: int) -> int:
    return -(-count // lanes)


def _table(a: host.Input, plan: Plan, uploads: list[int]) -> np.ndarray:
    """A per-channel (per-column) operand in whole memory words."""
    return host.laid_out(a, _words(a.size, plan.arch.lanes) * plan.arch.lanes, plan.dtype.numpy,
                         uploads)


def prepare(plan: Plan, compute_units: int, arrays: list[host.Input],
            main_shape: tuple[int, ...], scalars: dict[str, int]) -> host.Prepared:
    kernel = plan.kernel
    lay = kernel.layout
    assert lay is not None
    sizes = shapes.sizes(kernel.kind, lay, main_shape)
    if kernel.kind == "broadcast":
        return _prepare_broadcast(plan, compute_units, arrays, main_shape, sizes, scalars)
    return _prepare_rows(plan, compute_units, arrays, main_shape, sizes, scalars)


def _prepare_broadcast(plan: Plan, compute_units: int, arrays: list[host.Input],
                       main_shape: tuple[int, ...], sizes: dict[str, int],
                       scalars: dict[str, int]) -> host.Prepared:
    lay = plan.kernel.layout
    assert lay is not None
    lanes, n, inner = plan.arch.lanes, sizes["n"], sizes["inner"]
    words = _words(n, lanes)
    padded: dict[str, np.ndarray] = {}
    tables: dict[str, np.ndarray] = {}
    uploads: list[int] = []
    for name, a in zip(plan.kernel.inputs, arrays, strict=True):
        if name in lay.channel_inputs:
            tables[name] = _table(a, plan, uploads)
        else:
            padded[name] = host.laid_out(a, words * lanes, plan.dtype.numpy, uploads)
    out_dtype = plan.kernel.output_dtype(plan.dtype.name).numpy
    # Whole 512-bit words: a result kept on the device may be read by any rung's kernel.
    output = host.aligned_zeros(host.word_elements(words * lanes, out_dtype), out_dtype)
    # A CU's share starts at a channel run and at a memory word: a multiple of both.
    step = math.lcm(inner, lanes) if inner else lanes
    units = _words(n, step)
    per_cu = _words(units, compute_units) if units else 0
    shares = []
    for cu in range(compute_units):
        first = per_cu * step * cu
        if first >= n:
            break
        count = min(per_cu * step, n - first)
        hi = first + _words(count, lanes) * lanes
        inputs = [tables[name] if name in tables else padded[name][first:hi]
                  for name in plan.kernel.inputs]
        size = {"n": count, "inner": inner, "channels": sizes["channels"],
                "channel0": (first // inner) % sizes["channels"]}
        shares.append(host.Share(cu, inputs, output[first:hi], count,
                                 _words(count, lanes), size))
    return host.Prepared(plan, n, shares, scalars, output, main_shape, uploads)


def pitch(plan: Plan, cols: int) -> int:
    """Elements from one row's start to the next's: cols in whole memory words."""
    return _words(cols, plan.arch.lanes) * plan.arch.lanes


def _rows(a: host.Input, rows: int, cols: int, row_pitch: int, plan: Plan,
          uploads: list[int]) -> np.ndarray:
    """A full-shaped operand of a row kind: its rows at the pitch, zero-padded."""
    if isinstance(a, host.Placed):
        return a.buffer
    buf = host.aligned_zeros(rows * row_pitch, plan.dtype.numpy)
    if rows and cols:
        buf.reshape(rows, row_pitch)[:, :cols] = a.reshape(rows, cols)
    uploads.append(rows * row_pitch * buf.itemsize)
    return buf


def _prepare_rows(plan: Plan, compute_units: int, arrays: list[host.Input],
                  main_shape: tuple[int, ...], sizes: dict[str, int],
                  scalars: dict[str, int]) -> host.Prepared:
    lay = plan.kernel.layout
    assert lay is not None
    lanes, rows, cols = plan.arch.lanes, sizes["rows"], sizes["cols"]
    row_pitch = pitch(plan, cols)
    uploads: list[int] = []
    inputs = {name: _table(a, plan, uploads) if name in lay.channel_inputs
              else _rows(a, rows, cols, row_pitch, plan, uploads)
              for name, a in zip(plan.kernel.inputs, arrays, strict=True)}
    out_dtype = plan.kernel.output_dtype(plan.dtype.name).numpy
    reduces = plan.kernel.kind == "row_reduction"
    # A row reduction's results are contiguous: its CUs' shares start at whole words.
    out_pitch = 1 if reduces else row_pitch
    step = lanes if reduces else 1
    # Whole 512-bit words: a result kept on the device may be read by any rung's kernel.
    output = host.aligned_zeros(
        host.word_elements(_words(rows * out_pitch, lanes) * lanes, out_dtype), out_dtype)
    # A row map of rows of no columns has nothing to write: no CU runs (shapes.sizes counts
    # those rows, which a row reduction still gives a result each).
    units = _words(rows, step) if cols or reduces else 0
    per_cu = _words(units, compute_units) if units else 0
    shares = []
    for cu in range(compute_units):
        first = per_cu * step * cu
        if first >= rows or not units:
            break
        count = min(per_cu * step, rows - first)
        # Rows of no columns (a row reduction of empty rows) read nothing: the CU still
        # gets a buffer to point at.
        shares_in = [inputs[name] if name in lay.channel_inputs or not cols
                     else inputs[name][first * row_pitch:(first + count) * row_pitch]
                     for name in plan.kernel.inputs]
        lo = first * out_pitch
        hi = lo + _words(count * out_pitch, lanes) * lanes
        shares.append(host.Share(cu, shares_in, output[lo:hi], count * cols,
                                 count * row_pitch // lanes, {"rows": count, "cols": cols}))
    return host.Prepared(plan, rows * cols, shares, scalars, output, main_shape, uploads)


def finish(prepared: host.Prepared) -> np.ndarray:
    """The call's result in the output's shape, the row padding stripped."""
    plan = prepared.plan
    lay = plan.kernel.layout
    assert lay is not None and prepared.main_shape is not None
    main_shape = prepared.main_shape
    out_shape = shapes.operand_shape(plan.kernel.output, lay, main_shape)
    count = math.prod(out_shape)
    if plan.kernel.kind != "row_map":
        return prepared.output[:count].reshape(out_shape).copy()
    cols = main_shape[-1]
    rows = count // cols if cols else 0
    padded = prepared.output[:rows * pitch(plan, cols)].reshape(rows, -1) if rows else \
        prepared.output[:0].reshape(0, 0)
    return np.ascontiguousarray(padded[:, :cols]).reshape(out_shape)
