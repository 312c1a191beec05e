"""The kernel library as PyTorch operators: ``torch.ops.fpgakern.<kernel>``.

    import fpgakern.runtime.torch_ops as fk_torch
    fk_torch.use(fpgakern.runtime.open("build", "hw_emu"))   # default: build/ on sw_emu
    torch.ops.fpgakern.add(a, b, alpha=2)

Importing this module registers one op per kernel of the library with ``torch.library``
(schema ``fpgakern::<kernel>(Tensor a, Tensor b, *, Scalar alpha=1) -> Tensor``, plus the
torch options listed in ``TORCH_OPTIONS`` and ``TORCH_POSITIONAL_OPTIONS``; a CPU
implementation and a fake one for
tracing). Nothing in PyTorch is patched.

Each op computes the answer of the torch operator it mirrors (``mirrors:`` in the spec,
a dotted path such as ``torch.nn.functional.silu``), or runs that operator instead; it
never answers differently. Torch's dtype rules decide the result dtype, and the inputs are
converted to it first as torch converts them, so int32 ``sqrt``/``exp``/``sigmoid`` and
true ``div`` run the float32 kernel, and so do mixed int32/float32 inputs. int32 ``sum``
returns torch's int64 sum, recovered exactly from the kernel's wrapping int32 sum; a float
``sum`` is +0.0 when zero, as torch's, and runs on the CPU when its summation order could
decide an overflow. ``argmax``/``argmin`` return torch's int64 index from the kernel of
the input's dtype (``dim=`` and ``keepdim=True`` run torch).
``div(..., rounding_mode="trunc")`` runs the int32 kernel on integers (and raises on a zero
divisor, as torch does) and the float32 kernel plus a truncation on floats.

A call runs a kernel on the selected device when it can: a variant in torch's result dtype,
inputs of one shape (no broadcasting), the variant built and loading. Otherwise it runs
the mirrored CPU operator with the same arguments and warns once per kernel and reason
(:class:`FallbackWarning`), or, in strict mode (``use(dev, strict=True)`` or
``FPGAKERN_STRICT=1``), raises :class:`FallbackError` with the reason. Tensors of any shape
are flattened (made contiguous first) and the result takes the input's shape; reductions
reduce every element to a 0-d tensor, as ``torch.sum(x)`` does. Empty inputs need no
kernel: they get torch's own answer (an empty tensor, ``sum``'s zero, ``max``'s error).
An error while the kernel runs is raised, never hidden by a fallback.

Shaped kernels (nn_ops: batch_norm, softmax, log_softmax, layer_norm, rms_norm) take the
mirrored operator's own signature (``torch_shaped.SIGNATURES``): tensors keep their
shapes, per-channel and per-column operands theirs, and what the kernel does not cover
(training mode, another ``dim``, other dtypes, too many channels) falls back with its
reason.

Contraction kernels (matrix_ops: mm, bmm, addmm, linear) take the mirrored operator's
signature too (``torch_matrix.SIGNATURES``), and ``matmul`` runs torch.matmul's
broadcasting on the mm and bmm kernels. Their int32 results are torch's bits; float32
results are the kernel's declared summation order, within its stated bound of the exact
product (docs/matrix.md, "Bound"), as torch's BLAS is within its own: they agree to
rounding, as a float ``sum`` does.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import torch

from fpgakern.errors import FpgakernError, ToolError, UsageError, display_path
from fpgakern.ir.kernel import SHAPED_KINDS, Kernel
from fpgakern.runtime import matrix, torch_matrix, torch_shaped, torch_spectral
from fpgakern.runtime.device import Device, KernelHandle, KernelUnavailable
from fpgakern.runtime.device import open as open_device
from fpgakern.runtime.torch_matrix import MatrixSignature
from fpgakern.runtime.torch_shaped import Signature
from fpgakern.spec.library import Library

NAMESPACE = "fpgakern"
# The ops that take the mirrored operator's own signature: shaped and transform kernels.
SIGNATURES: dict[str, Signature] = {**torch_shaped.SIGNATURES, **torch_spectral.SIGNATURES}
_SIGNED_KINDS = (*SHAPED_KINDS, "transform")
_TORCH_DTYPES = {torch.float32: "float32", torch.int32: "int32", torch.complex64: "complex64"}
STRICT_ENV = "FPGAKERN_STRICT"
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")


class FallbackWarning(UserWarning):
    """A torch.ops.fpgakern op ran its CPU operator instead of the kernel."""


class FallbackError(FpgakernError, RuntimeError):
    """Strict mode: a torch.ops.fpgakern op could not run its kernel (the message says
    why) and was not allowed to run its CPU operator instead."""


_state: dict[str, Any] = {"device": None, "strict": None, "warned": set(), "library": None,
                          "kernels": {}, "composite": set()}
_lib: torch.library.Library | None = None


def use(device: Device | None, *, strict: bool | None = None) -> None:
    """Run the ops on ``device`` (None: reopen the default, the project's build tree).

    ``strict=True`` makes every fallback to the CPU raise :class:`FallbackError`;
    ``False`` makes it warn; None (the default) follows ``$FPGAKERN_STRICT`` (1/true/yes/on
    or 0/false/no/off), read at each call.
    """
    _state["device"] = device
    _state["strict"] = strict
    _state["warned"] = set()


def is_strict() -> bool:
    """Whether a fallback raises (see :func:`use`)."""
    if _state["strict"] is not None:
        return bool(_state["strict"])
    value = os.environ.get(STRICT_ENV, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise UsageError(f"${STRICT_ENV}={value!r}: expected one of "
                     f"{', '.join(v for v in (*_TRUE, *_FALSE) if v)} (or unset)")


def device() -> Device | None:
    """The selected device; by default the project's build tree on $XCL_EMULATION_MODE
    (else sw_emu). None when there is no build tree: every op then falls back."""
    if _state["device"] is None:
        try:
            _state["device"] = open_device()
        except FpgakernError:
            return None
    return _state["device"]


# Keyword options of the mirrored torch operators that the ops accept too, in schema
# syntax, by mirrored operator. Their kernel-side meaning is decided in _dtype_route.
TORCH_OPTIONS: dict[str, str] = {
    "torch.div": "str? rounding_mode=None",
    "torch.sum": "ScalarType? dtype=None",
}
# Options the mirrored operator takes by position too, after its tensors
# (torch.argmax(x, 0, True)), in schema syntax.
TORCH_POSITIONAL_OPTIONS: dict[str, str] = {
    "torch.argmax": "int? dim=None, bool keepdim=False",
    "torch.argmin": "int? dim=None, bool keepdim=False",
}

# Scalars whose torch keyword the generated code reserves for itself ("value", a local of
# every kernel): the spec's name -> torch's keyword, by mirrored operator. The op takes
# torch's keyword (torch.ops.fpgakern.addcmul(x, t1, t2, value=2)) and hands the kernel
# its own name.
TORCH_KEYWORDS: dict[str, dict[str, str]] = {
    "torch.addcmul": {"scale": "value"},
    "torch.addcdiv": {"scale": "value"},
}


def torch_keyword(kernel: Kernel, scalar: str) -> str:
    """The keyword of the mirrored torch operator for one of the kernel's scalars."""
    return TORCH_KEYWORDS.get(mirror_path(kernel), {}).get(scalar, scalar)


def mirror_path(kernel: Kernel) -> str:
    """The dotted path of the torch operator a kernel mirrors (default ``torch.<name>``)."""
    return kernel.mirrors or f"torch.{kernel.name}"


_twins: dict[str, Callable[..., Any]] = {}


def resolve_mirror(path: str) -> Callable[..., Any]:
    """The callable at a dotted torch path (``torch.add``, ``torch.nn.functional.silu``),
    importing submodules on the way; UsageError when there is none."""
    if path in _twins:
        return _twins[path]
    head, *rest = path.split(".")
    if head != "torch" or not rest:
        raise UsageError(f"{path!r} is not a torch operator (expected a dotted path such as "
                         "torch.add or torch.nn.functional.silu)")
    found: Any = torch
    for i, part in enumerate(rest):
        if hasattr(found, part):
            found = getattr(found, part)
            continue
        # A submodule that nothing imported yet (torch.nn.functional is not always).
        name = ".".join([head, *rest[:i + 1]])
        try:
            found = importlib.import_module(name)
        except ImportError:
            raise UsageError(f"{path!r}: torch has no {name}") from None
    if not callable(found) or isinstance(found, type(torch)):
        raise UsageError(f"{path!r} is not a callable torch operator "
                         f"(it is a {type(found).__name__})")
    _twins[path] = found
    return found


def cpu_twin(kernel: Kernel) -> Callable[..., torch.Tensor]:
    """The CPU operator a kernel mirrors (``torch.add`` for ``binary_ops/add``)."""
    return resolve_mirror(mirror_path(kernel))


@dataclass(frozen=True)
class Route:
    """How one torch call runs on the kernels: the variant (dtype) that computes it, the
    dtype the inputs are converted to first, the dtype of the returned tensor, and a host
    step that turns the kernel's answer into torch's (None: it is torch's already)."""

    variant: str
    inputs: torch.dtype
    result: torch.dtype
    finish: Callable[[torch.Tensor], torch.Tensor] | None = None
    int64_sum: bool = False  # torch's int64 sum from the int32 kernel (see _int64_sum)
    float_sum: bool = False  # a float sum: its order must not decide an overflow
    float_prod: bool = False  # a float product: its order must not decide a range error
    float_mean: bool = False  # a float mean: a float sum, then the zeros' sign (_mean_zero)


# Integer dtypes whose values all fit int32: torch sums them into int64, which the int32
# kernel's wrapping sum gives exactly once corrected (see _int64_sum).
_INT32_EXACT = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32)
_WRAP = 2**32
# torch operators that sum float terms from a +0.0 accumulator (torch.dot: BLAS sdot).
_FLOAT_SUMS = ("torch.sum", "torch.dot")
_FLT_MAX = float(torch.finfo(torch.float32).max)


