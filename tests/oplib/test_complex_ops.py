"""complex64 (issue 16): the op table's references against torch 2.13's CPU operators bit
for bit, through the library's kernels (add, sub, mul, div, mul_scalar, conj), so that the
oracle C simulation and the runtime are judged against is torch's answer.

torch's complex64 loops handle 2 AVX2 vectors of 4 elements per step and the last
n % 8 elements (per chunk of its parallel_for) in a scalar tail. The vectorized body
computes add and sub as z + y*(alpha + 0i) (a complex multiply, then an add), mul as
(ac - bd) + (ad + bc)i with every operation rounded, and div element by element through
c10::complex's Smith's algorithm with its multiply-adds fused. The scalar tail fuses
mul's multiply-adds as well (docs/runtime.md); the kernels keep the vectorized answer.
"""

from __future__ import annotations

import numpy as np
import pytest

from fpgakern.ir import special
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.ops.references import _fma
from fpgakern.paths import library_dir
from fpgakern.spec.library import Library
from fpgakern.verify import reference, stimulus
from fpgakern.verify.stimulus import Case

torch = pytest.importorskip("torch")

C64 = DTYPES["complex64"]
LIBRARY = Library(library_dir())
STEP = 8  # torch's elements per vectorized step (2 x 4 complex64 on AVX2)
# A wider grid than the kernels' special values for the binary ops: huge and tiny parts
# (Smith's scaling, overflow of c*c + d*d), negative and fractional ones, 12 x 12 values.
WIDE_PARTS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, 3e38, 1e-38, 2.5, -1.7e-40,
                       1e-30, 1e30], dtype=np.float32)


def _pairs(x: np.ndarray) -> np.ndarray:
    return x.view(np.float32).reshape(-1, 2)


