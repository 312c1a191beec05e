"""Test vectors for kernels: random data and the special values every dtype must survive.

C simulation and RTL simulation draw from the same cases, so a kernel is judged on the
same inputs at every step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fpgakern.ir.dtypes import DType
from fpgakern.ir.kernel import Kernel

_F32 = np.float32
FLOAT_SPECIALS = np.array(
    [
        np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -3.0,
        np.finfo(_F32).max, -np.finfo(_F32).max,  # largest normals
        np.finfo(_F32).tiny, -np.finfo(_F32).tiny,  # smallest normals
        np.finfo(_F32).smallest_subnormal, -np.finfo(_F32).smallest_subnormal,
        np.float32(np.finfo(_F32).tiny) - np.finfo(_F32).smallest_subnormal,  # largest subnormal
        1e-40, -3.5e-39, 1e30, -1e30, 1e-30, 88.0, -88.0, 89.0, -104.0, 20.0, -20.0,
        1.0000001, 0.99999994, 16777216.0, 16777217.0, 8388608.5, 1.5, 2.5, -2.5,
    ],
    dtype=_F32,
)
_I32 = np.iinfo(np.int32)
INT_SPECIALS = np.array(
    [0, 1, -1, 2, -2, 7, -7, 31, 32, 33, _I32.max, _I32.min, _I32.max - 1, _I32.min + 1,
     0x5555_5555, -0x5555_5556, 65535, -65536, 1 << 30, -(1 << 30)],
    dtype=np.int32,
)


@dataclass(frozen=True)
class Case:
    """One set of kernel inputs: tensors by name, scalars by name, and a label."""

    label: str
    tensors: dict[str, np.ndarray]
    scalars: dict[str, float | int]

    @property
    def size(self) -> int:
        return next(iter(self.tensors.values())).size


def specials(dtype: DType) -> np.ndarray:
    return FLOAT_SPECIALS.copy() if dtype.is_float else INT_SPECIALS.copy()


def random_values(dtype: DType, size: int, rng: np.random.Generator) -> np.ndarray:
    """Random values spanning many magnitudes (floats) or the full range (ints)."""
    if not dtype.is_float:
        return rng.integers(_I32.min, _I32.max, size=size, dtype=np.int64, endpoint=True).astype(
            np.int32
        )
    mantissa = rng.uniform(-2.0, 2.0, size=size)
    exponent = rng.integers(-30, 31, size=size)
    return (mantissa * np.exp2(exponent)).astype(np.float32)


def _pairs(dtype: DType, arity: int) -> list[np.ndarray]:
    """Every special value against every other (for binary kernels), else the list itself."""
    values = specials(dtype)
    if arity == 1:
        return [values]
    a, b = np.meshgrid(values, values, indexing="ij")
    return [a.ravel(), b.ravel()] + [a.ravel()] * (arity - 2)


def cases(
    kernel: Kernel,
    dtype: DType,
    *,
    size: int = 1000,
    seed: int = 0,
    lanes: int = 16,
    special: bool = True,
) -> list[Case]:
    """The standard case list for one kernel at one dtype.

    Always a random case of ``size`` elements, a one-element case and a size that is not a
    multiple of ``lanes``; with ``special`` also the special values (all pairs for binary
    kernels) and a case with non-default scalars.
    """
    rng = np.random.default_rng(seed)
    names = kernel.inputs
    defaults = {s.name: s.default for s in kernel.scalars}

    def make(label: str, n: int, scalars: dict[str, float | int] | None = None) -> Case:
        tensors = {name: random_values(dtype, n, rng) for name in names}
        return Case(label, tensors, scalars or dict(defaults))

    out = [make("random", size), make("size_1", 1), make("odd_tail", lanes * 3 + 5)]
    if kernel.scalars:
        chosen = {s.name: (2.5 if dtype.is_float else 3) for s in kernel.scalars}
        out.append(make("scalars", max(size // 4, 1), chosen))
    if special:
        columns = _pairs(dtype, len(names))
        if kernel.is_reduction:
            out.extend(_reduction_specials(kernel, dtype, rng, defaults))
        else:
            out.append(Case("special_values", dict(zip(names, columns, strict=True)),
                            dict(defaults)))
    return out


def _reduction_specials(
    kernel: Kernel, dtype: DType, rng: np.random.Generator, scalars: dict[str, float | int]
) -> list[Case]:
    """Reductions see special values one at a time inside ordinary data, so that each
    case tests one rule (NaN wins, inf + -inf is NaN, -0 vs +0...).

    Every input gets a tensor (a reduction may have several: ``sum(a * b)``). The special
    values take turns among the inputs; in the hand-made float cases the first input
    carries the pattern and the others hold ones, so a product passes it on unchanged."""
    names = kernel.inputs
    bases = {}
    for name in names:
        base = random_values(dtype, 100, rng)
        if dtype.is_float:
            base = np.clip(base, -1e3, 1e3).astype(np.float32)  # keep order-dependent overflow out
        bases[name] = base
    out = []
    for i, value in enumerate(specials(dtype)):
        tensors = {name: base.copy() for name, base in bases.items()}
        tensors[names[i % len(names)]][(i * 7) % 100] = value
        out.append(Case(f"special_{i}", tensors, dict(scalars)))
    if dtype.is_float:
        patterns = {
            "all_negative_zero": np.full(33, -0.0, np.float32),
            "inf_minus_inf": np.array([np.inf, 1, -np.inf], np.float32),
            "subnormals": np.full(40, 1e-41, np.float32),
        }
        for label, data in patterns.items():
            tensors = {name: np.ones_like(data) for name in names}
            tensors[names[0]] = data
            out.append(Case(label, tensors, dict(scalars)))
    return out
