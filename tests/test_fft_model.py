"""The spectral kernels' float32 reference (fpgakern.ir.fft): its twiddles are correctly
rounded, it is the radix-2 DIF written out, and it stays within its bounds against a
float64 FFT (and so does torch, for comparison)."""

from __future__ import annotations

import math

import gmpy2
import numpy as np
import pytest
import torch

from fpgakern.ir import fft, twiddles
from fpgakern.util.files import sha256_file
from fpgakern.verify import spectral

RNG = np.random.default_rng(16)


# The SHA-256 of the generated quarter wave: a change to the generator that alters one bit
# of the table fails here (and then test_every_twiddle_is_correctly_rounded says whether
# the new table is still right).
QUARTER_WAVE_SHA256 = "005f1f320c0b0f219ba089aa57faa4356db55a5cf52110a2d1ea4f94095681ea"


def test_the_generated_twiddle_table_is_pinned(tmp_path, monkeypatch):
    monkeypatch.setenv("FPGAKERN_CACHE_DIR", str(tmp_path))  # generated here, not reused
    path = twiddles.quarter_wave_file()
    assert path.is_relative_to(tmp_path)
    assert len(path.read_text().split()) == twiddles.WORDS
    assert sha256_file(path) == QUARTER_WAVE_SHA256


def test_every_twiddle_is_correctly_rounded():
    c, s = fft.twiddle_table(fft.MAX_FFT)
    ctx = gmpy2.get_context()
    ctx.precision = 120
    pi = gmpy2.const_pi()
    for k in range(0, fft.MAX_FFT // 2):
        angle = 2 * pi * k / fft.MAX_FFT
        # cos(pi/2) and sin(0) are exactly 0 (MPFR's rounded pi would give a tiny value)
        cos = 0.0 if 4 * k == fft.MAX_FFT else float(gmpy2.mpfr(gmpy2.cos(angle), 24))
        sin = 0.0 if k == 0 else float(gmpy2.mpfr(gmpy2.sin(angle), 24))
        assert cos == c[k] and sin == s[k], k


def test_shorter_tables_are_the_same_angles():
    c, s = fft.twiddle_table(fft.MAX_FFT)
    for n in (8, 64, 4096):
        cn, sn = fft.twiddle_table(n)
        step = fft.MAX_FFT // n
        assert np.array_equal(cn, c[::step]) and np.array_equal(sn, s[::step])


def _scalar_dif(x: np.ndarray, inverse: bool) -> np.ndarray:
    """The docstring's butterflies, one float32 operation at a time (an implementation
    independent of the vectorized reference)."""
    f = np.float32
    n = len(x)
    re = [f(v.real) for v in x]
    im = [f(v.imag) for v in x]
    h = n // 2
    while h >= 1:
        for block in range(0, n, 2 * h):
            for j in range(h):
                angle = 2 * math.pi * j / (2 * h)
                c, s = f(math.cos(angle)), f(math.sin(angle))
                a, b = block + j, block + j + h
                dr, di = f(re[a] - re[b]), f(im[a] - im[b])
                re[a], im[a] = f(re[a] + re[b]), f(im[a] + im[b])
                if inverse:
                    re[b], im[b] = f(f(dr * c) - f(di * s)), f(f(di * c) + f(dr * s))
                else:
                    re[b], im[b] = f(f(dr * c) + f(di * s)), f(f(di * c) - f(dr * s))
        h //= 2
    order = fft.bit_reverse(n)
    return np.array([complex(re[p], im[p]) for p in order], dtype=np.complex64)


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("n", [8, 16, 32])
def test_reference_is_the_radix2_dif(n, inverse):
    # Lengths <= 32: math.cos rounded to float32 is the correctly rounded twiddle there
    # (test_every_twiddle_is_correctly_rounded holds the table to MPFR).
    with np.errstate(all="ignore"):
        for _ in range(20):
            x = (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)).astype(np.complex64)
            got = fft.complex_transform(x[None], inverse, np.float32(1))[0]
            want = _scalar_dif(x, inverse)
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def _relative_rms(y: np.ndarray, exact: np.ndarray) -> np.ndarray:
    return np.linalg.norm(y - exact, axis=-1) / np.linalg.norm(exact, axis=-1)