def _same(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Per element: both parts have equal bits, or are both NaN."""
    a, b = _pairs(ours), _pairs(theirs)
    same = (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))
    return same.all(axis=1)


def _grid(parts: np.ndarray) -> np.ndarray:
    re, im = np.meshgrid(parts, parts, indexing="ij")
    return np.stack([re.ravel(), im.ravel()], axis=-1).astype(np.float32).view(
        np.complex64).ravel()


def _all_pairs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.meshgrid(values, values, indexing="ij")
    return a.ravel(), b.ravel()


# kernel, its torch call, the scalars it is tried with
CALLS = {
    "add": lambda a, b, alpha: torch.add(a, b, alpha=alpha),
    "sub": lambda a, b, alpha: torch.sub(a, b, alpha=alpha),
    "mul": lambda a, b: torch.mul(a, b),
    "div": lambda a, b: torch.div(a, b),
}
ALPHAS = [1, 2.5, -3.0, 0.0, 1e30]


def _ours(name: str, tensors: list[np.ndarray], **scalars: float) -> np.ndarray:
    kernel = LIBRARY.get(f"binary_ops/{name}" if name != "conj" else "unary_ops/conj")
    case = Case("t", dict(zip(kernel.inputs, tensors, strict=True)), scalars)
    return reference.expected_output(kernel, "complex64", case)


def _theirs(name: str, tensors: list[np.ndarray], **scalars: float) -> np.ndarray:
    return CALLS[name](*(torch.from_numpy(t) for t in tensors), **scalars).numpy()


def _binary_cases() -> list[tuple[str, dict[str, float]]]:
    out: list[tuple[str, dict[str, float]]] = []
    for name in ("add", "sub"):
        out += [(name, {"alpha": alpha}) for alpha in ALPHAS]
    return out + [("mul", {}), ("div", {})]


@pytest.mark.parametrize(("name", "scalars"), _binary_cases(),
                         ids=[f"{n}-{s}" for n, s in _binary_cases()])
@pytest.mark.parametrize("grid", ["kernel_specials", "wide"])
def test_binary_special_values_equal_torch(name, scalars, grid):
    """Every pair of complex special values (the kernels' 64: 4096 pairs; a wider 144:
    20736 pairs), a whole number of torch's vectorized steps: bit for bit, add's
    (inf + 0i) + x = NaN imaginary parts included."""
    values = (stimulus.specials(C64, paired=True) if grid == "kernel_specials"
              else _grid(WIDE_PARTS))
    a, b = _all_pairs(values)
    assert a.size % STEP == 0
    same = _same(_ours(name, [a, b], **scalars), _theirs(name, [a, b], **scalars))
    assert same.all(), (a[~same][:4], b[~same][:4])


def test_add_is_not_componentwise():
    """The reason add is fma(alpha, b, a) with a complex multiply: torch's (inf + 0i) +
    (1 + 0i) has a NaN imaginary part (inf * 0), which a componentwise sum would not."""
    a = np.array([1 + 0j] * STEP, np.complex64)
    b = np.array([complex(np.inf, 0)] * STEP, np.complex64)
    theirs = _theirs("add", [a, b], alpha=1)
    assert np.isnan(theirs.imag).all()
    assert _same(_ours("add", [a, b], alpha=1), theirs).all()


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("name", "scalars"), _binary_cases()[:1] + _binary_cases()[5:6]
                         + _binary_cases()[-2:])
def test_random_equal_torch_vectorized_and_tail(name, scalars, seed):
    """4103 random elements (parts over 60 binades): the vectorized body (the first 4096)
    bit for bit. Its last 7 are torch's scalar tail: the same for add, sub and div (their
    tails compute the same operations); for mul the tail fuses (a*c - b*d as
    fma(a, c, -(b*d)), a*d + b*c as fma(a, d, b*c)), which the kernel does not follow."""
    rng = np.random.default_rng(seed)
    a, b = (stimulus.random_values(C64, 4103, rng) for _ in range(2))
    ours, theirs = _ours(name, [a, b], **scalars), _theirs(name, [a, b], **scalars)
    body = a.size - a.size % STEP
    assert _same(ours[:body], theirs[:body]).all()
    if name != "mul":
        assert _same(ours, theirs).all()
        return
    (ar, ai), (br, bi) = _pairs(a[body:]).T, _pairs(b[body:]).T
    fused = np.stack([_fma(ar, br, -(ai * bi)), _fma(ar, bi, ai * br)], axis=-1)
    assert _same(fused.view(np.complex64).ravel(), theirs[body:]).all()


@pytest.mark.parametrize("seed", [0, 1])
def test_mul_tail_differs_where_fusing_matters(seed):
    """The tail difference is real: over 4103 random elements torch's fused tail and the
    vectorized formula disagree somewhere in most draws of 7, and the kernel keeps the
    vectorized answer there (docs/runtime.md's table names the elements)."""
    rng = np.random.default_rng(seed)
    tails = 0
    for _ in range(20):
        a, b = (stimulus.random_values(C64, 4103, rng) for _ in range(2))
        tails += int((~_same(_ours("mul", [a, b]), _theirs("mul", [a, b]))).sum())
    assert tails > 0


@pytest.mark.parametrize("other", [2.5, 0.0, -1.0, 1e-30, float("inf")])
def test_mul_scalar_equals_torch(other):
    """torch.mul(z, s) multiplies by (s, +0) with a full complex multiply (inf * 0 gives
    NaN), never componentwise: every complex special value, and random data with a tail."""
    kernel = LIBRARY.get("binary_ops/mul_scalar")
    rng = np.random.default_rng(5)
    for x in (stimulus.specials(C64), stimulus.random_values(C64, 4103, rng)):
        ours = reference.expected_output(kernel, "complex64", Case("t", {"x": x},
                                                                   {"other": other}))
        theirs = torch.mul(torch.from_numpy(x), other).numpy()
        assert _same(ours, theirs).all()


def test_conj_equals_torch():
    """torch.conj flips the imaginary sign bit (after resolve_conj), NaNs included."""
    x = special.complex64(special.KERNEL_FLOAT32)
    theirs = torch.conj(torch.from_numpy(x)).resolve_conj().numpy()
    ours = _ours("conj", [x])
    assert (ours.view(np.uint64) == theirs.view(np.uint64)).all()