def plus_zero(total: torch.Tensor) -> torch.Tensor:
    # torch's float sum starts every accumulator at +0.0, so an all-zero (or cancelling)
    # sum is +0.0 whatever the zeros' signs; the kernel's IEEE sum of -0.0s is -0.0.
    # Adding +0.0 changes exactly that: -0 + +0 = +0, every other value is unchanged.
    return total + 0.0


def _dtype_route(kernel: Kernel, dtypes: list[torch.dtype], result: torch.dtype,
                 options: dict[str, Any]) -> Route | str:
    """The route of a call given torch's result dtype, or why no kernel computes it.

    torch converts the inputs to the result dtype and computes in it (type promotion:
    int32 -> float32 for sqrt, exp, sigmoid and true division, int32 with float32 ->
    float32), so that variant runs on the converted inputs; the exceptions are below.
    """
    mirror = mirror_path(kernel)
    if any(d.is_complex for d in dtypes) and not result.is_complex:
        # torch.abs, angle, real and imag of complex64 are float32: the complex64 variant,
        # whose output is float32 (Kernel.output_dtype), on the inputs as they are; never
        # the float32 variant, which would run on them converted to float32 (their
        # imaginary parts dropped).
        if ("complex64" in kernel.dtypes and all(d == torch.complex64 for d in dtypes)
                and kernel.output_dtype("complex64").name == _TORCH_DTYPES.get(result)):
            return Route("complex64", torch.complex64, result)
        return (f"complex inputs with a {result} result (complex in, real out) have no "
                "kernel (complex64 in, float32 out only)")
    if kernel.reduction is not None and kernel.reduction.picks is not None:
        return _index_route(kernel, dtypes[0], result, options)
    variant = _TORCH_DTYPES.get(result)
    same = Route(variant, result, result) if variant in kernel.dtypes else None
    missing = f"no {result} variant of the kernel"
    if mirror == "torch.nn.functional.softsign" and not dtypes[0].is_floating_point:
        # torch computes abs(x) + 1 in the integer dtype and only then divides in float:
        # abs(INT32_MIN) + 1 and INT32_MAX + 1 wrap, and 2**24 + 1 stays exact, where the
        # float32 kernel on the converted inputs gives other answers.
        return ("torch computes abs(x) + 1 of integers in their own dtype (where it may "
                "wrap) before dividing; the kernel computes it in float32")
    if mirror == "torch.div" and options.get("rounding_mode") is not None:
        mode = options["rounding_mode"]
        if mode == "trunc" and result.is_floating_point and same is not None:
            # torch: trunc(a / b), the IEEE quotient truncated; the kernel's quotient is
            # the IEEE one, so truncating it on the host gives torch's bits.
            return dataclasses.replace(same, finish=torch.trunc)
        if mode == "floor":
            # torch's floor division is not floor(a / b): floats go through fmod
            # (div_floor_floating), integers through a remainder; no kernel does either.
            return f"no kernel rounds {result} quotients with rounding_mode='floor'"
    if mirror == "torch.sum":
        wanted = options.get("dtype")
        if result == torch.int64 and dtypes[0] in _INT32_EXACT and "int32" in kernel.dtypes:
            return Route("int32", torch.int32, torch.int64, int64_sum=True)
        if same is None and wanted is not None:
            return f"no kernel sums {dtypes[0]} into {wanted}"
    if mirror in _FLOAT_SUMS and same is not None and result.is_floating_point:
        return dataclasses.replace(same, finish=plus_zero, float_sum=True)
    if mirror == "torch.mean" and same is not None and result.is_floating_point:
        # torch.mean is torch.sum(x) / n in the dtype, and so is the kernel: the sum's
        # contract (its order changes the rounding, never an overflow) holds for both.
        return dataclasses.replace(same, float_sum=True, float_mean=True)
    if mirror == "torch.prod":
        if result == torch.int64:
            # The int32 kernel's product wraps modulo 2**32; torch's int64 product does
            # not, and its low 32 bits do not give back the rest.
            return "torch multiplies integers in int64; the kernel's int32 product wraps"
        if same is not None and result.is_floating_point:
            return dataclasses.replace(same, float_prod=True)
    return same if same is not None else missing


