"""The kernel library as PyTorch operators: ``torch.ops.fpgakern.<kernel>``.

    import fpgakern.runtime.torch_ops as fk_torch
    fk_torch.use(fpgakern.runtime.open("build", "hw_emu"))   # default: build/ on sw_emu
    torch.ops.fpgakern.add(a, b, alpha=2)

Importing this module registers one op per kernel of the library with ``torch.library``
(schema ``fpgakern::<kernel>(Tensor a, Tensor b, *, Scalar alpha=1) -> Tensor``, plus the
torch options listed in ``TORCH_OPTIONS``; a CPU implementation and a fake one for
tracing). Nothing in PyTorch is patched.

Each op follows the semantics of the torch operator it mirrors, dtype rules included:
int32 ``div`` is true division (torch promotes to float32, so the float32 kernel runs on
the converted inputs) unless ``rounding_mode="trunc"`` asks for the int32 kernel, and int32
``sum`` returns int64 as torch's does (the int32 kernel's result, when the sum cannot leave
the int32 range) unless ``dtype=torch.int32`` asks for the wrapping sum.

A call runs a kernel on the selected device when it can: the tensors' dtype has a
variant there, the inputs have one shape (no broadcasting), and the variant is built and
loads. Otherwise it runs the CPU operator the kernel mirrors (``torch.add`` ...) with the
same arguments and warns once per kernel and reason (:class:`FallbackWarning`). Tensors
of any shape are flattened (made contiguous first) and the result takes the input's shape;
reductions reduce every element to a 0-d tensor, as ``torch.sum(x)`` does. An error while
the kernel runs is raised, never hidden by a fallback.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from fpgakern import paths
from fpgakern.errors import FpgakernError, ToolError, UsageError
from fpgakern.ir.kernel import Kernel
from fpgakern.runtime.device import Device, KernelUnavailable
from fpgakern.runtime.device import open as open_device
from fpgakern.spec.library import Library

NAMESPACE = "fpgakern"
_TORCH_DTYPES = {torch.float32: "float32", torch.int32: "int32"}


class FallbackWarning(UserWarning):
    """A torch.ops.fpgakern op ran its CPU operator instead of the kernel."""


_state: dict[str, Any] = {"device": None, "warned": set(), "library": None, "kernels": {}}
_lib: torch.library.Library | None = None


def use(device: Device | None) -> None:
    """Run the ops on ``device`` (None: reopen the default, the project's build tree)."""
    _state["device"] = device
    _state["warned"] = set()


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
# syntax. Their kernel-side meaning is decided in _route.
TORCH_OPTIONS: dict[str, str] = {
    "div": "str? rounding_mode=None",
    "sum": "ScalarType? dtype=None",
}


def cpu_twin(kernel: Kernel) -> Callable[..., torch.Tensor]:
    """The CPU operator a kernel mirrors (``torch.add`` for ``binary_ops/add``)."""
    return getattr(torch, (kernel.mirrors or f"torch.{kernel.name}").removeprefix("torch."))


@dataclass(frozen=True)
class Route:
    """How one torch call runs on the kernels: the variant (dtype) that computes it, the
    dtype the inputs are converted to first, and the dtype of the returned tensor."""

    variant: str
    inputs: torch.dtype
    result: torch.dtype


_INT32_LIMIT = 2**31


def _route(kernel: Kernel, tensors: tuple[torch.Tensor, ...],
           options: dict[str, Any]) -> Route | str:
    """The route of a call whose inputs share a dtype and shape, or why none serves it.

    Torch's own rules decide the result; a kernel runs only where it computes exactly that.
    """
    dtype = tensors[0].dtype
    if dtype not in _TORCH_DTYPES:
        return f"no {dtype} variant of the kernel"
    same = Route(_TORCH_DTYPES[dtype], dtype, dtype)
    if kernel.name == "div":
        mode = options.get("rounding_mode")
        if mode is None and not dtype.is_floating_point:
            # torch.div on integers is true division in the default dtype (float32).
            return Route("float32", torch.float32, torch.float32)
        if mode is not None and (dtype.is_floating_point or mode != "trunc"):
            return f"no kernel rounds {dtype} quotients with rounding_mode={mode!r}"
    if kernel.name == "sum":
        wanted = options.get("dtype")
        if dtype.is_floating_point:
            if wanted not in (None, dtype):
                return f"no kernel sums {dtype} into {wanted}"
        elif wanted == torch.int32:
            return same  # torch.sum(x, dtype=torch.int32) wraps, as the kernel does
        elif wanted not in (None, torch.int64):
            return f"no kernel sums {dtype} into {wanted}"
        else:
            # torch sums integers into int64; the kernel's int32 sum equals it whenever
            # no partial sum can leave the int32 range.
            bound = tensors[0].numel() * int(tensors[0].abs().max().item())
            if bound >= _INT32_LIMIT:
                return "the int64 sum may not fit the kernel's int32 accumulator"
            return Route("int32", dtype, torch.int64)
    return same if same.variant in kernel.dtypes else f"no {dtype} variant of the kernel"


def _warn_once(kernel: Kernel, reason: str) -> None:
    key = (kernel.qualname, reason)
    if key in _state["warned"]:
        return
    _state["warned"].add(key)
    warnings.warn(f"torch.ops.{NAMESPACE}.{kernel.name}: {reason}; running "
                  f"{kernel.mirrors or kernel.name} on the CPU instead", FallbackWarning,
                  stacklevel=4)


def _run(kernel: Kernel, tensors: tuple[torch.Tensor, ...], scalars: dict[str, Any],
         options: dict[str, Any]) -> torch.Tensor:
    dtype = tensors[0].dtype
    route: Route | str
    if any(t.dtype != dtype for t in tensors):
        route = "inputs of different dtypes"
    elif any(t.shape != tensors[0].shape for t in tensors):
        route = "inputs of different shapes (the kernel does not broadcast)"
    elif any(t.device.type != "cpu" for t in tensors):
        route = "inputs not in host memory"
    elif tensors[0].numel() == 0:
        route = "empty input"
    else:
        route = _route(kernel, tensors, options)
    dev = device()
    if isinstance(route, Route) and dev is None:
        route = "no fpgakern build tree to run from"
    if isinstance(route, Route):
        assert dev is not None
        try:
            handle = dev.kernel(kernel.qualname)
            handle.target(route.variant)  # loads (or builds) the model
        except (KernelUnavailable, ToolError) as err:
            route = str(err)
    if not isinstance(route, Route):
        _warn_once(kernel, route)
        return cpu_twin(kernel)(*tensors, **scalars, **options)
    arrays = [t.detach().to(route.inputs).contiguous().reshape(-1).numpy() for t in tensors]
    values = {k: (v.item() if isinstance(v, torch.Tensor) else v) for k, v in scalars.items()}
    try:
        out = handle(*arrays, **values)
    except UsageError as err:
        raise RuntimeError(f"torch.ops.{NAMESPACE}.{kernel.name}: {err}") from None
    result = torch.from_numpy(np.array(out)).to(route.result)  # 0-d stays 0-d
    return result if kernel.is_reduction else result.reshape(tensors[0].shape)


def schema(kernel: Kernel) -> str:
    tensors = ", ".join(f"Tensor {name}" for name in kernel.inputs)
    keywords = [f"Scalar {s.name}={s.default}" for s in kernel.scalars]
    keywords += [TORCH_OPTIONS[kernel.name]] if kernel.name in TORCH_OPTIONS else []
    return f"({tensors}{', *, ' + ', '.join(keywords) if keywords else ''}) -> Tensor"


def _make_impl(kernel: Kernel) -> Callable[..., torch.Tensor]:
    names = [s.name for s in kernel.scalars]

    def impl(*args: Any, **kwargs: Any) -> torch.Tensor:
        tensors = args[:len(kernel.inputs)]
        scalars = {n: kwargs.get(n, s.default) for n, s in zip(names, kernel.scalars,
                                                                  strict=True)}
        options = {k: v for k, v in kwargs.items() if k not in scalars}
        return _run(kernel, tensors, scalars, options)

    return impl


def _make_fake(kernel: Kernel) -> Callable[..., torch.Tensor]:
    def fake(*args: Any, **kwargs: Any) -> torch.Tensor:
        # The mirrored operator on the fake tensors: torch's own shape and dtype rules.
        return cpu_twin(kernel)(*args, **kwargs).contiguous()

    return fake


def register(library: Library | None = None) -> list[str]:
    """Define ``torch.ops.fpgakern.<kernel>`` for every kernel of ``library`` (default: the
    project's). Idempotent; returns the op names."""
    global _lib
    library = library or Library(paths.specs_dir())
    if _lib is None:
        _lib = torch.library.Library(NAMESPACE, "DEF")
    names = []
    for kernel in library.kernels:
        if kernel.name not in _state["kernels"]:
            _lib.define(f"{kernel.name}{schema(kernel)}")
            _lib.impl(kernel.name, _make_impl(kernel), "CPU")
            torch.library.register_fake(f"{NAMESPACE}::{kernel.name}", _make_fake(kernel),
                                        lib=_lib)
            _state["kernels"][kernel.name] = kernel
        names.append(kernel.name)
    return names


OPS = register()
