"""Test vectors for kernels: random data and the special values every dtype must survive.

C simulation and RTL simulation draw from the same cases, so a kernel is judged on the
same inputs at every step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fpgakern.ir import special
from fpgakern.ir.dtypes import DTYPES, DType
from fpgakern.ir.kernel import Kernel

# The special values, by name from the one vocabulary the operator tests share
# (fpgakern.ir.special).
FLOAT_SPECIALS = special.float32(special.KERNEL_FLOAT32)
INT_SPECIALS = special.int32(special.KERNEL_INT32)
COMPLEX_SPECIALS = special.complex64(special.KERNEL_FLOAT32)
COMPLEX_PAIRED_SPECIALS = special.complex64(special.KERNEL_COMPLEX64_PARTS)
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


def specials(dtype: DType, *, paired: bool = False) -> np.ndarray:
    """The special values of ``dtype``; ``paired``: the ones a binary kernel pairs with
    each other (complex64 has fewer then: special.KERNEL_COMPLEX64_PARTS)."""
    if dtype.is_complex:
        return (COMPLEX_PAIRED_SPECIALS if paired else COMPLEX_SPECIALS).copy()
    return FLOAT_SPECIALS.copy() if dtype.is_float else INT_SPECIALS.copy()


def scalar_value(dtype: DType) -> float | int:
    """A non-default scalar for a variant of ``dtype`` (complex64's scalars are float)."""
    return 2.5 if dtype.is_ieee else 3


def random_values(dtype: DType, size: int, rng: np.random.Generator) -> np.ndarray:
    """Random values spanning many magnitudes (floats; complex64: each part so) or the
    full range (ints)."""
    if dtype.is_complex:
        parts = random_values(DTYPES["float32"], 2 * size, rng)  # re, im, re, im, ...
        return parts.view(np.complex64)
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
    values = specials(dtype, paired=arity > 1)
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
        chosen = {s.name: scalar_value(dtype) for s in kernel.scalars}
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


# A broadcast kernel's cases (fpgakern.ir.shapes): main tensors of real shapes, chosen for
# what the hardware's channel walk must get right: several channels per row of N, an inner
# extent of 1 (a channel per element), inner extents shorter than, not a multiple of and
# longer than 16 lanes, one channel and more channels than lanes.
BROADCAST_SHAPES: dict[str, tuple[int, ...]] = {
    "size_1": (1, 1),
    "shape_2x3x5": (2, 3, 5),
    "inner_1": (4, 7),
    "shape_3x16x33": (3, 16, 33),
    "one_channel": (5, 1, 9),
    "channels_17": (2, 17, 3),
}


def broadcast_shape(size: int) -> tuple[int, ...]:
    """The main tensor of the ``random`` broadcast case, about ``size`` elements: N x 16
    channels x 16 (a whole number of channel runs per 16-lane beat, none spanning two)."""
    return (max(1, round(size / 256)), 16, 16)


def broadcast_cases(kernel: Kernel, dtype: DType, *, size: int = 1000, seed: int = 0,
                    special: bool = True, shape: tuple[int, ...] | None = None) -> list[Case]:
    """The standard cases of a ``broadcast`` kernel, with tensors of their real shapes: the
    main tensor's (``shape`` or :func:`broadcast_shape` for the ``random`` case) and (C)
    per-channel operands. Per-channel operands are non-negative in ``random`` (as running
    variances are) and signed in ``signed_channels``; with ``special`` also special values
    in every full input against ordinary and special per-channel values (NaN, +-inf, +-0,
    subnormals), and per-channel operands of zero (batch_norm's zero running variance)."""
    from fpgakern.ir import shapes

    layout = kernel.layout
    assert layout is not None and layout.channel_dim is not None
    rng = np.random.default_rng(seed)
    defaults = {s.name: s.default for s in kernel.scalars}

    def make(label: str, main: tuple[int, ...],
             fill: Callable[[str, np.ndarray], np.ndarray] | None = None, signed: bool = True,
             scalars: dict[str, float | int] | None = None) -> Case:
        tensors = {}
        for name in kernel.inputs:
            extent = shapes.operand_shape(name, layout, main)
            count = int(np.prod(extent)) if extent else 1
            values = random_values(dtype, count, rng)
            if name in layout.channel_inputs and not signed and dtype.is_float:
                values = np.abs(values)
            if fill is not None:
                values = fill(name, values)
            tensors[name] = values.reshape(extent)
        return Case(label, tensors, dict(defaults) if scalars is None else scalars)

    out = [make("random", shape or broadcast_shape(size), signed=False)]
    out += [make(label, main, signed=False) for label, main in BROADCAST_SHAPES.items()]
    out.append(make("signed_channels", (3, 17, 20)))
    if kernel.scalars:
        chosen = {s.name: (2.5 if dtype.is_float else 3) for s in kernel.scalars}
        out.append(make("scalars", (2, 5, 7), signed=False, scalars=chosen))
    if special:
        values = specials(dtype)
        count = values.size

        def spread(name: str, data: np.ndarray) -> np.ndarray:
            # Full inputs: every special value in every channel; per-channel operands:
            # special values too, rotated per operand so that they meet each other.
            shift = kernel.inputs.index(name)
            return np.resize(np.roll(values, shift * 7), data.size).astype(data.dtype)

        def zeros(name: str, data: np.ndarray) -> np.ndarray:
            return np.zeros_like(data) if name in layout.channel_inputs else data

        out.append(make("special_values", (2, count, 3), spread))
        out.append(make("special_channels", (3, count, 1),
                        lambda n, d: spread(n, d) if n in layout.channel_inputs else d))
        out.append(make("zero_channels", (2, 9, 5), zeros))
    return out


# Row lengths the row kinds are tried at beside the main case: one element, a partial
# beat, exactly one 512-bit beat, one element past two beats.
ROW_COLS = (1, 5, 16, 33)


def row_cases(kernel: Kernel, dtype: DType, size: int = 16384, seed: int = 0,
              special: bool = True) -> list[Case]:
    """Cases of a row kernel (row_map, row_reduction), with their shapes: the main case
    ``random`` of ``size`` elements in rows of 1024 (fewer columns if ``size`` is
    smaller), ``size_1`` (one row of one element), rows of ROW_COLS columns, and with
    ``special`` rows full of special values (each row's own mix of NaN, +-inf, +-0,
    subnormals), all-equal rows, rows with no columns and no rows at all. Per-column
    inputs (shape (D)) get random values."""
    layout = kernel.layout
    assert layout is not None
    rng = np.random.default_rng(seed)
    scalars = {s.name: s.default for s in kernel.scalars}

    def make(label: str, main: np.ndarray) -> Case:
        cols = main.shape[-1]
        tensors = {}
        for name in kernel.inputs:
            tensors[name] = main if name == kernel.inputs[0] else (
                random_values(dtype, cols, rng) if name in layout.channel_inputs
                else random_values(dtype, main.size, rng).reshape(main.shape))
        return Case(label, tensors, scalars)

    cols = max(1, min(1024, size))
    cases = [make("random", random_values(dtype, max(1, size // cols) * cols, rng)
                  .reshape(-1, cols))]
    cases.append(make("size_1", random_values(dtype, 1, rng).reshape(1, 1)))
    for c in ROW_COLS:
        cases.append(make(f"cols_{c}", random_values(dtype, 7 * c, rng).reshape(7, c)))
    if special:
        values = specials(dtype)
        rows = np.stack([rng.permutation(values)[:33] for _ in range(6)])
        rows[0] = np.float32(np.nan)
        rows[1, :] = np.float32(np.inf)
        rows[2, :] = np.float32(-0.0)
        rows[3, :] = np.float32(1e-40)  # subnormal
        cases.append(make("special", rows.astype(dtype.numpy)))
        cases.append(make("equal", np.full((4, 33), 3.25, dtype=dtype.numpy)))
        cases.append(make("no_cols", np.zeros((3, 0), dtype=dtype.numpy)))
        cases.append(make("no_rows", np.zeros((0, 16), dtype=dtype.numpy)))
    return cases