def _index_route(kernel: Kernel, dtype: torch.dtype, result: torch.dtype,
                 options: dict[str, Any]) -> Route | str:
    """argmax, argmin: torch's int64 index into the flattened input is the kernel's, which
    compares elements of the input's own dtype (no conversion could keep their order and
    ties: float64 and int64 run on the CPU)."""
    if options.get("dim") is not None:
        return "dim= given: the kernel picks among all elements (dim=None)"
    if options.get("keepdim"):
        return "keepdim=True: the kernel's result is a 0-d index"
    variant = _TORCH_DTYPES.get(dtype)
    if variant not in kernel.dtypes:
        return f"no {dtype} variant of the kernel"
    return Route(variant, dtype, result)


def _int64_sum(x: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor] | str:
    """How torch's int64 sum of ``x`` (int32, not empty) follows from the kernel's wrapping
    int32 sum W, or why it cannot. W equals the true sum S modulo 2**32 whatever the order
    of the additions. S lies in a window known from min and max alone: both occur once,
    the n-2 other elements lie between them. When the window is narrower than 2**32, S is
    the one value in it congruent to W. Python ints: no step can overflow (an abs() bound
    does in int32: abs(INT32_MIN) is INT32_MIN)."""
    low_t, high_t = torch.aminmax(x)
    lo, hi, n = int(low_t), int(high_t), x.numel()
    low = lo if n == 1 else lo + hi + (n - 2) * lo
    width = max(n - 2, 0) * (hi - lo)
    if width >= _WRAP:  # one text for every such call: it warns once
        return ("the int64 sum cannot be told from the kernel's wrapping int32 accumulator "
                "(the n-2 elements between min and max span 2**32 or more)")

    def finish(wrapped: torch.Tensor) -> torch.Tensor:
        return torch.tensor(low + (int(wrapped) - low) % _WRAP, dtype=torch.int64)

    return finish


