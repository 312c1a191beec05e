"""The host's side of a contraction kernel call (mm, bmm, addmm, linear; issue 30).

A contraction kernel reads each tensor contiguous, row-major in the spec's index order
(``mk,nk->mn``: ``x`` as (M, K), ``weight`` as (N, K)), so each input is laid out that way
in a fresh 4 KiB-aligned buffer of whole 512-bit words (the one copy every numpy input
gets; a strided view, such as ``w.T`` given to ``mm``, is gathered by that copy) or, a
contiguous DeviceArray of the same device, read in place. Tiles are padded inside the
kernel (it masks the edges), never on the host. The sizes ``batch, m, n, k`` come from
the operands' shapes (``Contraction.sizes``, torch's words for a mismatch); the further
inputs (``bias: n``) have the shape of their indices' sizes.

Empty results need no kernel (no CU is started); ``k = 0`` runs the kernel, whose sums
are +0 and whose epilogue still applies (addmm's ``beta * z``), as torch gives. At a
multi-CU rung (3, 5) each CU takes a slab of the output's rows (m), whole TILE-row tiles,
as the generated C++ host does: its own copy of the inputs' rows of that slab (the inputs
without m whole), its own output buffer, and ``m`` its slab's rows, unit 0 of 1. So every
CU's buffers can sit in its own memory banks (on a card they must) and no two CUs write
one buffer; the slabs are put together after the runs. A CU with no rows is not started.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from fpgakern.backends.hls.matrix import TM
from fpgakern.errors import UsageError
from fpgakern.ir.contraction import Contraction, ContractionError
from fpgakern.ir.kernel import Kernel
from fpgakern.ladder import Plan
from fpgakern.runtime import host
from fpgakern.runtime.resident import CallInfo, DeviceArray

if TYPE_CHECKING:
    from fpgakern.runtime.device import KernelHandle

# A CU's slab of rows is whole output tiles of the HLS rungs (TM rows: a multiple of the
# RTL's blocks too), so no tile straddles two CUs; the generated C++ host splits the same.
TILE = TM


@dataclass(frozen=True)
class Sizes:
    batch: int
    m: int
    n: int
    k: int

    @property
    def registers(self) -> dict[str, int]:
        return {"batch": self.batch, "m": self.m, "n": self.n, "k": self.k}


def tensor_indices(kernel: Kernel) -> dict[str, str]:
    """Each tensor's indices: the operands', the further inputs' and the output's."""
    c = kernel.contraction
    assert c is not None, kernel.qualname
    return {kernel.inputs[0]: c.a, kernel.inputs[1]: c.b, **dict(kernel.indices),
            kernel.output: c.out}


def index_sizes(c: Contraction, sizes: Sizes) -> dict[str, int]:
    return {i: s for i, s in ((c.batch, sizes.batch), (c.free_a, sizes.m),
                              (c.free_b, sizes.n), (c.summed, sizes.k)) if i is not None}


def shape_of(kernel: Kernel, tensor: str, sizes: Sizes) -> tuple[int, ...]:
    """The shape tensor ``tensor`` of the kernel has at these sizes."""
    c = kernel.contraction
    assert c is not None
    extent = index_sizes(c, sizes)
    return tuple(extent[i] for i in tensor_indices(kernel)[tensor])


Operand = np.ndarray | DeviceArray


def check(kernel: Kernel, arrays: tuple[object, ...], where: str
          ) -> tuple[list[Operand], Sizes]:
    """The inputs checked (numpy arrays of any strides, or DeviceArrays), and the sizes;
    UsageError, one line, saying what to pass instead."""
    c = kernel.contraction
    assert c is not None, kernel.qualname
    if len(arrays) != len(kernel.inputs):
        raise UsageError(f"{where} takes {len(kernel.inputs)} array(s) "
                         f"({', '.join(kernel.inputs)}), got {len(arrays)}")
    checked: list[Operand] = []
    for name, a in zip(kernel.inputs, arrays, strict=True):
        if not isinstance(a, np.ndarray | DeviceArray):
            raise UsageError(f"{where}: {name} must be a numpy array, got {type(a).__name__}")
        checked.append(a)
    host.one_dtype(checked, where)
    a, b = checked[:2]
    try:
        found = c.sizes(tuple(a.shape), tuple(b.shape))
    except ContractionError as err:
        raise UsageError(f"{where}: {err}") from None
    sizes = Sizes(*found)
    for name, x in zip(kernel.inputs[2:], checked[2:], strict=True):
        want = shape_of(kernel, name, sizes)
        if tuple(x.shape) != want:
            raise UsageError(f"{where}: {name} has shape {tuple(x.shape)}; the kernel reads "
                             f"it as {want} (indices {tensor_indices(kernel)[name]}; "
                             "broadcast it first)")
    if max(sizes.batch, sizes.m, sizes.n, sizes.k) >= 2**31:
        raise UsageError(f"{where}: sizes {sizes} do not fit the kernel's 32-bit registers")
    return checked, sizes


def _laid_out(a: Operand, dtype: np.dtype, device: object, uploads: list[int]) -> np.ndarray:
    """``a`` as the buffer the kernel reads: a contiguous DeviceArray of this device in
    place; else a fresh aligned buffer of whole words it is copied into (counted)."""
    if isinstance(a, DeviceArray) and a.device is device and a.contiguous:
        return a.buffer
    values = a.to_numpy() if isinstance(a, DeviceArray) else a
    buf = host.aligned_zeros(host.word_elements(values.size, dtype), dtype)
    if values.size:
        buf[:values.size].reshape(values.shape)[...] = values  # gathers any strides
    uploads.append(buf.nbytes)
    return buf


@dataclass(frozen=True)
class Slab:
    """The output rows [first, first + rows) a CU computes."""

    first: int
    rows: int


def slabs(sizes: Sizes, compute_units: int) -> list[Slab]:
    """The multi-CU rungs' split of the output's rows: whole TILE-row tiles, as evenly as
    they go, over at most ``compute_units`` CUs (fewer when there are fewer tiles)."""
    tiles = math.ceil(sizes.m / TILE)
    units = max(1, min(compute_units, tiles))
    rows = math.ceil(tiles / units) * TILE
    return [Slab(first, min(rows, sizes.m - first)) for first in range(0, sizes.m, rows)]


def _slab_of(a: Operand, axis: int, slab: Slab, dtype: np.dtype,
             uploads: list[int]) -> np.ndarray:
    """The rows of ``slab`` along ``axis`` of ``a``, laid out as the kernel reads them."""
    values = a.to_numpy() if isinstance(a, DeviceArray) else a
    part = values[(slice(None),) * axis + (slice(slab.first, slab.first + slab.rows),)]
    buf = host.aligned_zeros(host.word_elements(part.size, dtype), dtype)
    if part.size:
        buf[:part.size].reshape(part.shape)[...] = part
    uploads.append(buf.nbytes)
    return buf


@dataclass
class MatrixCall(host.Prepared):
    """A prepared call with each share's slab of the output's rows (one share, all of
    them, below the multi-CU rungs)."""

    slabs: list[Slab] = field(default_factory=list)


def prepare(plan: Plan, compute_units: int, arrays: list[Operand], sizes: Sizes,
            scalars: dict[str, int], device: object = None) -> MatrixCall:
    """The buffers and each CU's registers of one call."""
    kernel = plan.kernel
    c = kernel.contraction
    assert c is not None
    dtype = plan.dtype.numpy
    uploads: list[int] = []
    out_dtype = kernel.output_dtype(plan.dtype.name).numpy
    count = sizes.batch * sizes.m * sizes.n
    output = host.aligned_zeros(host.word_elements(count, out_dtype), out_dtype)
    out_shape = shape_of(kernel, kernel.output, sizes)
    call = MatrixCall(plan, count, [], scalars, output, out_shape, uploads)
    if not count:
        return call
    rows_index = c.free_a if plan.rung.multi_cu else None  # the index the CUs split
    split = rows_index is not None
    parts = slabs(sizes, compute_units) if split else [Slab(0, sizes.m)]
    layouts = tensor_indices(kernel)
    axes = {name: layouts[name].index(rows_index)
            for name in kernel.inputs if rows_index is not None and rows_index in layouts[name]}
    whole = [None if name in axes else _laid_out(a, dtype, device, uploads)
             for name, a in zip(kernel.inputs, arrays, strict=True)]
    for cu, slab in enumerate(parts):
        inputs = [buf if buf is not None else _slab_of(a, axes[name], slab, dtype, uploads)
                  for name, a, buf in zip(kernel.inputs, arrays, whole, strict=True)]
        results = sizes.batch * slab.rows * sizes.n
        out = output if not split else host.aligned_zeros(
            host.word_elements(results, out_dtype), out_dtype)
        registers = sizes.registers | {"m": slab.rows}
        if plan.rung.multi_cu:
            registers |= {"unit": 0, "units": 1}
        # A share's "words": a generous measure of its work, for the hw_emu timeout.
        work = max(results * max(sizes.k, 1), 1)
        call.shares.append(host.Share(cu, inputs, out, results, work, registers))
        call.slabs.append(slab)
    return call


