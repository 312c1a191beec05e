"""Test vectors for kernels: random data and the special values every dtype must survive.

C simulation and RTL simulation draw from the same cases, so a kernel is judged on the
same inputs at every step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fpgakern.ir import special
from fpgakern.ir.dtypes import DType
from fpgakern.ir.kernel import Kernel

# The special values, by name from the one vocabulary the operator tests share
# (fpgakern.ir.special).
FLOAT_SPECIALS = special.float32(special.KERNEL_FLOAT32)
INT_SPECIALS = special.int32(special.KERNEL_INT32)
_I32 = np.iinfo(np.int32)


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


def _multiplies(kernel: Kernel) -> bool:
    """A reduction whose combine is a product: random data spanning many magnitudes would
    overflow or underflow its partial products, differently in each order."""
    reduction = kernel.reduction
    return reduction is not None and reduction.combine == "mul"


def product_values(size: int, rng: np.random.Generator) -> np.ndarray:
    """Random float32 values +-2**u, u uniform in [-1/8, 1/8]: for up to 1008 of them,
    even the product of all factors above 1 (or all below) stays within 2**+-126, so every
    order of multiplication keeps its partial products normal and the relative error
    bound of a product (verify.compare.reduction_bound) applies."""
    sign = rng.choice(np.array([-1.0, 1.0]), size=size)
    return (sign * np.exp2(rng.uniform(-0.125, 0.125, size=size))).astype(np.float32)


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

    product = dtype.is_float and _multiplies(kernel)

    def make(label: str, n: int, scalars: dict[str, float | int] | None = None) -> Case:
        tensors = {name: product_values(n, rng) if product else random_values(dtype, n, rng)
                   for name in names}
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
    carries the pattern and the others hold ones, so a product passes it on unchanged.
    A product reduction's special values sit among +-1s: every multiplication is then
    exact, and the special value (a subnormal, the largest float) comes out unchanged
    but for its sign in every order, where ordinary factors would overflow or underflow
    some orders' partial products and not others'."""
    names = kernel.inputs
    bases = {}
    for name in names:
        base = random_values(dtype, 100, rng)
        if dtype.is_float and _multiplies(kernel):
            base = rng.choice(np.array([-1.0, 1.0], dtype=np.float32), size=100)
        elif dtype.is_float:
            base = np.clip(base, -1e3, 1e3).astype(np.float32)  # keep order-dependent overflow out
        bases[name] = base
    out = []
    for i, value in enumerate(specials(dtype)):
        tensors = {name: base.copy() for name, base in bases.items()}
        tensors[names[i % len(names)]][(i * 7) % 100] = value
        out.append(Case(f"special_{i}", tensors, dict(scalars)))
    if dtype.is_float:
        patterns = {
            "all_negative_zero": special.float32(["-0"] * 33),
            "inf_minus_inf": special.float32(["+inf", "+1", "-inf"]),
            "subnormals": special.float32(["1e-41"] * 40),
        }
        for label, data in patterns.items():
            tensors = {name: np.ones_like(data) for name in names}
            tensors[names[0]] = data
            out.append(Case(label, tensors, dict(scalars)))
    reduction = kernel.reduction
    if reduction is not None and reduction.picks is not None:
        out.extend(_index_specials(names[0], dtype, bases[names[0]], scalars))
    return out


def _index_specials(name: str, dtype: DType, base: np.ndarray,
                    scalars: dict[str, float | int]) -> list[Case]:
    """argmax and argmin: ties and NaNs placed across the compute units' shares and the
    vector lanes (100 elements: 4 CUs take 25 or 32 each, 16 lanes split a beat), where
    the index depends on combining CUs, lanes and partials in the right order."""
    extremes = special.float32(["+inf", "-inf"]) if dtype.is_float else \
        np.array([np.iinfo(np.int32).max, np.iinfo(np.int32).min], dtype=np.int32)
    patterns: dict[str, np.ndarray] = {"all_equal": np.full(100, base[0], dtype=base.dtype)}
    for k, value in enumerate(extremes):
        tied = base.copy()
        tied[[70, 40, 99]] = value  # the extreme in CU shares 1, 2 and 3: 40 wins
        patterns[f"tied_extreme_{k}"] = tied
    if dtype.is_float:
        nans = base.copy()
        nans[[5, 6]] = extremes  # +-inf in share 0, then the first NaN in a later share
        nans[[90, 70]] = special.float32(["-qnan", "snan"])
        patterns["nan_after_inf"] = nans
        patterns["signed_zeros"] = special.float32(["-0", "+0"] * 50)
    return [Case(label, {name: data}, dict(scalars)) for label, data in patterns.items()]