def _float_sum_overflow(inputs: list[torch.Tensor]) -> str | None:
    """Why the kernel's float32 sum of the elements (``sum``) or of their products (``dot``)
    may not be torch's beyond rounding, or None.

    The kernel adds in another order than torch (lanes, interleaved partials), which
    changes the rounding (docs/runtime.md) but must not change whether a partial sum
    overflows: with FLT_MAX, FLT_MAX, -FLT_MAX one order gives inf, another FLT_MAX. No
    partial sum of finite terms can overflow when n times the largest possible term
    (grown by n + 1 roundings of at most 2**-24 each) stays below FLT_MAX. A NaN makes
    every order NaN; infinite terms decide the result in every order once the finite
    ones cannot overflow."""
    n = inputs[0].numel()
    if n <= 2:
        return None  # one addition at most: IEEE addition commutes
    bound = n * math.exp((n + len(inputs)) * 2.0**-24)
    for x in inputs:
        low, high = (float(v) for v in torch.aminmax(x))
        if math.isnan(low) or math.isnan(high):
            return None
        if math.isinf(low) or math.isinf(high):
            finite = x[torch.isfinite(x)]
            low, high = (float(v) for v in torch.aminmax(finite)) if finite.numel() else (0, 0)
        bound *= max(-low, high)
    if bound <= _FLT_MAX:
        return None
    return ("values this large may overflow a partial sum in one summation order and not "
            "in another (the kernel's order is not torch's)")


def _mean_zero(x: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor]:
    """The finish of a float mean of ``x``: torch divides a sum started at +0.0, so the
    mean of zeros alone is +0.0 whatever their signs, where the kernel's IEEE sum of -0.0s
    is -0.0 and so is its quotient. Any other -0.0 (a tiny negative sum divided into
    underflow) is torch's too, and is kept."""
    all_zero = not bool((x != 0).any())

    def finish(mean: torch.Tensor) -> torch.Tensor:
        return mean + 0.0 if all_zero else mean

    return finish


def _float_prod_range(x: torch.Tensor) -> str | None:
    """Why the kernel's float32 product of ``x`` may not be torch's beyond rounding, or
    None. The kernel multiplies in another order than torch, which changes the rounding
    (docs/runtime.md) but must not change whether a partial product overflows or leaves
    the normal range: with 1e30, 1e30, 1e-30 one order gives inf, another 1e30. Each
    nonzero finite element lies in [2**lo, 2**hi] (lo, hi integers from frexp; hi = lo
    for a power of two, so +-1 counts 0), so no partial product exceeds 2**(sum of the
    positive hi) nor falls below 2**(sum of the negative lo); when those stay within
    2**+-125 (room for the roundings) every order keeps every partial product normal. A
    NaN makes every order NaN; zeros and infinities then decide the result alike in every
    order (0 * inf is NaN wherever they meet)."""
    if bool(torch.isnan(x).any()):
        return None
    finite = x[torch.isfinite(x) & (x != 0)]
    mantissa, exponent = torch.frexp(finite)  # |mantissa| in [0.5, 1)
    lo = exponent.to(torch.int64) - 1
    hi = lo + (mantissa.abs() != 0.5).to(torch.int64)
    if int(hi.clamp(min=0).sum()) <= 125 and int(lo.clamp(max=0).sum()) >= -125:
        return None
    return ("factors this large or small may overflow or underflow a partial product in "
            "one order of multiplication and not in another (the kernel's order is not "
            "torch's)")


