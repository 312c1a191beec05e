"""torch.ops.fpgakern.mm, addmm, bmm, linear and matmul on sw_emu: torch's signatures, shapes,
dtypes and errors; the kernel's bits (the declared order, fpgakern.verify.matmul), which
are torch's within the stated bound (docs/matrix.md, "Bound"); int32 bit for bit torch's;
strict mode and fallbacks with their reasons."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from runtime_support import LIBRARY  # noqa: E402

import fpgakern.runtime.torch_ops as fk  # noqa: E402
from fpgakern.ladder import plan  # noqa: E402
from fpgakern.runtime import open_plans  # noqa: E402
from fpgakern.verify.matmul import contract, error_bound, exact  # noqa: E402

ops = torch.ops.fpgakern
RUNG = 2
_device = {}


@pytest.fixture
def device():
    if "dev" not in _device:
        plans = [plan(LIBRARY.get(f"matrix_ops/{name}"), RUNG, dtype)
                 for name in ("mm", "bmm", "addmm", "linear", "baddbmm")
                 for dtype in (("float32", "int32") if name in ("mm", "baddbmm")
                               else ("float32",))]
        _device["dev"] = open_plans(plans, "sw_emu")
    fk.use(_device["dev"], strict=True)
    yield _device["dev"]
    fk.use(None)


def reference(name: str, *tensors: torch.Tensor, **scalars) -> torch.Tensor:
    kernel = LIBRARY.get(f"matrix_ops/{name}")
    arrays = dict(zip(kernel.inputs, (t.numpy() for t in tensors), strict=True))
    return torch.from_numpy(contract(kernel, "float32", arrays, scalars))


def within_bound(got: torch.Tensor, x: torch.Tensor, y: torch.Tensor,
                 want: torch.Tensor) -> None:
    """``got`` and torch's ``want`` both within the stated bound of the exact product:
    at most twice the bound apart."""
    bound = error_bound(x.numpy(), y.numpy())
    truth = exact(x.numpy(), y.numpy())
    assert (np.abs(got.numpy() - truth) <= bound).all()
    assert (np.abs(got.numpy() - want.numpy()) <= 2 * bound).all()


def test_mm_is_the_kernels_and_torchs_within_the_bound(device):
    torch.manual_seed(0)
    for m, n, k in [(16, 16, 16), (70, 3, 20), (3, 90, 40), (33, 17, 1), (65, 66, 67)]:
        x, y = torch.randn(m, k), torch.randn(k, n)
        got = ops.mm(x, y)
        assert got.dtype == torch.float32 and got.shape == (m, n)
        assert torch.equal(got, reference("mm", x, y) + 0.0)
        within_bound(got, x, y, torch.mm(x, y))


def test_linear_addmm_bmm(device):
    torch.manual_seed(1)
    x, w, b = torch.randn(37, 45), torch.randn(20, 45), torch.randn(20)
    assert torch.equal(ops.linear(x, w, b), reference("linear", x, w, b))
    within_bound(ops.linear(x, w, b) - b, x, w.T.contiguous(), F.linear(x, w))
    no_bias = ops.linear(x, w)  # runs mm on w.T
    assert torch.equal(no_bias, reference("mm", x, w.T.contiguous()) + 0.0)
    batched = ops.linear(torch.randn(2, 3, 45), w, b)  # (*, K) inputs
    assert batched.shape == (2, 3, 20)
    assert ops.linear(torch.randn(45), w, b).shape == (20,)
    z, y = torch.randn(37, 20), torch.randn(45, 20)
    got = ops.addmm(z, x, y, beta=0.5, alpha=2)
    assert torch.equal(got, reference("addmm", x, y, z, beta=0.5, alpha=2.0))
    assert torch.equal(ops.addmm(b, x, y), reference("addmm", x, y, b.expand(37, 20)))
    p, q = torch.randn(3, 5, 7), torch.randn(3, 7, 4)
    assert torch.equal(ops.bmm(p, q), reference("bmm", p, q) + 0.0)
    assert torch.allclose(ops.bmm(p, q), torch.bmm(p, q), rtol=1e-5, atol=1e-5)


def test_baddbmm_is_torchs_signature(device):
    """torch.baddbmm(input, batch1, batch2, *, beta, alpha): input broadcast to (B, M, N),
    the kernel's bits, torch's within the bound; int32 torch's bits; torch's errors."""
    torch.manual_seed(4)
    x, y, z = torch.randn(3, 17, 40), torch.randn(3, 40, 9), torch.randn(3, 17, 9)
    got = ops.baddbmm(z, x, y, beta=0.5, alpha=2)
    assert got.shape == (3, 17, 9)
    assert torch.equal(got, reference("baddbmm", x, y, z, beta=0.5, alpha=2.0))
    for i in range(3):
        within_bound((got[i] - 0.5 * z[i]) / 2, x[i], y[i], torch.bmm(x, y)[i])
    bias = torch.randn(9)  # broadcast over batch and rows
    assert torch.equal(ops.baddbmm(bias, x, y),
                       reference("baddbmm", x, y, bias.expand(3, 17, 9).contiguous()))
    xi = torch.randint(-2**31, 2**31 - 1, (2, 5, 7), dtype=torch.int32)
    yi = torch.randint(-2**31, 2**31 - 1, (2, 7, 3), dtype=torch.int32)
    zi = torch.randint(-2**31, 2**31 - 1, (2, 5, 3), dtype=torch.int32)
    assert torch.equal(ops.baddbmm(zi, xi, yi, beta=3, alpha=-2),
                       torch.baddbmm(zi, xi, yi, beta=3, alpha=-2))
    with pytest.raises(RuntimeError, match="Expected size for first two dimensions of "
                                           "batch2 tensor to be"):
        ops.baddbmm(z, x, torch.randn(3, 41, 9))


def test_transposed_views_and_zero_signs(device):
    torch.manual_seed(2)
    x, w = torch.randn(9, 12), torch.randn(7, 12)
    assert torch.equal(ops.mm(x, w.T), reference("mm", x, w.T.contiguous()) + 0.0)
    zeros = ops.mm(torch.full((2, 3), -0.0), torch.ones(3, 2))
    assert torch.equal(zeros.signbit(), torch.mm(torch.full((2, 3), -0.0),
                                                 torch.ones(3, 2)).signbit())  # +0


def test_int32_is_torchs_bits(device):
    info = torch.iinfo(torch.int32)
    x = torch.randint(info.min, info.max, (20, 30), dtype=torch.int32)
    y = torch.randint(info.min, info.max, (30, 10), dtype=torch.int32)
    x[0] = info.min
    assert torch.equal(ops.mm(x, y), torch.mm(x, y))


def test_k_zero_and_empty_are_torchs(device):
    assert torch.equal(ops.mm(torch.zeros(3, 0), torch.zeros(0, 4)), torch.zeros(3, 4))
    assert ops.mm(torch.zeros(0, 5), torch.zeros(5, 4)).shape == (0, 4)
    z = torch.randn(3, 4)
    assert torch.equal(ops.addmm(z, torch.zeros(3, 0), torch.zeros(0, 4), beta=2), 2 * z)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: ops.mm(torch.ones(2, 3), torch.ones(4, 5)),
     r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
    (lambda: ops.mm(torch.ones(2, 3), torch.ones(3, 5, dtype=torch.int32)),
     "expected m1 and m2 to have the same dtype"),
    (lambda: ops.bmm(torch.ones(2, 2, 3), torch.ones(3, 3, 5)), "batch2 tensor"),
    (lambda: ops.linear(torch.ones(2, 3), torch.ones(4, 5)),
     r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 5x4\)"),
    (lambda: ops.mm(torch.ones(2, 3, 1), torch.ones(3, 5)), "self must be a matrix"),
])
def test_torchs_errors(device, call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_strict_mode_and_fallbacks_say_why(device):
    x = torch.ones(2, 3, dtype=torch.float64)
    with pytest.raises(fk.FallbackError, match="no torch.float64 variant"):
        ops.mm(x, x.T)
    with pytest.raises(fk.FallbackError, match="beta=0"):
        ops.addmm(torch.ones(2, 2), torch.ones(2, 3), torch.ones(3, 2), beta=0)
    big = torch.full((2, 4), 3e38)
    with pytest.raises(fk.FallbackError, match="may overflow a partial sum"):
        ops.mm(big, big.T)
    fk.use(device, strict=False)
    with pytest.warns(fk.FallbackWarning, match="no torch.float64 variant"):
        assert torch.equal(ops.mm(x, x.T), torch.mm(x, x.T))


@pytest.mark.parametrize(("a", "b"), [
    ((5,), (5,)), ((3, 5), (5,)), ((5,), (5, 4)), ((3, 5), (5, 4)), ((2, 3, 5), (5, 4)),
    ((2, 3, 5), (5,)), ((5,), (2, 5, 4)), ((2, 1, 3, 5), (4, 5, 6)), ((3, 5), (2, 5, 4)),
    ((0, 3, 5), (5, 4)), ((3, 0), (0,))])
def test_matmul_broadcasts_as_torch(device, a, b):
    torch.manual_seed(3)
    x, y = torch.randn(a), torch.randn(b)
    got, want = ops.matmul(x, y), torch.matmul(x, y)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert torch.allclose(got, want, rtol=1e-5, atol=1e-5)
    if len(a) == len(b) == 2:
        assert torch.equal(got, ops.mm(x, y))  # one order, whichever kernel runs it


def test_matmul_errors_and_int32(device):
    with pytest.raises(RuntimeError, match=r"shapes cannot be multiplied \(2x3 and 4x5\)"):
        ops.matmul(torch.ones(2, 3), torch.ones(4, 5))
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least"):
        ops.matmul(torch.tensor(1.0), torch.ones(3))
    x = torch.randint(-2**31, 2**31 - 1, (6, 7), dtype=torch.int32)
    y = torch.randint(-2**31, 2**31 - 1, (7, 3), dtype=torch.int32)
    assert torch.equal(ops.matmul(x, y), torch.matmul(x, y))
    with pytest.raises(fk.FallbackError, match="torch.ops.fpgakern.matmul: no torch.float64"):
        ops.matmul(torch.ones(2, 2, dtype=torch.float64), torch.ones(2, 2, dtype=torch.float64))


@pytest.mark.slow  # dynamo's compile: 1.4 s
def test_the_ops_trace(device):
    f = torch.compile(lambda a, b: ops.mm(a, b), backend="eager", fullgraph=True)
    x, y = torch.randn(4, 5), torch.randn(5, 3)
    assert torch.equal(f(x, y), ops.mm(x, y))


@pytest.mark.slow
@pytest.mark.parametrize("rung", [0, 1, 2, 3, 4])
def test_every_rung_through_the_ops(rung):
    plans = [plan(LIBRARY.get(f"matrix_ops/{name}"), rung, dtype)
             for name in ("mm", "bmm", "addmm", "linear") for dtype in ("float32", "int32")]
    fk.use(open_plans(plans, "sw_emu"), strict=True)
    try:
        torch.manual_seed(rung)
        for m, n, k in [(16, 16, 16), (70, 3, 20), (3, 90, 40), (33, 17, 1),
                        (197, 200, 301), (65, 66, 67)]:
            x, y, w, b = torch.randn(m, k), torch.randn(k, n), torch.randn(n, k), torch.randn(n)
            assert torch.equal(ops.mm(x, y), reference("mm", x, y) + 0.0)
            within_bound(ops.mm(x, y), x, y, torch.mm(x, y))
            assert torch.equal(ops.linear(x, w, b), reference("linear", x, w, b))
            assert torch.equal(ops.addmm(b, x, w.T, alpha=3),
                               reference("addmm", x, w.T.contiguous(), b.expand(m, n),
                                         alpha=3.0))
            assert torch.equal(ops.matmul(x[None].expand(2, m, k), y[None]),
                               ops.bmm(x[None].expand(2, m, k).contiguous(),
                                       y[None].expand(2, k, n).contiguous()))
            xi = torch.randint(-2**31, 2**31 - 1, (m, k), dtype=torch.int32)
            yi = torch.randint(-2**31, 2**31 - 1, (k, n), dtype=torch.int32)
            assert torch.equal(ops.mm(xi, yi), torch.mm(xi, yi))
            assert torch.equal(ops.bmm(xi[None], yi[None]), torch.bmm(xi[None], yi[None]))
    finally:
        fk.use(None)
