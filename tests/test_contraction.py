"""The contraction kind (issue 30): specs, shapes with torch's errors, and the numpy
reference's one declared accumulation order, checked against an independent scalar loop
(bit for bit, special values included), against torch (int32: bit for bit, as wrapping
sums are associative), and against the exact result within its stated bound."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fpgakern.ir import contraction
from fpgakern.spec.library import Library
from fpgakern.verify import matmul

SPECS = {
    "mm": "inputs: [x, y]\ncontraction: mk,kn->mn\n",
    "bmm": "inputs: [x, y]\ncontraction: bmk,bkn->bmn\n",
    "mm_t": "inputs: [x, y]\ncontraction: mk,nk->mn\n",
    "mv": "inputs: [x, y]\ncontraction: mk,k->m\n",
    "linear_relu": ("inputs: [x, weight, bias]\ncontraction: mk,nk->mn\n"
                    "indices: {bias: n}\nexpression: relu(acc + bias)\n"),
    "addmm": ("inputs: [x, y, z]\ncontraction: mk,kn->mn\nscalars: {beta: 1, alpha: 1}\n"
              "indices: {z: mn}\nexpression: beta * z + alpha * acc\n"),
}


@pytest.fixture(scope="module")
def user_library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    root = tmp_path_factory.mktemp("matrix") / "kernel_specs"
    (root / "mine").mkdir(parents=True)
    (root / "mine" / "_category.yaml").write_text("doc: Matrix products.\n")
    for name, body in SPECS.items():
        (root / "mine" / f"{name}.yaml").write_text(
            f"kernel: {name}\ndoc: A product.\noutputs: [out]\n"
            f"dtypes: [float32, int32]\n{body}")
    return Library(root)


def test_specs_are_contraction_kernels(user_library: Library):
    kernels = {k.name: k for k in user_library.kernels}
    assert {k.kind for k in kernels.values()} == {"contraction"}
    assert kernels["mm"].size_args == ("batch", "m", "n", "k")
    assert kernels["mm_t"].contraction.transposed_b
    assert kernels["mv"].contraction.free_b is None
    assert kernels["linear_relu"].indices == (("bias", "n"),)
    assert kernels["mm"].expression == "acc"


def test_torch_words_for_bad_shapes():
    mm = contraction.parse("mk,kn->mn")
    with pytest.raises(contraction.ContractionError,
                       match=r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)$"):
        mm.sizes((2, 3), (4, 5))
    with pytest.raises(RuntimeError,
                       match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        torch.mm(torch.zeros(2, 3), torch.zeros(4, 5))
    assert contraction.parse("bmk,bkn->bmn").sizes((2, 3, 4), (2, 4, 5)) == (2, 3, 5, 4)


@pytest.mark.parametrize("text", ["mk,kn->nm", "mk,kn->mkn", "mk,mk->m k"])
def test_unsupported_outputs_are_refused(text: str):
    with pytest.raises(contraction.ContractionError):
        contraction.parse(text)


def _scalar_loop(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The declared order written out element by element with numpy float32 scalars: the
    partial sums by k mod PARTIALS, then the pairwise tree."""
    m, k = a.shape
    n = b.shape[1]
    out = np.zeros((m, n), dtype=np.float32)
    with np.errstate(all="ignore"):
        for i in range(m):
            for j in range(n):
                partial: dict[int, np.float32] = {}
                for step in range(k):
                    q = step % contraction.PARTIALS
                    product = np.float32(a[i, step]) * np.float32(b[step, j])
                    partial[q] = product if q not in partial else np.float32(partial[q] + product)
                values = [partial[q] for q in sorted(partial)]
                while len(values) > 1:
                    values = [np.float32(values[t] + values[t + 1]) if t + 1 < len(values)
                              else values[t] for t in range(0, len(values), 2)]
                if values:
                    out[i, j] = values[0]
    return out


SPECIALS = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e-45, -3e-39, 1.17e-38, 3e38,
                     -3e38, 1.0, -1.5], dtype=np.float32)


def _same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    nan = np.isnan(x)
    return bool(np.array_equal(nan, np.isnan(y))
                and np.array_equal(x[~nan].view(np.uint32), y[~nan].view(np.uint32)))


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (3, 0, 2), (4, 1, 5), (5, 7, 3), (6, 13, 4),
                                   (2, 64, 3), (3, 65, 2), (2, 200, 2)])