_NUMPY = {"fft": np.fft.fft, "ifft": np.fft.ifft, "rfft": np.fft.rfft}


def _input(transform: str, rows: int, n: int) -> np.ndarray:
    return spectral.normal_rows(transform, rows, n, RNG)


def _exact(transform: str, x: np.ndarray, n: int, norm: str | None) -> np.ndarray:
    if transform == "irfft":
        return np.fft.irfft(x.astype(np.complex128), n, norm=norm)
    return _NUMPY[transform](x.astype(np.complex128 if transform != "rfft" else np.float64),
                             norm=norm)


@pytest.mark.parametrize("norm", [None, "forward", "ortho"])
@pytest.mark.parametrize("transform", fft.TRANSFORMS)
@pytest.mark.parametrize("n", [8, 1024, 65536])
def test_within_bounds_against_float64(n, transform, norm):
    x = _input(transform, 4, n)
    y = fft.transform(transform, x, n, fft.norm_scale(transform, n, norm))
    exact = _exact(transform, x, n, norm)
    assert y.shape == exact.shape and y.dtype == (np.float32 if transform == "irfft"
                                                  else np.complex64)
    assert _relative_rms(y, exact).max() <= fft.rms_target(n)
    # Per element: within element_bound(n) times the exact transform's 2-norm (for the
    # real transforms, of the whole spectrum the kernel computes).
    norm_y = np.linalg.norm(exact, axis=-1, keepdims=True)
    if transform in ("rfft", "irfft"):
        norm_y = norm_y * math.sqrt(2)
    assert (np.abs(y - exact) <= fft.element_bound(n) * norm_y).all()


@pytest.mark.parametrize("transform", fft.TRANSFORMS)
def test_torch_is_within_the_same_target(transform):
    # For comparison, not a requirement on torch: its FFT (oneMKL in this wheel) on the same rows.
    n = 1024
    x = _input(transform, 4, n)
    got = getattr(torch.fft, transform)(torch.from_numpy(x)).numpy()
    assert _relative_rms(got, _exact(transform, x, n, None)).max() <= fft.rms_target(n)


def test_round_trip():
    n = 4096
    x = _input("fft", 4, n)
    back = fft.transform("ifft", fft.transform("fft", x, n, np.float32(1)), n,
                         fft.norm_scale("ifft", n, None))
    assert _relative_rms(back, x.astype(np.complex128)).max() <= 2 * fft.rms_target(n)


def test_irfft_ignores_the_imaginary_parts_torch_ignores():
    n = 16
    x = _input("irfft", 2, n)
    noisy = x.copy()
    noisy[:, 0].imag = np.nan
    noisy[:, n // 2].imag = np.inf
    scale = fft.norm_scale("irfft", n, None)
    assert np.array_equal(fft.transform("irfft", noisy, n, scale),
                          fft.transform("irfft", x, n, scale))
    torch_noisy = torch.fft.irfft(torch.from_numpy(noisy), n).numpy()
    assert np.isfinite(torch_noisy).all()


def test_norm_scales_follow_torch():
    assert fft.norm_scale("fft", 64, None) == 1 and fft.norm_scale("ifft", 64, None) == 1 / 64
    assert fft.norm_scale("fft", 64, "forward") == 1 / 64
    assert fft.norm_scale("irfft", 64, "forward") == 1
    assert fft.norm_scale("rfft", 32, "ortho") == np.float32(1 / math.sqrt(32))
    with pytest.raises(ValueError, match="norm must be one of"):
        fft.norm_scale("fft", 64, "sideways")


@pytest.mark.parametrize("n", [0, 4, 12, 131072])
def test_lengths_outside_the_kernels_are_refused(n):
    with pytest.raises(ValueError, match="power of two"):
        fft.check_length(n)
