"""torch.compile(backend="fpgakern") offloads aten.mm, addmm and bmm (with the t nodes
that feed them) to the matrix_ops contraction kernels on sw_emu: a small MLP runs both
Linear layers on the device, matches eager within the stated bound, and uploads its
weights once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import fpgakern.compiler as fc  # noqa: E402
from fpgakern.verify.matmul import UNIT_ROUNDOFF, error_bound  # noqa: E402

from .models import Mlp  # noqa: E402

GELU_ULPS = 4  # twice the gelu op's stated bound (fpgakern.ir.ops: 2 ulp), to spare
GELU_SLOPE = 1.13  # the largest |gelu'(x)|


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("compile-matmul")


def compiled(model, cache: Path, **options):
    torch._dynamo.reset()
    return torch.compile(model, backend="fpgakern",
                         options={"target": "sw_emu", "cache_dir": str(cache), **options})


def mlp_bound(model: Mlp, x: torch.Tensor) -> np.ndarray:
    """How far the compiled MLP may be from eager: each Linear's result and torch's are
    within the stated bound of the exact product (docs/matrix.md, "Bound"), so at most
    twice it apart; gelu carries the first difference on (its slope) and adds its own
    ulps; the second Linear carries it through |w2|; the residual add rounds once."""
    w1, b1 = model.fc1.weight.detach().numpy(), model.fc1.bias.detach().numpy()
    w2 = model.fc2.weight.detach().numpy()
    xs = x.numpy()
    h = xs @ w1.T + b1
    g = torch.nn.functional.gelu(torch.from_numpy(h)).numpy()
    dh = 2 * error_bound(xs, w1.T) + 2 * UNIT_ROUNDOFF * np.abs(h)  # + the bias add
    dg = GELU_SLOPE * dh + 2 * GELU_ULPS * 2 * UNIT_ROUNDOFF * np.abs(g)
    out = xs + g @ w2.T + model.fc2.bias.detach().numpy()
    d2 = np.abs(w2) @ dg.T
    return (d2.T + 2 * error_bound(g, w2.T) + 4 * UNIT_ROUNDOFF * np.abs(out)) * 1.01


def test_mlp_runs_both_linears_on_the_device_and_keeps_its_weights(cache):
    torch.manual_seed(0)
    model = Mlp().eval()
    x = torch.randn(8, 32)
    run = compiled(model, cache)
    counts = []
    with torch.no_grad():
        got = run(x)
        report = fc.last_report()
        counts.append(report.last_call.transfers)
        run(x)
        counts.append(report.last_call.transfers)
        run(torch.randn(8, 32))
        counts.append(report.last_call.transfers)
        want = model(x)
    # The first Linear's GELU runs in its kernel (linear_gelu), the residual add on its own.
    assert [k.qualname for k in report.running if k.kind == "contraction"] == \
        ["matrix_ops/linear_gelu", "matrix_ops/linear"]
    assert not report.left_out  # no addmm (nor t) left on the CPU
    assert "addmm" not in "\n".join(f"{x.node} {x.op}" for x in report.left_out)
    # x, both weights and biases once; then nothing; then the new x. The result comes back.
    assert [(c.to_device, c.from_device) for c in counts] == [(5, 1), (0, 1), (1, 1)]
    assert counts[0].to_device_bytes == 4 * (8 * 32 + 64 * 32 + 64 + 32 * 64 + 32)
    assert report.last_call.kernel_calls == 3  # linear_gelu, linear, add
    assert (np.abs((got - want).numpy()) <= mlp_bound(model, x)).all()


@pytest.mark.slow
def test_views_mm_and_bmm_offload(cache):
    torch.manual_seed(1)
    model = Mlp().eval()
    x = torch.randn(2, 5, 32)  # view -> addmm -> view: the views reshape on the device
    with torch.no_grad():
        got = compiled(model, cache)(x)
        report = fc.last_report()
        want = model(x)
    assert not [u for u in report.left_out if "addmm" in u.op]
    assert report.last_call.transfers.from_device == 1
    assert torch.allclose(got, want, rtol=1e-4, atol=1e-5)

    def f(a, b, c):
        return torch.relu(a @ b), torch.bmm(a[None], b[None]), torch.addmm(c, a, b, alpha=2)
    a, b, c = torch.randn(6, 7), torch.randn(7, 5), torch.randn(6, 5)
    with torch.no_grad():
        outs = compiled(f, cache)(a, b, c)
    kernels = [k.qualname for k in fc.last_report().running if k.kind == "contraction"]
    assert kernels == ["matrix_ops/addmm", "matrix_ops/bmm", "matrix_ops/addmm"]
    for o, w in zip(outs, f(a, b, c), strict=True):
        assert torch.allclose(o, w, rtol=1e-5, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize(("activation", "fused"), [
    (torch.nn.ReLU(), "matrix_ops/linear_relu"), (torch.nn.SiLU(), "matrix_ops/linear_silu"),
    (torch.nn.GELU(approximate="tanh"), None)])  # no kernel of its own: not fused
def test_an_activation_after_a_linear_runs_in_its_kernel(cache, activation, fused):
    torch.manual_seed(2)
    model = torch.nn.Sequential(torch.nn.Linear(16, 24), activation,
                                torch.nn.Linear(24, 8)).eval()
    x = torch.randn(5, 16)
    with torch.no_grad():
        run = compiled(model, cache)
        run(x)
        got = run(x)
        report = fc.last_report()
        want = model(x)
    contractions = [k.qualname for k in report.running if k.kind == "contraction"]
    assert not report.left_out
    if fused is None:
        assert contractions == ["matrix_ops/linear", "matrix_ops/linear"]
        assert report.last_call.kernel_calls == 3  # the gelu on a fused kernel of its own
    else:
        assert contractions == [fused, "matrix_ops/linear"]
        assert report.running[0].nodes[:2] == ("t", "addmm") and len(report.running) == 2
        assert (report.last_call.transfers.to_device, report.last_call.kernel_calls) == (0, 2)
    assert torch.allclose(got, want, rtol=1e-5, atol=1e-6)