def test_reference_is_the_declared_order_bit_for_bit(m: int, k: int, n: int):
    rng = np.random.default_rng(m * 100 + k)
    a = rng.choice(SPECIALS, size=(m, k)) * rng.choice([1, 1, 2 ** -60, 2 ** 60], (m, k))
    b = rng.choice(SPECIALS, size=(k, n))
    with np.errstate(over="ignore"):
        a = a.astype(np.float32)
    got = matmul.accumulate(a[None], b[None], "float32")[0]
    assert _same_bits(got, _scalar_loop(a, b))
    if k == 0:
        assert not np.signbit(got).any()  # +0, as torch


def test_minus_zero_survives_k1():
    a = np.array([[-0.0]], np.float32)
    b = np.array([[1.0]], np.float32)
    assert np.signbit(matmul.accumulate(a[None], b[None], "float32")[0, 0, 0])


def test_int32_wraps_as_torch(user_library: Library):
    rng = np.random.default_rng(1)
    a = rng.integers(-2 ** 31, 2 ** 31, (9, 17), dtype=np.int64).astype(np.int32)
    b = rng.integers(-2 ** 31, 2 ** 31, (17, 6), dtype=np.int64).astype(np.int32)
    got = matmul.contract(user_library.get("mine/mm"), "int32", {"x": a, "y": b})
    want = torch.mm(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    assert np.array_equal(got, want)


def test_epilogues_and_layouts(user_library: Library):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 8)).astype(np.float32)
    w = rng.standard_normal((3, 8)).astype(np.float32)
    bias = rng.standard_normal(3).astype(np.float32)
    acc = matmul.accumulate(x[None], np.ascontiguousarray(w.T)[None], "float32")[0]
    got = matmul.contract(user_library.get("mine/linear_relu"), "float32",
                          {"x": x, "weight": w, "bias": bias})
    assert _same_bits(got, np.maximum(acc + bias, np.float32(0)))
    y = rng.standard_normal((8, 3)).astype(np.float32)
    c = rng.standard_normal((5, 3)).astype(np.float32)
    got = matmul.contract(user_library.get("mine/addmm"), "float32",
                          {"x": x, "y": y, "z": c}, {"beta": 0.5, "alpha": 2.0})
    acc = matmul.accumulate(x[None], y[None], "float32")[0]
    assert _same_bits(got, np.float32(0.5) * c + np.float32(2.0) * acc)
    batch_a = rng.standard_normal((2, 4, 6)).astype(np.float32)
    batch_b = rng.standard_normal((2, 6, 3)).astype(np.float32)
    got = matmul.contract(user_library.get("mine/bmm"), "float32", {"x": batch_a, "y": batch_b})
    assert got.shape == (2, 4, 3)
    for i in range(2):
        assert _same_bits(got[i], _scalar_loop(batch_a[i], batch_b[i]))
    vec = matmul.contract(user_library.get("mine/mv"), "float32", {"x": x, "y": x[0]})
    assert vec.shape == (5,) and _same_bits(vec, _scalar_loop(x, x[0][:, None])[:, 0])


@pytest.mark.parametrize("k", [1, 2, 31, 65, 256, 1024, 4096])
def test_error_within_the_declared_bound(k: int):
    """|ours - exact| <= gamma_d sum|a b| + K 2^-150 for every output (d the order's rounding
    depth, ceil(K/64) + ceil(log2 min(K, 64))), on random signs
    (cancellation) and tiny magnitudes (underflowing products)."""
    rng = np.random.default_rng(k)
    for scale in (1.0, 2.0 ** -70):
        a = (rng.standard_normal((6, k)) * scale).astype(np.float32)
        b = (rng.standard_normal((k, 5)) * scale).astype(np.float32)
        ours = matmul.accumulate(a[None], b[None], "float32")[0].astype(np.float64)
        error = np.abs(ours - matmul.exact(a, b))
        bound = matmul.error_bound(a, b)
        assert (error <= bound).all(), float((error / bound).max())
        assert error.max() > 0 or k == 1  # the check can fail: errors do occur


