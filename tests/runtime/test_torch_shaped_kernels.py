"""The shaped kernels through torch.ops.fpgakern on the emulation targets, against torch.

Must show (issue 15): torch.nn.functional.batch_norm (eval) and
torch.ops.fpgakern.batch_norm agree bit for bit (a NaN for a NaN) on random and special
values (NaN, +-inf, zero variance, subnormals) at several shapes, on sw_emu and hw_emu.
Strict mode: a fallback to torch would raise, so every answer compared is the kernel's.
"""

from __future__ import annotations

import numpy as np
import pytest
from runtime_support import LIBRARY, device_for

torch = pytest.importorskip("torch")
F = pytest.importorskip("torch.nn.functional")

import fpgakern.runtime.torch_ops as fk_torch  # noqa: E402

SHAPES = [(8, 4), (2, 3, 5), (4, 16, 33), (2, 3, 4, 5)]
# hw_emu: 4 CUs of one lane (channel runs split over CUs) and 16 lanes (channel runs that
# start inside a memory word).
# sw_emu: the HLS C++ at rungs 0, 3 and 4.
# hw_emu at rung 4 (the 16-lane model, 17 s) nightly; rung 3 proves hw_emu by default.
BN_VARIANTS = [("sw_emu", 0), ("sw_emu", 3), ("sw_emu", 4), ("hw_emu", 3),
               pytest.param("hw_emu", 4, marks=pytest.mark.slow, id="hw_emu@4")]

SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1.1754942e-38,
                    -5.877472e-39, 3.4028235e38, -3.4028235e38, 1.0, -1.0, 1e-20, 1e20,
                    0.5], dtype=np.float32)


def _channel(c: int, rng: np.random.Generator, special: bool, positive: bool) -> torch.Tensor:
    values = rng.standard_normal(c).astype(np.float32)
    if positive:
        values = np.abs(values)
    if special:
        picks = rng.integers(0, len(SPECIAL), c)
        mask = rng.random(c) < 0.5
        values = np.where(mask, SPECIAL[picks], values)
        if positive:
            values[0] = 0.0  # zero variance: eps alone
    return torch.from_numpy(values.astype(np.float32))


def _batch_norm_cases(shape: tuple[int, ...]):
    rng = np.random.default_rng(hash(shape) % 2**32)
    c = shape[1]
    for special in (False, True):
        x = rng.standard_normal(shape).astype(np.float32) * 3
        if special:
            flat = x.reshape(-1)
            mask = rng.random(flat.size) < 0.4
            flat[mask] = SPECIAL[rng.integers(0, len(SPECIAL), int(mask.sum()))]
            first = min(flat.size, len(SPECIAL))
            flat[:first] = SPECIAL[:first]  # each special value at least once (but (8, 4))
        mean = _channel(c, rng, special, False)
        var = _channel(c, rng, special, True)
        weight = _channel(c, rng, special, False)
        bias = _channel(c, rng, special, False)
        label = "special" if special else "random"
        yield label, (torch.from_numpy(x), mean, var, weight, bias), 1e-5
        yield f"{label} no weight/bias", (torch.from_numpy(x), mean, var, None, None), 1e-3


def _bits(t: torch.Tensor) -> np.ndarray:
    """The float32 bits, every NaN as the canonical quiet NaN: the RTL operators return
    that one NaN where torch carries an operand's sign and payload (a NaN is a NaN)."""
    a = t.numpy()
    return np.where(np.isnan(a), np.uint32(0x7FC00000), a.view(np.uint32))


@pytest.mark.parametrize(("target", "rung"), BN_VARIANTS,
                         ids=[f"{v[0]}@{v[1]}" if isinstance(v, tuple) else None
                              for v in BN_VARIANTS])
def test_batch_norm_is_torchs_bit_for_bit(target, rung):
    fk_torch.use(device_for("nn_ops/batch_norm", rung, "float32", target), strict=True)
    try:
        for shape in SHAPES:
            for label, (x, mean, var, weight, bias), eps in _batch_norm_cases(shape):
                want = F.batch_norm(x, mean, var, weight, bias, False, 0.1, eps)
                ours = torch.ops.fpgakern.batch_norm(x, mean, var, weight, bias, False, 0.1,
                                                     eps)
                assert ours.shape == want.shape and ours.dtype == want.dtype
                differ = (_bits(ours) != _bits(want)).reshape(-1)
                assert not differ.any(), \
                    f"{shape} {label}: torch {want.reshape(-1)[differ][:4]}, " \
                    f"ours {ours.reshape(-1)[differ][:4]}"
    finally:
        fk_torch.use(None)


# ----------------------------------------------------------------- row kernels (row_map)

ROW_SHAPES = [(3, 7), (5, 33), (2, 3, 17), (1, 1), (4, 200)]