# torch.fmod and torch.remainder: integer remainders by zero raise, as torch's do; floats
# fall back where torch's own answer depends on the element's position (_mod_quotient).
_MODS = ("torch.fmod", "torch.remainder")


def _checks_integer_divisors(kernel: Kernel, result: torch.dtype,
                             options: dict[str, Any]) -> bool:
    """Whether torch checks every divisor of this call first and raises ZeroDivisionError
    at a zero: its integer trunc/floor division, fmod and remainder. The kernels' own
    answers for a zero divisor (x / 0 = -1, x % 0 = x) are for callers without torch's
    rules (docs/runtime.md)."""
    if result.is_floating_point:
        return False
    mirror = mirror_path(kernel)
    return mirror in _MODS or (mirror == "torch.div"
                               and options.get("rounding_mode") is not None)


def _mod_quotient(a: torch.Tensor, b: torch.Tensor) -> str | None:
    """Why the kernel's float32 fmod/remainder of ``a`` by ``b`` may not be torch's, or
    None. The kernel's remainder is exact (IEEE fmod), and so is torch's scalar path, but
    torch's vectorized float kernel (whole groups of 16 elements) gives NaN wherever the
    float32 quotient a / b overflows while a and b are finite: measured on torch 2.13,
    fmod(1e27, -3e-34) is 1.5e-34 alone and NaN inside a tensor of 16. Which elements
    take which path is torch's business, so such inputs run on the CPU."""
    with np.errstate(all="ignore"):
        x, y = a.numpy(), b.numpy()
        overflow = np.isfinite(x) & np.isfinite(y) & np.isinf(x / y)
    if not overflow.any():
        return None
    return ("a float32 quotient a / b overflows, where torch's vectorized fmod gives NaN "
            "and its scalar path the exact remainder (the kernel's answer)")


def _caller_stacklevel() -> int:
    """warnings' stacklevel of the first frame outside torch and this module: the user's
    call, however many torch dispatch frames sit between."""
    inside = (str(Path(torch.__file__).parent) + os.sep, __file__)
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(inside):
        frame, level = frame.f_back, level + 1
    return level


def _fallback(kernel: Kernel, reason: str, tensors: tuple[torch.Tensor, ...],
              scalars: dict[str, Any], options: dict[str, Any]) -> torch.Tensor:
    return _fallback_to(kernel, reason,
                        lambda: _owned(cpu_twin(kernel)(*tensors, **scalars, **options),
                                       tensors))


def _owned(result: torch.Tensor, inputs: tuple[torch.Tensor, ...]) -> torch.Tensor:
    """The mirrored operator's ``result`` as the op may return it: its values resolved
    (torch.conj answers a lazy conjugate view), in memory of its own (torch.conj of a real
    tensor is that tensor, and a custom op's output must not alias its inputs)."""
    result = result.resolve_conj()
    storage = result.untyped_storage().data_ptr()
    if any(isinstance(t, torch.Tensor) and t.untyped_storage().data_ptr() == storage
           for t in inputs):
        return result.clone()
    return result


def _fallback_to(kernel: Kernel, reason: str,
                 call: Callable[[], torch.Tensor]) -> torch.Tensor:
    """Run ``call`` (the mirrored operator on the op's arguments) instead of the kernel,
    warning once per kernel and reason, or raise in strict mode."""
    return _fallback_named(kernel.name, mirror_path(kernel), kernel.qualname, reason, call)


def _fallback_named(name: str, mirror: str, key_name: str, reason: str,
                    call: Callable[[], torch.Tensor]) -> torch.Tensor:
    """:func:`_fallback_to` for op ``name`` mirroring ``mirror`` (warned once per
    ``key_name`` and reason): also the ops of no kernel of their own (``matmul``)."""
    where = f"torch.ops.{NAMESPACE}.{name}: {reason}"
    if is_strict():
        raise FallbackError(f"{where}; strict mode forbids running {mirror} on the CPU "
                            f"instead (fpgakern.runtime.torch_ops.use(..., strict=False) "
                            f"or {STRICT_ENV}=0 allow it)")
    key = (key_name, reason)
    if key not in _state["warned"]:
        _state["warned"].add(key)
        warnings.warn(f"{where}; running {mirror} on the CPU instead", FallbackWarning,
                      stacklevel=_caller_stacklevel())
    return call()


