"""torch.ops.fpgakern's shaped ops (batch_norm, softmax, log_softmax, layer_norm, rms_norm)
take torch's signatures; what their kernels do not cover runs torch with the reason
(strict mode: FallbackError naming it), and empty tensors get torch's own answer. The
kernels' answers against torch: test_torch_shaped_kernels.py."""

from __future__ import annotations

import pytest
from runtime_support import LIBRARY, variant

torch = pytest.importorskip("torch")
F = pytest.importorskip("torch.nn.functional")

import fpgakern.runtime.torch_ops as fk_torch  # noqa: E402
from fpgakern.runtime import open_plans  # noqa: E402

OPS = torch.ops.fpgakern
SHAPED = ("nn_ops/batch_norm", "nn_ops/softmax", "nn_ops/log_softmax", "nn_ops/layer_norm",
          "nn_ops/rms_norm")


@pytest.fixture(autouse=True)
def strict_device():
    # Every reason below is decided before any kernel is asked for: no model is built.
    fk_torch.use(open_plans([variant(q, 2, "float32") for q in SHAPED], "sw_emu"),
                 strict=True)
    yield
    fk_torch.use(None)


def test_schemas_are_torchs():
    assert str(OPS.batch_norm.default._schema) == (
        "fpgakern::batch_norm(Tensor input, Tensor? running_mean, Tensor? running_var, "
        "Tensor? weight=None, Tensor? bias=None, bool training=False, "
        "float momentum=0.10000000000000001, float eps=1.0000000000000001e-05) -> Tensor")
    assert "softmax(Tensor input, int? dim=None, ScalarType? dtype=None)" in \
        str(OPS.softmax.default._schema)
    assert "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, " \
        "Tensor? bias=None, float eps=1.0000000000000001e-05)" in \
        str(OPS.layer_norm.default._schema)
    assert "rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, " \
        "float? eps=None)" in str(OPS.rms_norm.default._schema)
    # Kernels of shaped kinds without a torch signature get no op (bias_add mirrors none).
    assert not hasattr(OPS, "bias_add")


x4 = torch.randn(2, 3, 4)
c3 = torch.rand(3) + 0.5


@pytest.mark.parametrize(("call", "reason"), [
    (lambda: OPS.batch_norm(x4, c3.clone(), c3.clone(), training=True), "training=True"),
    (lambda: OPS.batch_norm(x4, None, None, None, None, True), "training=True"),
    (lambda: OPS.batch_norm(x4, None, c3), "no running statistics"),
    (lambda: OPS.batch_norm(x4.double(), c3.double(), c3.double()),
     "input is torch.float64; the kernel is float32"),
    (lambda: OPS.batch_norm(x4, c3, c3, c3.double()), "weight is torch.float64"),
    (lambda: OPS.batch_norm(x4[:, :, ::2], c3, c3),
     "not contiguous"),
    (lambda: OPS.batch_norm(torch.randn(1, 4097), torch.zeros(4097), torch.ones(4097)),
     "4097 channels; the kernel keeps at most 4096"),
    (lambda: OPS.softmax(x4, 1), "dim=1: the kernel runs along the last dimension"),
    (lambda: OPS.softmax(x4), "dim=None"),
    (lambda: OPS.log_softmax(x4, -1, torch.float64), "dtype=torch.float64"),
    (lambda: OPS.log_softmax(torch.tensor(1.0), 0), "0-d input"),
    (lambda: OPS.softmax(torch.randn(2, 4097), -1), "rows of 4097 elements"),
    (lambda: OPS.layer_norm(x4, [3, 4]), r"normalized_shape=\[3, 4\]"),
    (lambda: OPS.rms_norm(x4, [4], torch.ones(4, dtype=torch.float64)),
     "weight is torch.float64"),
])
def test_what_the_kernels_do_not_cover_falls_back_with_its_reason(call, reason):
    with pytest.raises(fk_torch.FallbackError, match=reason):
        call()


def test_fallback_gives_torchs_answer_and_warns():
    fk_torch.use(fk_torch.device(), strict=False)
    mean, var = torch.zeros(3), torch.ones(3)
    with pytest.warns(fk_torch.FallbackWarning, match="training=True"):
        ours = OPS.batch_norm(x4, mean, var, None, None, True, 0.5)
    want_mean, want_var = torch.zeros(3), torch.ones(3)
    want = F.batch_norm(x4, want_mean, want_var, None, None, True, 0.5)
    assert torch.equal(ours, want)
    # torch updates the running statistics in training mode: so does the fallback.
    assert torch.equal(mean, want_mean) and torch.equal(var, want_var)
    with pytest.warns(fk_torch.FallbackWarning, match="dim=0"):
        assert torch.equal(OPS.softmax(x4, 0), F.softmax(x4, 0))


@pytest.mark.parametrize(("call", "twin"), [
    (lambda: OPS.batch_norm(torch.randn(0, 3), c3, c3),
     lambda: F.batch_norm(torch.randn(0, 3), c3, c3)),
    (lambda: OPS.batch_norm(torch.randn(2, 3, 0), c3, c3),
     lambda: F.batch_norm(torch.randn(2, 3, 0), c3, c3)),
    (lambda: OPS.softmax(torch.randn(0, 5), -1), lambda: F.softmax(torch.randn(0, 5), -1)),
    (lambda: OPS.log_softmax(torch.randn(4, 0), -1),
     lambda: F.log_softmax(torch.randn(4, 0), -1)),
    (lambda: OPS.layer_norm(torch.randn(3, 0), [0]), lambda: F.layer_norm(torch.randn(3, 0), [0])),
    (lambda: OPS.rms_norm(torch.randn(0, 2, 6), [6]),
     lambda: F.rms_norm(torch.randn(0, 2, 6), [6])),
])
def test_empty_tensors_get_torchs_answer_without_a_kernel(call, twin):
    ours, theirs = call(), twin()  # strict mode: a fallback would raise
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype


def test_fake_tensors_follow_torchs_shapes():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode() as mode:
        x = mode.from_tensor(torch.randn(2, 3, 5))
        assert OPS.batch_norm(x, mode.from_tensor(c3), mode.from_tensor(c3)).shape == (2, 3, 5)
        assert OPS.layer_norm(x, [5]).shape == (2, 3, 5)
        assert OPS.softmax(x, -1).shape == (2, 3, 5)


def test_torch_errors_stay_torchs():
    # A weight of the wrong length: torch's own error, from the fallback's call of torch.
    fk_torch.use(fk_torch.device(), strict=False)
    with pytest.warns(fk_torch.FallbackWarning), \
            pytest.raises(RuntimeError, match="running_mean should contain 3 elements"):
        OPS.batch_norm(x4, torch.zeros(4), torch.ones(3))


def test_library_has_the_shaped_kernels():
    assert all(LIBRARY.get(q).kind in ("broadcast", "row_map") for q in SHAPED)