def _rows(shape: tuple[int, ...], rng: np.random.Generator) -> torch.Tensor:
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    rows = x.reshape(-1, shape[-1])
    if rows.shape[0] > 2 and shape[-1] > 2:
        rows[0, :] = 2.5  # a constant row (layer_norm: zero variance)
        rows[1, 1] = 60.0  # a dominant element
        rows[2, 0] = -np.inf  # a masked element (softmax: exp(-inf) = 0)
    return torch.from_numpy(x)


ROW_OPS = {
    "nn_ops/softmax": (lambda x: torch.ops.fpgakern.softmax(x, -1),
                       lambda x: F.softmax(x, -1), ()),
    "nn_ops/log_softmax": (lambda x: torch.ops.fpgakern.log_softmax(x, dim=-1),
                           lambda x: F.log_softmax(x, -1), ()),
    "nn_ops/layer_norm": (lambda x, w, b: torch.ops.fpgakern.layer_norm(x, [x.shape[-1]], w, b),
                          lambda x, w, b: F.layer_norm(x, [x.shape[-1]], w, b),
                          ("weight", "bias")),
    "nn_ops/rms_norm": (lambda x, w: torch.ops.fpgakern.rms_norm(x, [x.shape[-1]], w),
                        lambda x, w: F.rms_norm(x, [x.shape[-1]], w), ("weight",)),
}
# hw_emu: softmax at rung 2 (one lane) and layer_norm at rung 3 (rows split over CUs,
# per-column tables) by default; each other op's rung-2 model is another half minute of
# verilating and simulating (the row RTL of every op and rung is simulated by
# tests/sim/test_rows_sim.py), and rung 4's 16-lane row pitch (rows of 7, 33, 17 padded to
# 16, 48, 32) costs minutes: slow. sw_emu (the HLS C++) at rung 4 (16 lanes) and rung 3
# (4 CUs), a few seconds of g++ each.
ROW_VARIANTS = [pytest.param("hw_emu", q, 2, id=f"hw_emu-{q}@2",
                             marks=() if q == "nn_ops/softmax" else pytest.mark.slow)
                for q in ROW_OPS] + [
    pytest.param("hw_emu", "nn_ops/layer_norm", 3, id="hw_emu-nn_ops/layer_norm@3"),
    pytest.param("hw_emu", "nn_ops/softmax", 4, id="hw_emu-nn_ops/softmax@4",
                 marks=pytest.mark.slow),
    pytest.param("hw_emu", "nn_ops/rms_norm", 4, id="hw_emu-nn_ops/rms_norm@4",
                 marks=pytest.mark.slow),
] + [pytest.param("sw_emu", q, 4, id=f"sw_emu-{q}@4") for q in ROW_OPS] + [
    pytest.param("sw_emu", "nn_ops/softmax", 3, id="sw_emu-nn_ops/softmax@3")]


@pytest.mark.parametrize(("target", "qualname", "rung"), ROW_VARIANTS)
def test_row_ops_within_the_spec_accuracy(target, qualname, rung, capsys):

    from fpgakern.verify import compare, reference

    kernel = LIBRARY.get(qualname)
    ours_op, theirs_op, columns = ROW_OPS[qualname]
    fk_torch.use(device_for(qualname, rung, "float32", target), strict=True)
    rng = np.random.default_rng(rung)
    worst = 0
    try:
        for shape in ROW_SHAPES:
            x = _rows(shape, rng)
            extra = [torch.from_numpy(rng.standard_normal(shape[-1]).astype(np.float32))
                     for _ in columns]
            ours = ours_op(x, *extra)
            theirs = theirs_op(x, *extra)
            assert ours.shape == theirs.shape == x.shape
            tensors = {"x": x.numpy(), **{n: t.numpy() for n, t in zip(columns, extra,
                                                                      strict=True)}}
            scalars = {s.name: s.default for s in kernel.scalars}
            if qualname == "nn_ops/rms_norm":
                scalars["eps"] = float(torch.finfo(torch.float32).eps)
            expected = reference.shaped_expected(kernel, "float32", tensors, scalars)
            verdict = compare.compare_rows(expected, ours.numpy(), kernel.accuracy("float32"))
            assert verdict.passed, f"{shape}: {verdict.summary()}"
            a, b = ours.numpy().ravel(), theirs.numpy().ravel()
            both = np.isfinite(a) & np.isfinite(b)
            assert (np.isnan(a) == np.isnan(b)).all()
            if both.any():
                worst = max(worst, int(compare.ulp_distance(b[both], a[both]).max()))
    finally:
        fk_torch.use(None)
    with capsys.disabled():
        print(f"\n{qualname} {target} rung {rung}: max {worst} ulp against torch")
