"""The host's side of a kernel call, the same on every target.

Mirrors what the C-simulation testbench (``hls_templates/default/testbench.cpp.j2``) and
the generated C++ host wrapper do, so that the three agree bit for bit:

* buffers hold whole memory words (16 elements at rung 4, else 1), zero-padded past n,
  and start on 4 KiB boundaries (XRT allocates buffer objects in pages);
* with C compute units, the words are split into C contiguous shares of
  ``ceil(words / C)`` words; a CU whose share would be empty is not started;
* each CU gets its own buffers (its own memory bank on a card);
* a reduction's CUs each write one partial result, merged on the host in CU order with
  the reduction's combine op; an index reduction's CUs each write the index of their pick
  within their share, and the host picks among the elements they name.

Inputs are 1-D, C-contiguous numpy arrays of the variant's dtype, of one length; anything
else is a UsageError that says what to pass instead. An input may also be :class:`Placed`:
already in device memory in the layout the kernel reads (a DeviceArray's buffer,
runtime/resident.py), used in place; every other input is copied into a fresh buffer, and
the copies' bytes are listed (``Prepared.uploads``: each is a host -> device transfer).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fpgakern.errors import UsageError
from fpgakern.interface import SIZE_ARG
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.kernel import Kernel
from fpgakern.ir.ops import OPS
from fpgakern.ladder import Plan
from fpgakern.runtime.resident import BufferView

PAGE = 4096
WORD_BYTES_MIN = 64  # every buffer is at least one 512-bit word, as on a card


def aligned_zeros(count: int, dtype: np.dtype, align: int = PAGE) -> np.ndarray:
    """A zeroed 1-D array whose data starts on an ``align``-byte boundary."""
    itemsize = np.dtype(dtype).itemsize
    nbytes = max(count * itemsize, WORD_BYTES_MIN)
    raw = np.zeros(nbytes + align, dtype=np.uint8)
    start = (-raw.ctypes.data) % align
    return raw[start:start + nbytes].view(dtype)[:max(count, 1)]


def word_elements(count: int, dtype: np.dtype) -> int:
    """``count`` elements rounded up to whole 512-bit memory words (at least one): the
    size of a buffer any rung's kernel can read whole words of (a word holds 16 float32
    elements at rung 4, 1 below it), so a result kept on the device fits every reader."""
    per_word = WORD_BYTES_MIN // np.dtype(dtype).itemsize
    return max(-(-count // per_word), 1) * per_word


@dataclass(frozen=True)
class Placed(BufferView):
    """An input already in device memory, laid out as the kernel reads it (a DeviceArray's
    buffer, at least the whole words the kernel reads): used in place, not copied.
    ``shape`` is what the checks see (a flat kernel's: the element count, 1-D)."""

    buffer: np.ndarray
    shape: tuple[int, ...]


Input = np.ndarray | Placed


def laid_out(a: Input, size: int, dtype: np.dtype, uploads: list[int]) -> np.ndarray:
    """``a`` as a buffer of ``size`` elements the kernel reads: a Placed buffer as it is,
    else a fresh 4 KiB-aligned buffer ``a`` is copied into, zero-padded (its bytes go on
    ``uploads``: a host -> device transfer)."""
    if isinstance(a, Placed):
        return a.buffer
    buf = aligned_zeros(size, dtype)
    buf[:a.size] = a.reshape(-1)
    uploads.append(size * buf.itemsize)
    return buf


@dataclass
class Share:
    """One CU's part of a call: its buffers and register values."""

    cu: int
    inputs: list[np.ndarray]
    output: np.ndarray
    n: int  # elements this CU processes (register ``n``)
    words: int  # memory words of the main tensor this CU reads
    # A shaped kernel's size registers (Kernel.size_args) for this CU; None: just ``n``.
    sizes: dict[str, int] | None = None


@dataclass
class Prepared:
    plan: Plan
    n: int
    shares: list[Share]
    scalars: dict[str, int]  # register values (raw 32-bit)
    output: np.ndarray  # the padded result (elementwise) or the partials (reductions)
    main_shape: tuple[int, ...] | None = None  # a shaped kernel's main tensor's shape
    uploads: list[int] = field(default_factory=list)  # bytes of each input copied in


def one_dtype(arrays: Sequence[Any], where: str) -> None:
    """UsageError unless the arrays share one dtype (kernels do not promote types)."""
    dtypes = {a.dtype for a in arrays}
    if len(dtypes) > 1:
        raise UsageError(f"{where}: inputs have different dtypes "
                         f"({', '.join(sorted(str(d) for d in dtypes))}); kernels do not "
                         "promote types")


def supported_dtype(kernel: Kernel, dtype: str, where: str) -> None:
    """UsageError unless the kernel takes ``dtype``."""
    if dtype not in kernel.dtypes:
        raise UsageError(f"{where}: dtype {dtype} is not supported (the kernel takes "
                         f"{', '.join(kernel.dtypes)}); convert with .astype()")


def check_inputs(plan_inputs: tuple[str, ...], arrays: tuple[object, ...],
                 where: str) -> list[Input]:
    if len(arrays) != len(plan_inputs):
        raise UsageError(f"{where} takes {len(plan_inputs)} array(s) "
                         f"({', '.join(plan_inputs)}), got {len(arrays)}")
    checked: list[Input] = []
    for name, a in zip(plan_inputs, arrays, strict=True):
        if isinstance(a, Placed):  # its layout was checked by its owner (device.py)
            checked.append(a)
            continue
        if not isinstance(a, np.ndarray):
            raise UsageError(f"{where}: {name} must be a numpy array, got {type(a).__name__}")
        if a.ndim != 1:
            raise UsageError(f"{where}: {name} has shape {a.shape}; kernels take 1-D arrays "
                             "(pass x.ravel() for a contiguous tensor of any shape)")
        if not a.flags.c_contiguous:
            raise UsageError(f"{where}: {name} is not contiguous (a strided view); pass "
                             "np.ascontiguousarray(x)")
        checked.append(a)
    one_dtype(checked, where)
    lengths = {a.shape[0] for a in checked}
    if len(lengths) > 1:
        raise UsageError(f"{where}: inputs have different lengths "
                         f"({', '.join(map(str, sorted(lengths)))}); kernels do not broadcast")
    return checked


def scalar_values(plan: Plan, scalars: Mapping[str, object], where: str) -> dict[str, int]:
    """Every scalar of the plan's kernel as its register bits (scalar_bits): the value
    given, or the spec's default; a name the kernel does not take is refused."""
    known = {s.name: s.default for s in plan.kernel.scalars}
    unknown = set(scalars) - set(known)
    if unknown:
        raise UsageError(f"{where}: unknown scalar(s) {', '.join(sorted(unknown))} "
                         f"(the kernel takes: {', '.join(known) or 'none'})")
    return {name: scalar_bits(scalars.get(name, default), plan, name, where)
            for name, default in known.items()}


def scalar_bits(value: object, plan: Plan, name: str, where: str) -> int:
    """A scalar as the 32-bit register value the kernel reads (a complex64 kernel's
    scalars are real float32)."""
    dtype = DTYPES[plan.dtype.scalar_dtype]
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value.item()
    if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        raise UsageError(f"{where}: scalar {name}={value!r} is complex; the kernel's "
                         f"scalars are real {dtype.name}")
    if not isinstance(value, numbers.Real):  # numpy's scalars register as Real too
        raise UsageError(f"{where}: scalar {name} must be a number, got {value!r}")
    if dtype.is_float:
        return int(np.array(value, dtype=np.float32).view(np.uint32))
    if isinstance(value, float) and not float(value).is_integer():
        raise UsageError(f"{where}: scalar {name}={value} is not an integer, and the kernel "
                         f"is {dtype.name}")
    ivalue = int(value) if isinstance(value, numbers.Integral) else int(float(value))
    if not -(2**31) <= ivalue < 2**31:
        raise UsageError(f"{where}: scalar {name}={ivalue} does not fit in int32")
    return ivalue & 0xFFFF_FFFF


def check_share(plan: Plan, compute_units: int, elements: int) -> None:
    """UsageError, one line, when each CU's share of ``elements`` is more than one of its
    ports' banks holds (``Placement.share_limit``), as the generated C++ host refuses it."""
    limit = plan.placement.share_limit
    if limit is not None and elements > limit[0]:
        most, size, tag = limit
        raise UsageError(f"each of the {compute_units} compute units' shares of {elements} "
                         f"elements takes more than one memory bank holds for a port "
                         f"({tag}, {size >> 20} MiB): at most {most} elements a CU")


def prepare(plan: Plan, compute_units: int, arrays: list[Input],
            scalars: dict[str, int]) -> Prepared:
    """Pad the inputs into whole words and split them over the CUs."""
    lanes = plan.arch.lanes
    n = int(arrays[0].shape[0]) if arrays else 0
    if n >= 2**31:
        raise UsageError(f"{n} elements: the kernel's n register is a 32-bit int")
    words = math.ceil(n / lanes)
    check_share(plan, compute_units, math.ceil(words / compute_units) * lanes if words else 0)
    uploads: list[int] = []
    padded = [laid_out(a, words * lanes, plan.dtype.numpy, uploads) for a in arrays]
    reduction = plan.kernel.is_reduction
    out_dtype = plan.kernel.output_dtype(plan.dtype.name).numpy
    if reduction:
        # One result word per CU, each in its own buffer.
        output = np.empty(compute_units, dtype=out_dtype)
    else:
        # Whole words of the output's bundle: where narrower results share a wider bundle
        # (complex64 -> float32 before rung 2: two to a 64-bit beat) the last beat, half
        # strobed, still lies in the buffer. Whole 512-bit words: a result kept on the
        # device (DeviceArray) may be read by a kernel of any rung.
        per_word = plan.arch.bundle_bits(plan.arch.bundle(plan.kernel.output)) // (
            8 * out_dtype.itemsize)
        output = aligned_zeros(word_elements(-(-words * lanes // per_word) * per_word,
                                             out_dtype), out_dtype)
    share = math.ceil(words / compute_units) if words else 0
    shares = []
    for cu in range(compute_units):
        first = share * cu
        if first >= words:
            break
        count = min(share, words - first)
        elements = min(count * lanes, n - first * lanes)
        lo, hi = first * lanes, (first + count) * lanes
        if reduction:
            out = aligned_zeros(WORD_BYTES_MIN // out_dtype.itemsize, out_dtype)
        else:
            out = output[lo:hi if hi < words * lanes else output.size]
        shares.append(Share(cu, [p[lo:hi] for p in padded], out, elements, count))
    return Prepared(plan, n, shares, scalars, output, uploads=uploads)


def finish(prepared: Prepared) -> np.ndarray:
    """The call's result: n elements, or a 0-d array for a reduction."""
    p = prepared.plan
    if not p.kernel.is_reduction:
        return prepared.output[:prepared.n].copy()
    reduction = p.kernel.reduction
    assert reduction is not None and reduction.combine is not None
    if reduction.picks is not None:
        # Each CU returned the index of its pick within its share: pick among the elements
        # they name, a tie going to the lower CU.
        if not prepared.shares:
            raise UsageError(f"{p.kernel.qualname}: no element to pick an index of "
                             f"(torch.{reduction.name} raises IndexError)")
        local = [int(s.output[0]) for s in prepared.shares]
        values = np.array([s.inputs[0][i] for s, i in zip(prepared.shares, local, strict=True)])
        indices = [i + share_first(prepared, s)
                   for s, i in zip(prepared.shares, local, strict=True)]
        return reduction.pick_among(values, np.array(indices)).reshape(())
    dtype = p.kernel.output_dtype(p.dtype.name).numpy
    result = np.array([reduction.identity[p.dtype.name]], dtype=dtype)
    combine = OPS[reduction.combine].reference
    for i, share in enumerate(prepared.shares):
        partial = share.output[:1]
        result = partial.copy() if i == 0 else combine(result, partial).astype(dtype)
    if reduction.finish is not None and (p.arch.finish is None or not prepared.shares):
        # The compute units returned their combined values (mean: sums); the host
        # finishes once, over all n (the sum of the sums divided by float(n)). With no
        # element no CU ran, and the host finishes the identity: mean's -0 / 0, NaN.
        count = np.array([prepared.n], dtype=dtype)
        with np.errstate(all="ignore"):
            result = OPS[reduction.finish].reference(result, count).astype(dtype)
    return result.reshape(())


def share_first(prepared: Prepared, share: Share) -> int:
    """The index in the whole input of ``share``'s first element."""
    return share.cu * prepared.shares[0].words * prepared.plan.arch.lanes


def register_values(prepared: Prepared, share: Share) -> dict[str, int]:
    """Scalar register values of one CU's run (the scalars, then the size arguments)."""
    return {**prepared.scalars, **(share.sizes or {SIZE_ARG: share.n})}


def timeout_cycles(plan: Plan, share: Share) -> int:
    """A generous bound on one run's cycles: no rung needs more than ~200 per word
    (rung 0 pays the memory latency per element); past it the kernel is hung. A shaped
    kernel may pass over a row once per statistic, and reads its channel tables first."""
    staged = plan.kernel.staged(plan.dtype.name)
    passes = 1 if staged is None else len(staged.stats) + 2
    if share.sizes is not None and "n" in share.sizes and plan.kernel.kind == "transform":
        passes = share.sizes["n"].bit_length() + 2  # a pass per stage, in and out
    tables = 0 if share.sizes is None else max(share.sizes.get("channels", 0),
                                               share.sizes.get("cols", 0))
    return 100_000 + 400 * (share.words * passes + tables) * (len(plan.kernel.inputs) + 1)
