"""torch signatures of the shaped kernels (nn_ops): how a call of the mirrored
``torch.nn.functional`` operator maps onto the kernel's inputs and scalars.

Each entry of :data:`SIGNATURES` gives the op's schema (torch's own argument list) and a
binder that turns one call's arguments into the kernel's tensors (spec order) and
scalars, or into the reason the kernel cannot compute it (the op then runs torch's
operator, as every fallback of ``torch_ops`` does). Defaults are filled as torch fills
them: batch_norm's absent weight and bias are ones and zeros (torch multiplies by 1 and
adds 0 there: bit-identical), rms_norm's absent eps is float32's machine epsilon.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from fpgakern.ir import shapes

# A call's kernel arguments: the tensors in the spec's input order and the scalars (a
# transform's: n and norm).
Bound = tuple[tuple[torch.Tensor, ...], dict[str, Any]]


@dataclass(frozen=True)
class Signature:
    schema: str  # torch's argument list, in torch.library schema syntax
    names: tuple[str, ...]  # the parameters, in order (torch hands them by position)
    defaults: Mapping[str, Any]
    bind: Callable[[dict[str, Any]], Bound | str]

    def arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """One call's arguments by name, defaults filled."""
        bound = dict(self.defaults)
        bound.update(zip(self.names, args, strict=False))
        bound.update(kwargs)
        return bound


def _float32(what: str, t: torch.Tensor) -> str | None:
    if t.dtype != torch.float32:
        return f"{what} is {t.dtype}; the kernel is float32"
    if t.device.type != "cpu":
        return f"{what} is not in host memory"
    return None


def _batch_norm(a: dict[str, Any]) -> Bound | str:
    x: torch.Tensor = a["input"]
    if a["training"]:
        return "training=True: the kernel normalizes with the running statistics (eval)"
    if a["running_mean"] is None or a["running_var"] is None:
        return "no running statistics: the kernel normalizes with them (eval)"
    if x.dim() < 2:
        return "torch's batch_norm wants an input of at least 2 dimensions"
    channels = x.shape[1]
    weight = a["weight"] if a["weight"] is not None else torch.ones(channels)
    bias = a["bias"] if a["bias"] is not None else torch.zeros(channels)
    tensors = (x, a["running_mean"], a["running_var"], weight, bias)
    for name, t in zip(("input", "running_mean", "running_var", "weight", "bias"), tensors,
                       strict=True):
        problem = _float32(name, t)
        if problem:
            return problem
        if name != "input" and t.shape != (channels,):
            return f"{name} has shape {tuple(t.shape)}, not ({channels},)"
    if not x.is_contiguous():
        return "the input is not contiguous (the kernel reads (N, C, *) in row-major order)"
    if channels > shapes.MAX_CHANNELS:
        return f"{channels} channels; the kernel keeps at most {shapes.MAX_CHANNELS} on chip"
    return tensors, {"eps": float(a["eps"])}


def _last_dim(x: torch.Tensor, dim: int | None) -> str | None:
    """Why the row kernels cannot reduce ``x`` along ``dim``, or None."""
    if x.dim() == 0:
        return "a 0-d input has no row to reduce along"
    if dim is None:
        return "dim=None: torch picks an implicit dimension; the kernel runs along the last"
    if dim not in (-1, x.dim() - 1):
        return f"dim={dim}: the kernel runs along the last dimension (-1)"
    if x.shape[-1] > shapes.MAX_ROW:
        return f"rows of {x.shape[-1]} elements; the kernel keeps at most {shapes.MAX_ROW} " \
               "on chip"
    return None


def _softmax(a: dict[str, Any]) -> Bound | str:
    x: torch.Tensor = a["input"]
    if a["dtype"] not in (None, torch.float32):
        return f"dtype={a['dtype']}: the kernel computes in float32"
    return _float32("input", x) or _last_dim(x, a["dim"]) or ((x,), {})


def _normalized(x: torch.Tensor, normalized_shape: Any) -> str | None:
    shape = tuple(normalized_shape)
    if len(shape) != 1:
        return f"normalized_shape={list(shape)}: the kernel normalizes over the last " \
               "dimension alone"
    if x.dim() == 0 or shape[0] != x.shape[-1]:
        return "normalized_shape does not match the input's last dimension"
    return _last_dim(x, -1)


def _columns(x: torch.Tensor, names: tuple[str, ...],
             given: tuple[torch.Tensor | None, ...],
             fills: tuple[float, ...]) -> tuple[torch.Tensor, ...] | str:
    """Per-column operands, absent ones filled with ``fills`` (ones, zeros)."""
    cols = x.shape[-1]
    out = []
    for name, t, fill in zip(names, given, fills, strict=True):
        if t is None:
            t = torch.full((cols,), fill, dtype=torch.float32)
        problem = _float32(name, t)
        if problem:
            return problem
        if t.shape != (cols,):
            return f"{name} has shape {tuple(t.shape)}, not ({cols},)"
        out.append(t)
    return tuple(out)


def _layer_norm(a: dict[str, Any]) -> Bound | str:
    x: torch.Tensor = a["input"]
    problem = _float32("input", x) or _normalized(x, a["normalized_shape"])
    if problem:
        return problem
    columns = _columns(x, ("weight", "bias"), (a["weight"], a["bias"]), (1.0, 0.0))
    return columns if isinstance(columns, str) else ((x, *columns), {"eps": float(a["eps"])})


def _rms_norm(a: dict[str, Any]) -> Bound | str:
    x: torch.Tensor = a["input"]
    problem = _float32("input", x) or _normalized(x, a["normalized_shape"])
    if problem:
        return problem
    columns = _columns(x, ("weight",), (a["weight"],), (1.0,))
    eps = a["eps"] if a["eps"] is not None else torch.finfo(torch.float32).eps
    return columns if isinstance(columns, str) else ((x, *columns), {"eps": float(eps)})


def signature(schema: str, bind: Callable[[dict[str, Any]], Bound | str]) -> Signature:
    """A Signature from torch's argument list (schema syntax) and its binder."""
    names: list[str] = []
    defaults: dict[str, Any] = {}
    for param in schema.split(", "):
        declared, _, default = param.partition("=")
        name = declared.split()[-1]
        names.append(name)
        if default:
            words = {"None": None, "False": False, "True": True}
            if default in words:
                defaults[name] = words[default]
            else:
                defaults[name] = int(default) if declared.split()[0] == "int" else \
                    float(default)
    return Signature(f"({schema}) -> Tensor", tuple(names), defaults, bind)


_SOFTMAX = "Tensor input, int? dim=None, ScalarType? dtype=None"
SIGNATURES: dict[str, Signature] = {
    "torch.nn.functional.batch_norm": signature(
        "Tensor input, Tensor? running_mean, Tensor? running_var, Tensor? weight=None, "
        "Tensor? bias=None, bool training=False, float momentum=0.1, float eps=1e-05",
        _batch_norm),
    "torch.nn.functional.softmax": signature(_SOFTMAX, _softmax),
    "torch.nn.functional.log_softmax": signature(_SOFTMAX, _softmax),
    "torch.nn.functional.layer_norm": signature(
        "Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
        "float eps=1e-05", _layer_norm),
    "torch.nn.functional.rms_norm": signature(
        "Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None",
        _rms_norm),
}
