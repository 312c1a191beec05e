"""torch.compile(backend="fpgakern") end to end on sw_emu: results, report, transfers,
the compile cache, fallbacks and strict mode."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import fpgakern.compiler as fc  # noqa: E402
from fpgakern.compiler import specs  # noqa: E402
from fpgakern.ir.ops import row_sum_depth  # noqa: E402
from fpgakern.runtime.torch_ops import FallbackWarning  # noqa: E402

from .models import D, MlpBlock  # noqa: E402

ROWS = 8


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("compile-cache")


def compiled(model, cache: Path, **options):
    torch._dynamo.reset()
    return torch.compile(model, backend="fpgakern",
                         options={"target": "sw_emu", "cache_dir": str(cache), **options})




def test_the_backend_is_an_entry_point():
    names = [e.name for e in entry_points(group="torch_dynamo_backends")]
    assert "fpgakern" in names
    assert "fpgakern" in torch._dynamo.list_backends(exclude_tags=())


# hw_emu: every fused kernel of the block verilated, minutes cold; the default run takes
# the hw_emu path with one fused kernel (test_special_values_give_eager_bits_...).
@pytest.mark.parametrize("target", ["sw_emu", pytest.param("hw_emu", marks=pytest.mark.slow)])
def test_mlp_block_runs_its_fused_kernels_within_their_bounds(cache, target):
    torch.manual_seed(0)
    model = MlpBlock().eval()
    x = torch.randn(ROWS, D)
    run = compiled(model, cache, target=target)
    with torch.no_grad():
        got = run(x)
        report = fc.last_report()
        assert report is not None and report.graph is not None
        assert report.running[-1].kind == "reduction"
        assert "row_map" in [k.kind for k in report.running]
        # The Linear too runs on the device: on hw_emu, the contraction's RTL kernel.
        assert report.running[0].qualname == "matrix_ops/linear"
        assert not report.left_out
        uploads = 6  # x and the five parameters
        call = report.last_call
        assert call is not None and (call.transfers.to_device, call.transfers.from_device) \
            == (uploads, 1)
        assert (call.cycles is not None) == (target == "hw_emu")
        # Every element of the normalized tensor within the fused kernel's rows bound, and
        # the sum within the float sum's bound over them: the eager result is within both.
        h = model.ln(torch.relu(torch.nn.functional.silu(model.fc(x)) + model.bias + x))
        want = h.sum()
    spec_text = next(k for k in report.running if k.kind == "row_map").spec.read_text()
    assert "accuracy:" in spec_text
    accuracy = _stated(spec_text)
    ulp = np.spacing(np.abs(h.numpy())).astype(np.float64)
    row_ulp = np.spacing(np.abs(h.numpy()).max(axis=-1, keepdims=True)).astype(np.float64)
    per_element = accuracy["ulps"] * ulp + (
        accuracy["row_ulps"] + accuracy["sum_ulps"] * row_sum_depth(D)) * row_ulp
    bound = per_element.sum() + h.numel() * 2.0**-24 * h.abs().sum().item()
    assert abs(got.item() - want.item()) <= bound
    assert got.dtype == torch.float32 and got.shape == want.shape


def _stated(text: str) -> dict[str, int]:
    import yaml
    return yaml.safe_load(text)["accuracy"]


def test_data_stays_on_the_device_between_kernels(cache):
    torch.manual_seed(1)
    model = MlpBlock().eval()
    run = compiled(model, cache)
    x = torch.randn(ROWS, D)
    with torch.no_grad():
        run(x)
        first = fc.last_report().last_call
        # x and the block's five parameters (the Linear's weight and bias among them) go
        # to the device; the Linear's result stays there for the row kernel, whose result
        # stays there for the sum; only the sum's partial comes back.
        assert (first.kernel_calls, first.transfers.to_device, first.transfers.from_device) \
            == (3, 6, 1)
        assert first.transfers.to_device_bytes == ROWS * D * 4 + D * D * 4 + 4 * D * 4
        run(x)  # the same x and parameters, unchanged: nothing goes again
        assert fc.last_report().last_call.transfers.to_device == 0
        run(torch.randn(ROWS, D))
        assert fc.last_report().last_call.transfers.to_device == 1
        model.bias.add_(1.0)  # a changed parameter goes again
        run(x)
        assert fc.last_report().last_call.transfers.to_device == 2


def test_row_statistics_kept_as_torch_keeps_them(cache):
    w = torch.randn(24)
    x = torch.randn(5, 24)

    def f(t):
        return torch.nn.functional.rms_norm(t, [24], w), t.mean(-1, keepdim=True)
    with torch.no_grad():
        got, mean = compiled(f, cache)(x)
        want, want_mean = f(x)
    assert [k.kind for k in fc.last_report().running] == ["row_map", "row_reduction"]
    assert mean.shape == (5, 1)
    assert torch.allclose(mean, want_mean, rtol=1e-6, atol=1e-7)
    assert torch.allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_torch_node_between_two_kernels_reads_back_once(cache):
    def f(x):
        e = torch.exp(x)
        return torch.tanh(e @ e.t()).sum() + e.sum()
    x = torch.randn(6, 6) * 0.1
    run = compiled(f, cache)
    with torch.no_grad():
        got = run(x)
        call = fc.last_report().last_call
    assert got.item() == pytest.approx(f(x).item(), rel=1e-5)
    # exp's result is read back once for the matmul, though two nodes use it.
    assert call.transfers.from_device >= 1
    assert call.kernel_calls == len(fc.last_report().running)


def test_second_compile_in_a_fresh_process_builds_nothing(cache):
    script = textwrap.dedent(f"""
        import json, sys, torch
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from models import MlpBlock, D
        import fpgakern.compiler as fc
        torch.manual_seed(0)
        run = torch.compile(MlpBlock().eval(), backend="fpgakern",
                            options={{"target": "sw_emu", "cache_dir": {str(cache)!r}}})
        with torch.no_grad():
            run(torch.randn(8, D))
        r = fc.last_report()
        print(json.dumps({{"run": r.tasks_run, "cached": r.tasks_cached,
                          "kernels": len(r.running)}}))
    """)
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
    last = json.loads(out.stdout.strip().splitlines()[-1])
    assert last == {"run": 0, "cached": 4, "kernels": 3}  # and the library's linear


def test_a_changed_model_builds_only_its_new_kernel(cache):
    def f(x):
        return torch.sigmoid(x).sum()

    def g(x):
        return torch.sigmoid(x).sum() * 2 + torch.cos(x).mean()
    x = torch.randn(40)
    with torch.no_grad():
        compiled(f, cache)(x)
        compiled(g, cache)(x)
    report = fc.last_report()
    assert len(report.running) == 2
    assert report.tasks_run == 2  # cos's mean: hls and csim; sigmoid's sum was built


def test_a_kernel_that_fails_to_build_leaves_its_nodes_to_torch(cache, monkeypatch):
    # A bound no float kernel meets: the fused row kernel fails its C simulation.
    monkeypatch.setattr(specs, "_accuracy", lambda terms: {"ulps": 0, "row_ulps": 0,
                                                         "sum_ulps": 0})
    x = torch.randn(4, 32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.no_grad():
            got = compiled(lambda t: torch.softmax(t * 3.0, -1), cache)(x)
    report = fc.last_report()
    assert report.kernels and report.kernels[0].problem is not None
    assert "csim step failed" in report.kernels[0].problem
    assert {x.node for x in report.left_out} == {"mul", "_softmax"}
    assert any(issubclass(w.category, FallbackWarning) for w in caught)
    assert torch.equal(got, torch.softmax(x * 3.0, -1))


def test_strict_mode_raises_on_the_first_unsupported_node(cache):
    with pytest.raises(Exception, match=r"node addmm \(aten.addmm.default\) cannot run "
                                        r"on fpgakern: beta=0"), torch.no_grad():
        compiled(lambda t: torch.addmm(t, t, t, beta=0).exp(), cache,
                 strict=True)(torch.randn(4, 4))


def test_strict_mode_passes_a_graph_it_runs_whole(cache):
    x = torch.randn(3, 16)
    with torch.no_grad():
        got = compiled(lambda t: torch.relu(t) * 2.0, cache, strict=True)(x)
    assert torch.equal(got, torch.relu(x) * 2.0)
    assert not fc.last_report().left_out


@pytest.mark.parametrize(("options", "message"), [
    ({"targets": "sw_emu"}, "unknown option"),
    ({"target": "fpga"}, "target 'fpga'"),
    ({"rung": 9}, "rung 9"),
    ({"target": "hw"}, "target 'hw' is not built yet"),
    ({"cache_dir": "FILE"}, "is not a folder"),
])
def test_bad_options_are_one_line_errors(cache, options, message):
    if options.get("cache_dir") == "FILE":
        options = {"cache_dir": str(cache / "a_file")}
        (cache / "a_file").write_text("")
    with pytest.raises(Exception, match=message):
        compiled(lambda t: t + 1, cache, **options)(torch.randn(4))


SPECIALS = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-40, -1e-40, 3e38,
            -3e38, 1.0, -100.0, 88.0, 17.0]


def _swish_over(x, y):
    return torch.relu(x * torch.sigmoid(x) + y) / (y + 2.0)


def _fused_arithmetic(x, y):
    return torch.relu(x * y + y) - x * 0.5


# hw_emu at rung 2: one lane's model (the default rung 4's sixteen lanes take minutes to
# verilate cold; rung 4 runs on sw_emu here and on hw_emu in test_mlp_block_... under
# -m slow). The hw_emu graph leaves sigmoid and divide to sw_emu: each RTL operator is
# held to the op table's bits by tests/oplib, and the table's to torch's by sw_emu here,
# while their two models (the sim step's and hw_emu's) are most of a minute cold.
@pytest.mark.parametrize(("target", "rung", "f"), [
    pytest.param("sw_emu", 4, _swish_over, id="sw_emu-4"),
    pytest.param("hw_emu", 2, _fused_arithmetic, id="hw_emu-2"),
    pytest.param("hw_emu", 2, _swish_over, marks=pytest.mark.slow, id="hw_emu-2-swish")])
def test_special_values_give_eager_bits_through_a_fused_kernel(cache, target, rung, f):
    x = torch.tensor(SPECIALS)
    y = x.flip(0)
    with torch.no_grad():
        got = compiled(f, cache, target=target, rung=rung)(x, y)
    want = f(x, y)
    report = fc.last_report()
    assert len(report.running) == 1
    assert (report.last_call.cycles is not None) == (target == "hw_emu")
    same = (got.view(torch.int32) == want.view(torch.int32)) | (got.isnan() & want.isnan())
    assert bool(same.all()), (got, want)


ZERO_SUMS = {
    "row sums": lambda x: x.sum(-1),
    "row sums into a kernel": lambda x: 1.0 / (x.sum(-1) + x.mean(-1)),
    "a row sum inside a row kernel": lambda x: x + x.sum(-1, keepdim=True),
    "a row mean inside a row kernel": lambda x: x * 2.0 + x.mean(-1, keepdim=True),
}


@pytest.mark.parametrize("name", ZERO_SUMS)
def test_sums_of_negative_zeros_are_plus_zero_as_torchs(cache, name):
    """torch's sums start from +0.0: a row of -0.0s sums to +0.0 (1 / it is +inf); the
    kernels' IEEE sum of -0.0s is -0.0, so the backend adds +0.0 to every sum it uses."""
    f = ZERO_SUMS[name]
    x = torch.full((4, 8), -0.0)
    x[1] = torch.linspace(-2.0, 3.0, 8)
    with torch.no_grad():
        got = compiled(f, cache, strict=True)(x)
    want = f(x)
    zero_rows = [0, 2, 3]  # all -0.0: exactly torch's bits, +0.0 (and +inf)
    assert torch.equal(got[zero_rows].view(torch.int32), want[zero_rows].view(torch.int32)), \
        (got, want)
    assert torch.allclose(got[1], want[1], rtol=1e-6, atol=1e-6)  # a sum in another order


@pytest.mark.parametrize("shape", [(0,), (0, 3), (1,), (17,), (3, 5)])
def test_empty_and_odd_sized_tensors(cache, shape):
    def f(x):
        return torch.exp(x) * 2.0, (x - 1.0).sum()
    x = torch.randn(shape)
    with torch.no_grad():
        got, total = compiled(f, cache)(x)
    want, want_total = f(x)
    assert got.shape == want.shape and torch.equal(got, want) or \
        torch.allclose(got, want, rtol=3e-7, atol=0)  # exp within its 2 ulps
    assert total.shape == () and (total.item() == 0.0) == (x.numel() == 0)
    if x.numel() == 0:  # torch's empty sum is +0.0, not the kernels' identity -0.0
        assert str(total.item()) == "0.0"