def _result_dtype(twin: Callable[..., Any], tensors: tuple[torch.Tensor, ...],
                  scalars: dict[str, Any], options: dict[str, Any]) -> torch.dtype:
    """torch's result dtype: the mirrored operator on one-element stand-ins of the same
    dimensions (0-d counts differently in type promotion; torch.dot takes only 1-D).
    Raises what torch raises for the arguments themselves (an alpha out of the dtype's
    range, a bool alpha, a 2-D operand of dot ...)."""
    probes = [torch.ones((1,) * t.dim(), dtype=t.dtype) for t in tensors]
    return twin(*probes, **scalars, **options).dtype


def _run(kernel: Kernel, tensors: tuple[torch.Tensor, ...], scalars: dict[str, Any],
         options: dict[str, Any]) -> torch.Tensor:
    twin = cpu_twin(kernel)
    try:
        result = _result_dtype(twin, tensors, scalars, options)
    except Exception as err:  # noqa: BLE001 - torch's own verdict on the arguments
        # torch rejects these arguments (no kernel may answer where torch refuses): the
        # mirrored operator on the real tensors raises torch's own error. Should it
        # answer after all, the CPU did the work: a fallback.
        twin(*tensors, **scalars, **options)
        return _fallback(kernel, f"torch's type rules failed on stand-ins ({err})", tensors,
                         scalars, options)
    if any(t.device.type != "cpu" for t in tensors):
        return _fallback(kernel, "inputs not in host memory", tensors, scalars, options)
    if any(t.shape != tensors[0].shape for t in tensors):
        return _fallback(kernel, "inputs of different shapes (the kernel does not broadcast)",
                         tensors, scalars, options)
    if _checks_integer_divisors(kernel, result, options) and bool((tensors[1] == 0).any()):
        raise RuntimeError("ZeroDivisionError")
    if tensors[0].numel() == 0:
        # Nothing to compute: torch's own answer (an empty tensor, sum's +0 or 0, prod's
        # 1, max's error) is the op's, and it is no fallback, whatever the dtypes.
        return _owned(twin(*tensors, **scalars, **options), tensors)
    route = _dtype_route(kernel, [t.dtype for t in tensors], result, options)
    if isinstance(route, str):
        return _fallback(kernel, route, tensors, scalars, options)
    if route.inputs.is_complex and any(isinstance(v, complex) or (
            isinstance(v, torch.Tensor) and v.is_complex()) for v in scalars.values()):
        # torch multiplies by the complex scalar; the complex64 kernels take real float32
        # scalars, promoted to (s, +0).
        return _fallback(kernel, "a complex scalar (the complex64 kernel's scalars are "
                                 "real float32)", tensors, scalars, options)
    if not (route.inputs.is_floating_point or route.inputs.is_complex) and any(
            isinstance(v, float) and not v.is_integer() for v in scalars.values()):
        # torch converts a fractional scalar for an integer tensor its own way (hardtanh
        # truncates min_val=-0.5 to 0) where it does not refuse it; the int32 kernel
        # takes integers only.
        return _fallback(kernel, "a fractional scalar for the int32 kernel", tensors,
                         scalars, options)
    flat = [t.detach().to(route.inputs).contiguous().reshape(-1) for t in tensors]
    if route.int64_sum:
        finish = _int64_sum(flat[0])
        if isinstance(finish, str):
            return _fallback(kernel, finish, tensors, scalars, options)
        route = dataclasses.replace(route, finish=finish)
    if route.float_sum:
        overflow = _float_sum_overflow(flat)
        if overflow is not None:
            return _fallback(kernel, overflow, tensors, scalars, options)
    if route.float_mean:
        route = dataclasses.replace(route, finish=_mean_zero(flat[0]))
    if route.float_prod:
        out_of_range = _float_prod_range(flat[0])
        if out_of_range is not None:
            return _fallback(kernel, out_of_range, tensors, scalars, options)
    if mirror_path(kernel) in _MODS and route.result.is_floating_point:
        unstable = _mod_quotient(flat[0], flat[1])
        if unstable is not None:
            return _fallback(kernel, unstable, tensors, scalars, options)
    handle = _handle(kernel, route.variant)
    if isinstance(handle, str):
        return _fallback(kernel, handle, tensors, scalars, options)
    names = {torch_keyword(kernel, s.name): s.name for s in kernel.scalars}
    values = {names[k]: (v.item() if isinstance(v, torch.Tensor) else v)
              for k, v in scalars.items()}
    try:
        out = handle(*(t.numpy() for t in flat), **values)
    except UsageError as err:
        raise RuntimeError(f"torch.ops.{NAMESPACE}.{kernel.name}: {err}") from None
    answer = torch.from_numpy(np.array(out))  # 0-d stays 0-d
    if route.finish is not None:
        answer = route.finish(answer)
    answer = answer.to(route.result)
    return answer if kernel.is_reduction else answer.reshape(tensors[0].shape)


