"""A contraction kernel's test cases: matrices of many shapes (square, tall, wide, K = 1,
K = 0, K past the 64 partials, odd, larger than a tile, batched) with random and special
values, and the bit-for-bit judge. C simulation (fpgakern.verify.matrix_csim) and the RTL
testbench (sim/fk_matrix_tb.py) draw their cases here; this module loads nothing of the
HLS backend."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from fpgakern.ir.kernel import Kernel
from fpgakern.verify import compare, matmul

# (label, batch, m, n, k): every rung's tile is 32 x 32 x 32 (backends.hls.matrix).
SIZES = (
    ("square 33", 1, 33, 33, 33),
    ("tall", 1, 70, 5, 9),
    ("wide", 1, 3, 90, 17),
    ("K=1", 1, 8, 8, 1),
    ("K=0", 1, 4, 5, 0),
    ("odd 197x200x301", 1, 197, 200, 301),
    ("batched", 3, 17, 9, 40),
)
FLOAT_SPECIALS = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e-45, -3e-39, 1.17e-38,
                           3e38, -3e38, 1.0, -1.5, 2.0 ** 70, -(2.0 ** -70)], np.float32)
INT_SPECIALS = np.array([-2 ** 31, 2 ** 31 - 1, -1, 0, 1, 65536], np.int64)


@dataclass(frozen=True)
class MatrixCase:
    label: str
    sizes: tuple[int, int, int, int]  # batch, m, n, k
    tensors: dict[str, np.ndarray]
    scalars: dict[str, float | int]

    @property
    def size(self) -> int:
        return self.sizes[0] * self.sizes[1] * self.sizes[2]


def _shape(indices: str, kernel: Kernel, sizes: tuple[int, int, int, int]) -> tuple[int, ...]:
    c = kernel.contraction
    assert c is not None
    size = {c.batch: sizes[0], c.free_a: sizes[1], c.free_b: sizes[2], c.summed: sizes[3]}
    return tuple(size[i] for i in indices)


def _values(rng: np.random.Generator, shape: tuple[int, ...], dtype_name: str,
            special: bool) -> np.ndarray:
    if dtype_name == "int32":
        if special:
            return rng.choice(INT_SPECIALS, size=shape).astype(np.int32)
        return rng.integers(-2 ** 31, 2 ** 31, size=shape, dtype=np.int64).astype(np.int32)
    if special:
        return rng.choice(FLOAT_SPECIALS, size=shape)
    return rng.standard_normal(shape).astype(np.float32)


def cases(kernel: Kernel, dtype_name: str, seed: int = 0) -> Iterator[MatrixCase]:
    """Each size with random operands, then two with special values everywhere."""
    sizes = [*SIZES, ("special values", 2, 37, 41, 45), ("special values K=1", 1, 6, 7, 1)]
    yield from _cases(kernel, dtype_name, sizes, seed)


def cases_of(kernel: Kernel, dtype_name: str, sizes: Sequence[tuple[str, int, int, int, int]],
             seed: int = 0) -> Iterator[MatrixCase]:
    """Cases of the given sizes (label, batch, m, n, k), as :func:`cases` makes them."""
    yield from _cases(kernel, dtype_name, sizes, seed)


def _cases(kernel: Kernel, dtype_name: str, sizes: Sequence[tuple[str, int, int, int, int]],
           seed: int) -> Iterator[MatrixCase]:
    """A case per (label, batch, m, n, k), the sizes the kernel's indices have (no batch:
    1; no free index of B: n = 1); labels starting "special" take special values."""
    c = kernel.contraction
    assert c is not None
    rng = np.random.default_rng(seed)
    scalars = {s.name: s.default for s in kernel.scalars}
    dims_of = [(label, (b if c.batch else 1, m, n if c.free_b else 1, k))
               for label, b, m, n, k in sizes]
    for label, dims in dims_of:
        special = label.startswith("special")
        tensors = {kernel.inputs[0]: _values(rng, _shape(c.a, kernel, dims), dtype_name,
                                             special),
                   kernel.inputs[1]: _values(rng, _shape(c.b, kernel, dims), dtype_name,
                                             special)}
        for name, indices in kernel.indices:
            tensors[name] = _values(rng, _shape(indices, kernel, dims), dtype_name, special)
        yield MatrixCase(label, dims, tensors, scalars)


# The RTL simulation's sizes (label, batch, m, n, k): every shape C simulation covers,
# smaller (rung 0 reads two elements per product from memory), with K past the 64
# partials and more than one block of rungs 2-4 (8 x 8, 32 x 32 outputs).
RTL_SIZES = (
    ("square 9", 1, 9, 9, 9),
    ("tall", 1, 20, 3, 5),
    ("wide", 1, 3, 21, 7),
    ("K=1", 1, 5, 6, 1),
    ("K=0", 1, 4, 5, 0),
    ("K=70", 1, 5, 4, 70),
    ("odd 11x35x7", 1, 11, 35, 7),
    ("batched", 2, 5, 6, 9),
)


def rtl_cases(kernel: Kernel, dtype_name: str, seed: int = 0) -> Iterator[MatrixCase]:
    """The RTL simulation's cases: RTL_SIZES with random operands, then special values
    everywhere (and at K = 1)."""
    sizes = [*RTL_SIZES, ("special values", 2, 7, 6, 9), ("special values K=1", 1, 4, 5, 1)]
    yield from _cases(kernel, dtype_name, sizes, seed)


def exact_epilogue(kernel: Kernel, dtype_name: str) -> bool:
    """Whether the kernel's epilogue is a fixed sequence of IEEE operations (acc, addmm's
    beta * z + alpha * acc, relu(acc + bias)): then its results are held bit for bit."""
    return (kernel.accuracy(dtype_name).kind == "exact"
            and not compare.followed_applications(kernel, dtype_name))


def judge(expected: np.ndarray, actual: np.ndarray, kernel: Kernel | None = None,
          dtype_name: str = "", case: MatrixCase | None = None) -> compare.Verdict:
    """Bit for bit; any NaN matches any NaN. Given the kernel, its dtype and the case, an
    epilogue of inexact operators (gelu, sigmoid, ...) is judged as the elementwise
    kinds are (fpgakern.verify.compare.judge): ``acc`` in the declared order, bit for bit
    the reference's, then each inexact operator within its stated bound."""
    if actual.size != expected.size:
        return compare.Verdict(False, expected.size, "exact", mismatch_count=expected.size)
    if kernel is not None and case is not None and not exact_epilogue(kernel, dtype_name):
        stimulus = matmul.epilogue_case(kernel, dtype_name, case.tensors, case.scalars)
        return compare.judge(kernel, dtype_name, stimulus, actual.ravel())
    return compare.compare(expected.ravel(), actual.ravel(), compare.EXACT)