def test_csim_catches_a_kernel_that_sums_from_zero(tmp_path):
    """The check can fail: rung 0 starting its partial sums from +0 instead of their first
    products turns a -0 result into +0 (special values, K = 1), and nothing else."""
    from fpgakern import paths
    from fpgakern.backends.hls import generate
    from fpgakern.ladder import plan
    from fpgakern.verify import matrix_csim

    library = Library(paths.SOURCE_ROOT / "kernel_specs")
    p = plan(library.get("matrix_ops/mm"), 0, "float32")
    sources = generate(p, tmp_path)
    text = sources.kernel.read_text()
    first = "fk_part[fk_q] = fk_p < P ? fk_prod : "
    assert first in text and "float fk_part[P];" in text
    sources.kernel.write_text(text.replace(first, "fk_part[fk_q] = ")
                              .replace("float fk_part[P];", "float fk_part[P] = {};"))
    result = matrix_csim.run(p, sources, tmp_path / "csim")
    assert not result.passed
    failed = {c.label.split(" (")[0] for c in result.cases if not c.verdict.passed}
    assert failed and failed <= {"special values", "special values K=1"}, failed


def test_an_inexact_epilogue_is_held_to_its_bound(tmp_path):
    """linear_silu's sigmoid is within 2 ulp, not bit for bit: its C simulation is judged as
    the elementwise kinds are (acc in the declared order, then the epilogue's bound) and
    passes; with the sigmoid's bias dropped it fails."""
    from fpgakern import paths
    from fpgakern.backends.hls import generate
    from fpgakern.ladder import plan
    from fpgakern.verify import matrix_cases, matrix_csim

    library = Library(paths.SOURCE_ROOT / "kernel_specs")
    p = plan(library.get("matrix_ops/linear_silu"), 0, "float32")
    assert not matrix_cases.exact_epilogue(p.kernel, "float32")
    assert matrix_cases.exact_epilogue(library.get("matrix_ops/addmm"), "float32")
    sources = generate(p, tmp_path / "good")
    assert matrix_csim.run(p, sources, tmp_path / "good" / "csim").passed
    sources = generate(p, tmp_path / "bad")
    text = sources.kernel.read_text()
    right = "fk::sigmoid((fk_acc + bias[(int64_t)fk_j]))"
    assert right in text
    sources.kernel.write_text(text.replace(right, "fk::sigmoid(fk_acc)"))
    result = matrix_csim.run(p, sources, tmp_path / "bad" / "csim")
    assert not result.passed and result.error is None


def test_rung_5_is_the_array_in_every_compute_unit(tmp_path):
    """Rung 5 (built on request: specs default to rungs 0-4) is rung 4's PE array in each
    CU, CU u taking every units-th tile; its C simulation holds bit for bit."""
    from fpgakern import paths
    from fpgakern.backends.hls import generate
    from fpgakern.ladder import plan
    from fpgakern.verify import matrix_csim

    p = plan(Library(paths.SOURCE_ROOT / "kernel_specs").get("matrix_ops/linear"), 5,
             "float32")
    sources = generate(p, tmp_path)
    text = sources.kernel.read_text()
    assert "fk_t = unit; fk_t < fk_tiles; fk_t += units" in text
    assert "max_widen_bitwidth=512" in text
    result = matrix_csim.run(p, sources, tmp_path / "csim")
    assert result.passed, result.summary()


@pytest.mark.parametrize("rung", [0, 1, 2, 3, 4, 5])
def test_the_kernel_signature_is_the_interface(rung: int):
    """The HLS top's parameters, in order, and each pointer's m_axi bundle are what
    fpgakern.interface says (kernel.xml, the host and the runtime follow it): one shared
    bundle before rung 2, a compute unit's unit/units after the sizes at rungs 3 and 5."""
    import re

    from fpgakern import paths
    from fpgakern.backends.hls import render
    from fpgakern.interface import interface
    from fpgakern.ladder import plan

    p = plan(Library(paths.SOURCE_ROOT / "kernel_specs").get("matrix_ops/linear"), rung,
             "float32")
    text = render(p)[f"{p.top}.cpp"]
    signature = re.search(rf'extern "C" void {p.top}\((.*?)\) {{', text).group(1)
    params = [param.split()[-1].lstrip("*") for param in signature.split(",")]
    iface = interface(p)
    assert params == [a.name for a in iface.args]
    bundles = dict(re.findall(r"m_axi port=(\w+) bundle=(\w+)", text))
    assert bundles == {a.name: a.bundle for a in iface.pointers}