def _handle(kernel: Kernel, variant: str) -> KernelHandle | str:
    """The selected device's kernel with its ``variant`` loaded, or why there is none."""
    dev = device()
    if dev is None:
        return "no fpgakern build tree to run from"
    try:
        handle = dev.kernel(kernel.qualname)
    except UsageError:  # registered from another library than the device's
        return (f"{kernel.qualname} is not in the kernel library of the device "
                f"({dev.program.source})")
    except KernelUnavailable as err:
        return str(err)
    try:
        handle.target(variant)  # loads (or builds) the model
    except (KernelUnavailable, ToolError) as err:
        return str(err)
    return handle


def _make_shaped_impl(kernel: Kernel, sig: Signature) -> Callable[..., torch.Tensor]:
    """A shaped kernel's op: torch's signature (torch_shaped.SIGNATURES), the tensors
    with their shapes handed to the kernel, the result in the input's shape."""

    def impl(*args: Any, **kwargs: Any) -> torch.Tensor:
        arguments = sig.arguments(args, kwargs)
        x = arguments["input"]

        def call() -> torch.Tensor:
            return cpu_twin(kernel)(**arguments)

        if isinstance(x, torch.Tensor) and x.numel() == 0:
            return call()  # nothing to compute: torch's own answer, no fallback
        bound = sig.bind(arguments)
        if isinstance(bound, str):
            return _fallback_to(kernel, bound, call)
        tensors, scalars = bound
        handle = _handle(kernel, kernel.dtypes[0])
        if isinstance(handle, str):
            return _fallback_to(kernel, handle, call)
        try:
            out = handle(*(t.detach().contiguous().numpy() for t in tensors), **scalars)
        except UsageError as err:
            raise RuntimeError(f"torch.ops.{NAMESPACE}.{kernel.name}: {err}") from None
        return torch.from_numpy(out)

    return impl


def _run_matrix(bound: torch_matrix.MatrixCall) -> torch.Tensor | str:
    """One call on a contraction kernel's op (``bound.kernel``): torch's answer, or why
    the kernel cannot give it (a fallback)."""
    runs = _state["kernels"].get(bound.kernel.rsplit("/", 1)[-1])
    if runs is None or runs.qualname != bound.kernel:
        return f"no op of {bound.kernel}, which this call needs"
    handle = _handle(runs, _TORCH_DTYPES[bound.tensors[0].dtype])
    if isinstance(handle, str):
        return handle
    try:
        out = matrix.call(handle, tuple(t.detach().numpy() for t in bound.tensors),
                          bound.scalars)
    except UsageError as err:
        raise RuntimeError(f"torch.ops.{NAMESPACE}.{runs.name}: {err}") from None
    assert isinstance(out, np.ndarray)
    answer = torch.from_numpy(out).reshape(bound.shape)
    return plus_zero(answer) if bound.plus_zero and answer.is_floating_point() else answer


def _make_matrix_impl(name: str, mirror: str, qualname: str, sig: MatrixSignature
                      ) -> Callable[..., torch.Tensor]:
    """A contraction op: torch's signature (torch_matrix.SIGNATURES), torch's errors for
    arguments torch refuses, the result in torch's shape and dtype."""

    def impl(*args: Any, **kwargs: Any) -> torch.Tensor:
        arguments = sig.arguments(args, kwargs)
        inputs = tuple(v for v in arguments.values() if isinstance(v, torch.Tensor))

        def call() -> torch.Tensor:
            return _owned(resolve_mirror(mirror)(**arguments), inputs)

        bound = sig.bind(qualname, arguments)
        if bound == torch_matrix.TORCH_REFUSES:
            given = call()  # raises torch's own error; should it answer, a fallback
            return _fallback_named(name, mirror, qualname,
                                   f"{bound}, it seems, but torch answered", lambda: given)
        if isinstance(bound, str):
            return _fallback_named(name, mirror, qualname, bound, call)
        if math.prod(bound.shape) == 0:
            return call()  # nothing to compute: torch's own answer, no fallback
        ran = _run_matrix(bound)
        if isinstance(ran, str):
            return _fallback_named(name, mirror, qualname, ran, call)
        return ran

    return impl


def _register_matmul(lib: torch.library.Library) -> None:
    """``torch.ops.fpgakern.matmul``: torch.matmul's broadcasting of batch dimensions and
    1-D operands, on the mm and bmm kernels (torch_matrix.MATMUL); no kernel of its own."""
    sig = torch_matrix.MATMUL
    mm = _state["kernels"]["mm"]
    lib.define(f"matmul{sig.schema}")
    lib.impl("matmul", _make_matrix_impl("matmul", "torch.matmul", mm.qualname, sig), "CPU")
    torch.library.register_fake(
        f"{NAMESPACE}::matmul",
        lambda *args, **kwargs: torch.matmul(**sig.arguments(args, kwargs)).contiguous(),
        lib=lib)
    _state["composite"].add("matmul")


