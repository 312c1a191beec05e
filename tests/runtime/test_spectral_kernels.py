"""The spectral kernels through the runtime: the Python API and torch.ops.fpgakern.fft
(ifft, rfft, irfft) on sw_emu (the HLS C++) and hw_emu (the RTL in Verilator), bit for
bit with fpgakern.ir.fft, with torch's n, dim and norm, rows of any leading shape padded
and stripped, and what the kernel does not cover falling back with its reason."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from runtime_support import device_for

from fpgakern.errors import UsageError
from fpgakern.ir import fft
from fpgakern.runtime import torch_ops

DTYPE = {"fft": "complex64", "ifft": "complex64", "rfft": "float32", "irfft": "complex64"}
RNG = np.random.default_rng(16)


def rows_for(transform: str, shape: tuple[int, ...], n: int) -> np.ndarray:
    """Rows for a transform of ``n`` with leading ``shape``, special values sprinkled in."""
    cols = fft.input_length(transform, n)
    parts = RNG.standard_normal((*shape, cols, 2)).astype(np.float32)
    flat = parts.reshape(-1)
    if flat.size >= 16:
        flat[RNG.choice(flat.size, 6, replace=False)] = [np.nan, np.inf, -np.inf, -0.0, 1e-40,
                                                         3e38]
    if transform == "rfft":
        return np.ascontiguousarray(parts[..., 0])
    return np.ascontiguousarray(parts).view(np.complex64)[..., 0]


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit, any NaN matching any NaN."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    fa = a.view(np.float32) if a.dtype == np.complex64 else a
    fb = b.view(np.float32) if b.dtype == np.complex64 else b
    return bool(((fa.view(np.uint32) == fb.view(np.uint32)) | (np.isnan(fa) & np.isnan(fb))).all())


@pytest.mark.parametrize("rung", [0, 2, 3, 4])
@pytest.mark.parametrize("transform", fft.TRANSFORMS)
def test_sw_emu_is_the_reference(transform, rung):
    handle = device_for(f"spectral_ops/{transform}", rung, DTYPE[transform], "sw_emu") \
        .kernel(f"spectral_ops/{transform}")
    for shape, n, norm in (((3, 5), 16, None), ((2,), 64, "ortho"), ((7,), 8, "forward"),
                           ((), 128, None)):
        x = rows_for(transform, shape, n)
        got = handle(x, norm=norm)
        want = fft.transform(transform, x.reshape(-1, x.shape[-1]), n,
                             fft.norm_scale(transform, n, norm)).reshape(got.shape)
        assert got.shape == (*shape, fft.output_length(transform, n))
        assert same_bits(got, want), (shape, n, norm)


def test_n_pads_and_trims_as_torch_does():
    handle = device_for("spectral_ops/fft", 2, "complex64", "sw_emu").kernel("spectral_ops/fft")
    x = rows_for("fft", (2,), 16)[:, :11]
    padded = np.zeros((2, 16), np.complex64)
    padded[:, :11] = x
    assert same_bits(handle(x, n=16), fft.transform("fft", padded, 16, np.float32(1)))
    assert same_bits(handle(rows_for("fft", (2,), 32), n=8)[..., :0],
                     np.zeros((2, 0), np.complex64))


def test_bad_calls_are_one_line_errors():
    handle = device_for("spectral_ops/rfft", 2, "float32", "sw_emu").kernel("spectral_ops/rfft")
    for args, kwargs, match in (((np.zeros(12, np.float32),), {}, "not a power of two"),
                                ((np.zeros(16, np.float32),), {"norm": "sideways"},
                                 "norm must be one of"),
                                ((np.zeros(16, np.complex64),), {}, "dtype complex64"),
                                ((np.zeros(16, np.float32),), {"alpha": 2}, "unknown argument"),
                                ((np.array(1.0, np.float32),), {}, "0-d array")):
        with pytest.raises(UsageError, match=match):
            handle(*args, **kwargs)


@pytest.fixture()
def torch_device():
    torch_ops.use(device_for("spectral_ops/fft", 4, "complex64", "sw_emu"), strict=True)
    yield
    torch_ops.use(None, strict=False)


def test_torch_op_runs_the_kernel_in_strict_mode(torch_device):
    x = torch.from_numpy(rows_for("fft", (4, 3), 32))
    got = torch.ops.fpgakern.fft(x, norm="ortho")
    want = fft.transform("fft", x.numpy().reshape(-1, 32), 32, fft.norm_scale("fft", 32, "ortho"))
    assert same_bits(got.numpy(), want.reshape(4, 3, 32))
    # float32 input is converted to complex64 (exactly), as torch.fft.fft does
    real = torch.randn(2, 16)
    assert same_bits(torch.ops.fpgakern.fft(real).numpy(),
                     fft.transform("fft", real.numpy().astype(np.complex64), 16, np.float32(1)))


def test_torch_op_is_within_torchs_accuracy(torch_device):
    x = torch.randn(4, 1024, dtype=torch.complex64)
    ours = torch.ops.fpgakern.fft(x).numpy()
    exact = np.fft.fft(x.numpy().astype(np.complex128))
    theirs = torch.fft.fft(x).numpy()
    rms = np.linalg.norm(ours - exact, axis=-1) / np.linalg.norm(exact, axis=-1)
    assert rms.max() <= fft.rms_target(1024)
    torch_rms = np.linalg.norm(theirs - exact, axis=-1) / np.linalg.norm(exact, axis=-1)
    assert torch_rms.max() <= fft.rms_target(1024)


@pytest.mark.parametrize("call, reason", [
    (lambda x: torch.ops.fpgakern.fft(x, dim=0), "dim=0"),
    (lambda x: torch.ops.fpgakern.fft(x, n=12), "not a power of two"),
    (lambda x: torch.ops.fpgakern.fft(x.to(torch.complex128)), "complex128"),
    (lambda x: torch.ops.fpgakern.fft(x[..., :4]), "length 4"),
])
def test_torch_op_falls_back_with_the_reason(call, reason):
    torch_ops.use(device_for("spectral_ops/fft", 2, "complex64", "sw_emu"), strict=False)
    try:
        x = torch.randn(3, 16, dtype=torch.complex64)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(x)
        assert any(reason in str(w.message) for w in caught), [str(w.message) for w in caught]
    finally:
        torch_ops.use(None, strict=False)


def test_torch_op_empty_batch_is_torchs_answer():
    # No element: torch's own answer, which on this build (MKL) is an error.
    x = torch.zeros(0, 16, dtype=torch.complex64)
    try:
        want = torch.fft.fft(x)
    except RuntimeError as err:
        with pytest.raises(RuntimeError, match=str(err)[:20]):
            torch.ops.fpgakern.fft(x)
    else:
        assert torch.ops.fpgakern.fft(x).shape == want.shape


# hw_emu: fft in the default run; the other transforms' adapters are simulated by
# tests/sim/test_fft_stream_sim.py, their hw_emu runs wait for -m slow.
@pytest.mark.parametrize("transform", [
    "fft", *(pytest.param(t, marks=pytest.mark.slow) for t in ("ifft", "rfft", "irfft"))])
def test_hw_emu_is_the_reference(transform):
    handle = device_for(f"spectral_ops/{transform}", 2, DTYPE[transform], "hw_emu") \
        .kernel(f"spectral_ops/{transform}")
    for shape, n, norm in (((3,), 16, None), ((2,), 64, "ortho"), ((1,), 8, "forward")):
        x = rows_for(transform, shape, n)
        got = handle(x, norm=norm)
        want = fft.transform(transform, x.reshape(-1, x.shape[-1]), n,
                             fft.norm_scale(transform, n, norm)).reshape(got.shape)
        assert same_bits(got, want), (shape, n, norm)
