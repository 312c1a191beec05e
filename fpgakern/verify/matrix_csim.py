"""C simulation of a contraction kernel: random and special-value operands of many sizes
(square, tall, wide, K = 1, K = 0, odd, larger than a tile, batched), each result held
bit for bit to fpgakern.verify.matmul's reference (any NaN matches any NaN)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fpgakern.backends.hls.generator import HlsSources
from fpgakern.errors import ToolError
from fpgakern.ir.kernel import Kernel
from fpgakern.ladder import Plan
from fpgakern.verify import compare, matmul
from fpgakern.verify.csim import (
    TB_MATCH,
    CaseResult,
    CsimResult,
    compile_testbench,
    run_testbench,
)

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
    ("odd 13x35x19", 1, 13, 35, 19),
    ("batched", 2, 5, 6, 9),
)


def rtl_cases(kernel: Kernel, dtype_name: str, seed: int = 0) -> Iterator[MatrixCase]:
    """The RTL simulation's cases: RTL_SIZES with random operands, then special values
    everywhere (and at K = 1)."""
    sizes = [*RTL_SIZES, ("special values", 2, 7, 6, 9), ("special values K=1", 1, 4, 5, 1)]
    yield from _cases(kernel, dtype_name, sizes, seed)


def write_case(case: MatrixCase, plan: Plan, path: Path) -> np.ndarray:
    """The testbench's case file (hls_templates/contraction/testbench.cpp.j2); returns
    the reference result it holds."""
    kernel = plan.kernel
    element = plan.dtype.numpy
    scalar = np.dtype(np.float32 if plan.dtype.is_float else np.int32)
    expected = matmul.contract(kernel, plan.dtype.name, case.tensors, case.scalars)
    parts = [np.asarray(case.sizes, np.int32).tobytes()]
    parts += [np.asarray(case.scalars[s.name], scalar).tobytes() for s in kernel.scalars]
    for array in [*(case.tensors[name] for name in kernel.inputs), expected]:
        flat = np.ascontiguousarray(array, dtype=element).ravel()
        parts += [np.int64(flat.size).tobytes(), flat.tobytes()]
    path.write_bytes(b"".join(parts))
    return np.ascontiguousarray(expected, dtype=element).ravel()


def judge(expected: np.ndarray, actual: np.ndarray) -> compare.Verdict:
    """Bit for bit; any NaN matches any NaN."""
    if actual.size != expected.size:
        return compare.Verdict(False, expected.size, "exact", mismatch_count=expected.size)
    bits = np.dtype(f"u{expected.dtype.itemsize}")
    differ = expected.view(bits) != actual.view(bits)
    if expected.dtype.kind == "f":
        differ &= ~(np.isnan(expected) & np.isnan(actual))
    count = int(differ.sum())
    return compare.Verdict(count == 0, expected.size, "exact", mismatch_count=count)


def run(plan: Plan, sources: HlsSources, work_dir: Path) -> CsimResult:
    """Compile (or reuse) the testbench, run every case and judge it."""
    work_dir.mkdir(parents=True, exist_ok=True)
    try:
        binary = compile_testbench(sources)
    except ToolError as err:
        return CsimResult(False, error=str(err))
    all_cases = list(cases(plan.kernel, plan.dtype.name))
    expected = [write_case(case, plan, work_dir / f"case{i}.bin")
                for i, case in enumerate(all_cases)]
    done, failure = run_testbench(binary, len(all_cases), work_dir)
    if failure is not None:
        return failure
    results = []
    for i, case in enumerate(all_cases):
        actual = np.fromfile(work_dir / f"out{i}.bin", dtype=plan.dtype.numpy)
        label = f"{case.label} ({'x'.join(map(str, case.sizes))})"
        results.append(CaseResult(label, case.size, judge(expected[i], actual)))
    passed = all(r.verdict.passed for r in results)
    if passed != (done.returncode == TB_MATCH):
        return CsimResult(False, results, error="the testbench and fpgakern's comparison "
                          f"disagree ({(done.stderr or done.stdout).strip()[:200]})")
    return CsimResult(passed, results)
