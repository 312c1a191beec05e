"""Cases and expected results of the transform kind (spectral kernels, fpgakern.ir.fft).

A case holds the input as rows (shape ``(rows, input_length(n))``) and the scale; the
transform length follows from the row length. Every layer (csim, RTL simulation, the
runtime's emulators) is held bit for bit to fpgakern.ir.fft.transform on these cases:
random rows at several lengths (8 up), each norm's scale (ortho's inexact one at an odd
log2(n)), rows of special values (NaN, +-inf, +-0, subnormals in either part), a single
row and no rows at all.
"""

from __future__ import annotations

import numpy as np

from fpgakern.ir import fft
from fpgakern.ir.dtypes import DType
from fpgakern.ir.kernel import Kernel
from fpgakern.verify.stimulus import Case, random_values

# Lengths tried beside the main case: the shortest, a partial 512-bit beat's worth of
# rfft bins (n/2 + 1 = 9), and lengths whose stages span one and several beats.
LENGTHS = (8, 16, 32, 64)
MAIN_N = 1024


def transform_length(kernel: Kernel, case: Case) -> int:
    """The transform length n of ``case``, from its input's row length."""
    assert kernel.transform is not None
    cols = case.tensors[kernel.inputs[0]].shape[-1]
    return fft.default_length(kernel.transform, cols)


def expected(kernel: Kernel, case: Case) -> np.ndarray:
    """fpgakern.ir.fft's result for ``case``: rows of output_length(n)."""
    assert kernel.transform is not None
    n = transform_length(kernel, case)
    x = case.tensors[kernel.inputs[0]]
    if x.shape[0] == 0:
        shape = (0, fft.output_length(kernel.transform, n))
        return np.zeros(shape, dtype=kernel.output_dtype(kernel.dtypes[0]).numpy)
    return fft.transform(kernel.transform, x, n, np.float32(case.scalars["scale"]))


def _rows(kernel: Kernel, dtype: DType, rows: int, n: int,
          rng: np.random.Generator, *, normal: bool = False) -> np.ndarray:
    """``rows`` random input rows for length ``n``: values spanning many magnitudes, or
    standard normal ones (``normal``: the accuracy a transform is judged by)."""
    assert kernel.transform is not None
    cols = fft.input_length(kernel.transform, n)
    if normal:
        values = rng.standard_normal(rows * cols * (2 if dtype.is_complex else 1))
        flat = values.astype(np.float32)
        data = flat.view(np.complex64) if dtype.is_complex else flat
    else:
        data = random_values(dtype, rows * cols, rng)
    return data.reshape(rows, cols)


def normal_rows(transform: fft.Transform, rows: int, n: int,
                rng: np.random.Generator) -> np.ndarray:
    """``rows`` input rows of a transform of length ``n`` for judging accuracy: standard
    normal values (complex: both parts), for irfft the rfft of real normal rows (a
    spectrum whose inverse is real, as irfft's inputs are)."""
    if transform == "rfft":
        return rng.standard_normal((rows, n)).astype(np.float32)
    full = rng.standard_normal((rows, n)) + 1j * rng.standard_normal((rows, n))
    if transform == "irfft":
        return np.fft.rfft(full.real, axis=-1).astype(np.complex64)
    return full.astype(np.complex64)


def _special_rows(kernel: Kernel, dtype: DType, n: int,
                  rng: np.random.Generator) -> np.ndarray:
    """Rows of length ``n`` holding NaN, +-inf, +-0 and subnormals (in either part), each
    row one kind among normal values, plus a row of -0 and a row of subnormals only."""
    assert kernel.transform is not None
    cols = fft.input_length(kernel.transform, n)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -3.5e-39, 1.4e-45,
                         3.4e38], dtype=np.float32)
    rows = []
    for value in specials:
        parts = rng.standard_normal(2 * cols).astype(np.float32)
        parts[rng.integers(0, 2 * cols)] = value
        rows.append(parts)
    rows.append(np.full(2 * cols, -0.0, dtype=np.float32))
    rows.append(np.resize(specials[5:8], 2 * cols))
    parts2d = np.stack(rows)
    if dtype.is_complex:
        return np.ascontiguousarray(parts2d).view(np.complex64)
    return np.ascontiguousarray(parts2d[:, :cols])


def cases(kernel: Kernel, dtype: DType, *, size: int = 4096, seed: int = 0,
          special: bool = True) -> list[Case]:
    """The cases of a transform kernel: ``random`` (rows of MAIN_N, or of the largest
    power of two <= ``size``, about ``size`` samples), then LENGTHS, the norms' scales,
    and with ``special`` the special values, one row and no rows."""
    assert kernel.transform is not None
    kind = kernel.transform
    rng = np.random.default_rng(seed)
    n_main = max(fft.MIN_FFT, min(MAIN_N, 1 << (max(size, 1).bit_length() - 1)))
    rows_main = max(1, size // n_main)
    one = {"scale": 1.0}

    def scaled(n: int, norm: str) -> dict[str, float | int]:
        return {"scale": float(fft.norm_scale(kind, n, norm))}

    out = [Case("random", {kernel.inputs[0]: _rows(kernel, dtype, rows_main, n_main, rng)},
                scaled(n_main, "backward"))]
    for n in LENGTHS:
        out.append(Case(f"n_{n}", {kernel.inputs[0]: _rows(kernel, dtype, 3, n, rng)},
                        scaled(n, "backward")))
    for norm, n in (("forward", 16), ("ortho", 32)):  # ortho at 32: 1/sqrt(32) inexact
        out.append(Case(f"norm_{norm}", {kernel.inputs[0]: _rows(kernel, dtype, 2, n, rng,
                                                                  normal=True)},
                        scaled(n, norm)))
    if special:
        out.append(Case("special", {kernel.inputs[0]: _special_rows(kernel, dtype, 16, rng)},
                        one))
        out.append(Case("one_row", {kernel.inputs[0]: _rows(kernel, dtype, 1, 128, rng)},
                        one))
        out.append(Case("no_rows", {kernel.inputs[0]: _rows(kernel, dtype, 0, 8, rng)},
                        one))
    return out