def schema(kernel: Kernel) -> str:
    tensors = ", ".join([*(f"Tensor {name}" for name in kernel.inputs),
                         *filter(None, [TORCH_POSITIONAL_OPTIONS.get(mirror_path(kernel))])])
    keywords = [f"Scalar {torch_keyword(kernel, s.name)}={s.default}" for s in kernel.scalars]
    option = TORCH_OPTIONS.get(mirror_path(kernel))
    keywords += [option] if option else []
    return f"({tensors}{', *, ' + ', '.join(keywords) if keywords else ''}) -> Tensor"


def _make_impl(kernel: Kernel) -> Callable[..., torch.Tensor]:
    names = [torch_keyword(kernel, s.name) for s in kernel.scalars]
    # torch hands the op every argument before the schema's '*' by position.
    positional = [option.split("=")[0].split()[-1] for option in
                  TORCH_POSITIONAL_OPTIONS.get(mirror_path(kernel), "").split(", ") if option]

    def impl(*args: Any, **kwargs: Any) -> torch.Tensor:
        tensors = args[:len(kernel.inputs)]
        scalars = {n: kwargs.get(n, s.default) for n, s in zip(names, kernel.scalars,
                                                                  strict=True)}
        options = {k: v for k, v in kwargs.items() if k not in scalars}
        options.update(zip(positional, args[len(kernel.inputs):], strict=False))
        return _run(kernel, tensors, scalars, options)

    return impl


def _make_fake(kernel: Kernel, sig: Signature | MatrixSignature | None = None
               ) -> Callable[..., torch.Tensor]:
    def fake(*args: Any, **kwargs: Any) -> torch.Tensor:
        # The mirrored operator on the fake tensors: torch's own shape and dtype rules.
        if sig is not None:  # torch's signature: hand the twin its arguments by name
            return cpu_twin(kernel)(**sig.arguments(args, kwargs)).contiguous()
        return cpu_twin(kernel)(*args, **kwargs).resolve_conj().contiguous()

    return fake


def register(library: Library | None = None) -> list[str]:
    """Define ``torch.ops.fpgakern.<kernel>`` for every kernel of ``library`` (default: the
    project's) that mirrors a torch operator. Idempotent; returns the op names.

    The mirrored operator is the op's CPU fallback and its shape and dtype rules: a kernel
    whose ``mirrors:`` names no callable torch operator raises UsageError, defining
    nothing; a kernel without ``mirrors:`` and without a ``torch.<name>`` gets no op
    (there is no torch answer for it to give).
    """
    global _lib
    library = library or Library.for_project()
    new = []
    for kernel in library.kernels:
        if kernel.name in _state["kernels"]:
            continue
        if kernel.kind in _SIGNED_KINDS and mirror_path(kernel) not in SIGNATURES:
            continue  # no torch signature to take its shapes by: no op
        if kernel.kind == "contraction" and \
                mirror_path(kernel) not in torch_matrix.SIGNATURES:
            continue  # linear_relu: no torch operator of its own
        try:
            cpu_twin(kernel)
        except UsageError as err:
            if kernel.mirrors is None:
                continue
            raise UsageError(f"{display_path(kernel.source)}: mirrors: {err}; "
                             f"torch.ops.{NAMESPACE}.{kernel.name} needs it") from None
        new.append(kernel)
    if _lib is None and new:
        _lib = torch.library.Library(NAMESPACE, "DEF")
    for kernel in new:
        assert _lib is not None
        sig = SIGNATURES.get(mirror_path(kernel)) if kernel.kind in _SIGNED_KINDS else None
        matrix_sig = torch_matrix.SIGNATURES.get(mirror_path(kernel)) \
            if kernel.kind == "contraction" else None
        if matrix_sig is not None:
            _lib.define(f"{kernel.name}{matrix_sig.schema}")
            _lib.impl(kernel.name, _make_matrix_impl(kernel.name, mirror_path(kernel),
                                                     kernel.qualname, matrix_sig), "CPU")
        elif sig is not None:
            _lib.define(f"{kernel.name}{sig.schema}")
            _lib.impl(kernel.name, _make_shaped_impl(kernel, sig), "CPU")
        else:
            _lib.define(f"{kernel.name}{schema(kernel)}")
            _lib.impl(kernel.name, _make_impl(kernel), "CPU")
        torch.library.register_fake(f"{NAMESPACE}::{kernel.name}",
                                    _make_fake(kernel, matrix_sig or sig), lib=_lib)
        _state["kernels"][kernel.name] = kernel
    mm = _state["kernels"].get("mm")
    if mm is not None and mm.kind == "contraction" and "matmul" not in _state["composite"] \
            and "matmul" not in _state["kernels"]:
        assert _lib is not None
        _register_matmul(_lib)
    return [k.name for k in library.kernels if k.name in _state["kernels"]]


OPS = register()
