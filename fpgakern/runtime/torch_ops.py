"""The kernel library as PyTorch operators: ``torch.ops.fpgakern.<kernel>``.

    import fpgakern.runtime.torch_ops as fk_torch
    fk_torch.use(fpgakern.runtime.open("build", "hw_emu"))   # default: build/ on sw_emu
    torch.ops.fpgakern.add(a, b, alpha=2)

Importing this module registers one op per kernel of the library with ``torch.library``
(schema ``fpgakern::<kernel>(Tensor a, Tensor b, *, Scalar alpha=1) -> Tensor``, a CPU
implementation and a fake one for tracing). Nothing in PyTorch is patched.

A call runs the kernel on the selected device when it can: the tensors' dtype has a
variant there, the inputs have one shape (no broadcasting), and the variant is built and
loads. Otherwise it runs the CPU operator the kernel mirrors (``torch.add`` ...) and warns
once per kernel and reason (:class:`FallbackWarning`). Tensors of any shape are flattened
(made contiguous first) and the result takes the input's shape; reductions reduce every
element to a 0-d tensor, as ``torch.sum(x)`` does. An error while the kernel runs is
raised, never hidden by a fallback.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
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


def cpu_twin(kernel: Kernel, dtype: torch.dtype) -> Callable[..., torch.Tensor]:
    """The CPU operator a kernel mirrors, called the way the kernel computes."""
    name = (kernel.mirrors or f"torch.{kernel.name}").removeprefix("torch.")
    fn = getattr(torch, name)
    if kernel.name == "div" and not dtype.is_floating_point:
        return lambda a, b: torch.div(a, b, rounding_mode="trunc")
    if kernel.is_reduction:
        if kernel.name == "sum" and not dtype.is_floating_point:
            return lambda x: torch.sum(x, dtype=dtype)  # int32 sums wrap, as the kernel's
        return lambda x: fn(x)
    return fn


def _warn_once(kernel: Kernel, reason: str) -> None:
    key = (kernel.qualname, reason)
    if key in _state["warned"]:
        return
    _state["warned"].add(key)
    warnings.warn(f"torch.ops.{NAMESPACE}.{kernel.name}: {reason}; running "
                  f"{kernel.mirrors or kernel.name} on the CPU instead", FallbackWarning,
                  stacklevel=4)


def _run(kernel: Kernel, tensors: tuple[torch.Tensor, ...],
         scalars: dict[str, Any]) -> torch.Tensor:
    dtype = tensors[0].dtype
    reason = None
    if any(t.dtype != dtype for t in tensors):
        reason = "inputs of different dtypes"
    elif dtype not in _TORCH_DTYPES or _TORCH_DTYPES[dtype] not in kernel.dtypes:
        reason = f"no {dtype} variant of the kernel"
    elif any(t.shape != tensors[0].shape for t in tensors):
        reason = "inputs of different shapes (the kernel does not broadcast)"
    elif any(t.device.type != "cpu" for t in tensors):
        reason = "inputs not in host memory"
    elif tensors[0].numel() == 0:
        reason = "empty input"
    dev = device()
    if reason is None and dev is None:
        reason = "no fpgakern build tree to run from"
    if reason is None:
        assert dev is not None
        try:
            handle = dev.kernel(kernel.qualname)
            handle.target(_TORCH_DTYPES[dtype])  # loads (or builds) the model
        except (KernelUnavailable, ToolError) as err:
            reason = str(err)
    if reason is not None:
        _warn_once(kernel, reason)
        return cpu_twin(kernel, dtype)(*tensors, **scalars)
    arrays = [t.detach().contiguous().reshape(-1).numpy() for t in tensors]
    values = {k: (v.item() if isinstance(v, torch.Tensor) else v) for k, v in scalars.items()}
    try:
        out = handle(*arrays, **values)
    except UsageError as err:
        raise RuntimeError(f"torch.ops.{NAMESPACE}.{kernel.name}: {err}") from None
    result = torch.from_numpy(np.array(out))  # 0-d stays 0-d
    return result if kernel.is_reduction else result.reshape(tensors[0].shape)


def schema(kernel: Kernel) -> str:
    tensors = ", ".join(f"Tensor {name}" for name in kernel.inputs)
    scalars = ", ".join(f"Scalar {s.name}={s.default}" for s in kernel.scalars)
    return f"({tensors}{', *, ' + scalars if scalars else ''}) -> Tensor"


def _make_impl(kernel: Kernel) -> Callable[..., torch.Tensor]:
    names = [s.name for s in kernel.scalars]

    def impl(*args: Any, **kwargs: Any) -> torch.Tensor:
        tensors = args[:len(kernel.inputs)]
        scalars = {n: kwargs.get(n, s.default) for n, s in zip(names, kernel.scalars,
                                                                  strict=True)}
        return _run(kernel, tensors, scalars)

    return impl


def _make_fake(kernel: Kernel) -> Callable[..., torch.Tensor]:
    def fake(*args: Any, **kwargs: Any) -> torch.Tensor:
        x = args[0]
        if kernel.is_reduction:
            return x.new_empty(())
        return torch.empty_like(x, memory_format=torch.contiguous_format)

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