def put_together(call: MatrixCall) -> None:
    """Each CU's slab of the output's rows into its place in the whole output (nothing to
    do when one CU wrote the output itself)."""
    kernel = call.plan.kernel
    c = kernel.contraction
    assert c is not None and call.main_shape is not None
    whole = call.output[:call.n].reshape(call.main_shape)
    axis = c.out.index(c.free_a) if c.free_a is not None else 0
    for share, slab in zip(call.shares, call.slabs, strict=True):
        if share.output is call.output:
            continue
        shape = list(call.main_shape)
        shape[axis] = slab.rows
        index = (slice(None),) * axis + (slice(slab.first, slab.first + slab.rows),)
        whole[index] = share.output[:share.n].reshape(shape)


def finish(prepared: host.Prepared) -> np.ndarray:
    assert prepared.main_shape is not None
    return prepared.output[:prepared.n].reshape(prepared.main_shape).copy()


def call(handle: KernelHandle, arrays: tuple[object, ...], scalars: dict[str, object],
         resident: bool = False) -> np.ndarray | DeviceArray:
    """Run contraction kernel ``handle`` on ``arrays`` (numpy arrays or DeviceArrays of
    its device), ``scalars`` by name: what ``KernelHandle.__call__`` does for the other
    kinds. ``resident``: the result stays in device memory (a DeviceArray)."""
    kernel = handle.kernel
    where = handle.name
    if not isinstance(resident, bool | np.bool_):
        raise UsageError(f"{where}: resident must be True or False, got {resident!r}")
    for name, a in zip(kernel.inputs, arrays, strict=False):
        if isinstance(a, DeviceArray) and a.device is not handle.device:
            raise UsageError(f"{where}: {name} is a DeviceArray of another device "
                             f"({a.device!r}); copy it with .to_numpy()")
    checked, sizes = check(kernel, arrays, where)
    dtype = checked[0].dtype.name
    host.supported_dtype(kernel, dtype, where)
    variant = handle.variant(dtype)
    values = host.scalar_values(variant.plan, scalars, where)
    target = handle.target(dtype)
    started = time.perf_counter()
    prepared = prepare(variant.plan, target.compute_units, checked, sizes, values,
                       handle.device)
    for nbytes in prepared.uploads:
        handle.device.transfers.sent(nbytes)
    cycles = target.run(prepared) if prepared.shares else []
    put_together(prepared)
    result: np.ndarray | DeviceArray
    if resident:
        assert prepared.main_shape is not None
        result = DeviceArray(handle.device, prepared.output, prepared.main_shape)
    else:
        result = finish(prepared)
        handle.device.transfers.received(result.nbytes)
    handle.last_call = CallInfo(variant.top, target.name, prepared.n, len(prepared.shares),
                                cycles, time.perf_counter() - started)
    return result
