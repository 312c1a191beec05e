"""The spectral kernels' HLS C++ (fpgakern.backends.hls.spectral) in C simulation: every
rung and transform compiled with g++ (the csim flags: warnings as errors,
-ffp-contract=off) and compared bit for bit with fpgakern.ir.fft.transform (any NaN
matches any NaN), on random and special values, for every norm's scale."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from fpgakern.backends.hls import spectral
from fpgakern.ir import fft
from fpgakern.ir.dtypes import DTYPES
from fpgakern.tools import gxx
from fpgakern.tools.cache import cached_build
from fpgakern.util.files import sha256_text
from fpgakern.verify import csim
from fpgakern.verify import spectral as verify_spectral

pytestmark = pytest.mark.skipif(not gxx.finds_header("vector"), reason="no C++ compiler")

RUNGS = (0, 1, 2, 3, 4)
LENGTHS = (8, 16, 64, 1024)
BATCH = 3
SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -3e-39, 1.17e-38,
                     3.4e38, -1.0, 2.5], dtype=np.float32)


def build(transform: str, rung: int, max_n: int = fft.MAX_FFT) -> Path:
    """The compiled testbench of the rung's kernel, once per content (the csim cache)."""
    top = f"{transform}_c64"
    files = spectral.render_spectral(top, transform, rung, max_n=max_n)
    include = csim.csim_include_dir()
    headers = [p.name + "\n" + p.read_text() for p in sorted(include.glob("*.h"))]
    key = sha256_text(gxx.identity(), *csim.CXXFLAGS,
                      *(name + "\n" + text for name, text in sorted(files.items())), *headers)

    def compile_in(staging: Path) -> None:
        for name, text in files.items():
            (staging / name).write_text(text)
        gxx.run([*csim.CXXFLAGS, "-I", str(staging), "-I", str(include),
                 str(staging / f"{top}.cpp"), str(staging / f"{top}_tb.cpp"),
                 "-o", str(staging / "testbench")], f"{top} rung {rung}")

    return cached_build("csim", f"spectral-{top}-r{rung}", key[:24], "testbench",
                        compile_in) / "testbench"


def random_row_values(rng: np.random.Generator, shape: tuple[int, ...], special: bool
                      ) -> np.ndarray:
    """Random float32 values over 16 binades; with ``special``, the first row is special
    values only (NaN, infinities, zeros of both signs, subnormals, huge values), the next
    one is subnormal and zero, the others have 5% of them."""
    values = (rng.standard_normal(shape) * np.exp2(rng.integers(-8, 8, shape))).astype(np.float32)
    if special:
        picks = rng.random(shape) < 0.05
        values[picks] = rng.choice(SPECIALS, int(picks.sum()))
        values[0] = rng.choice(SPECIALS, shape[-1])
        if shape[0] > 1:
            tiny = rng.integers(-2**20, 2**20, shape[-1]).astype(np.int32)
            values[1] = np.where(tiny % 3 == 0, 0, tiny).astype(np.float32) * np.float32(2**-149)
    return values


def case_input(transform: str, rng: np.random.Generator, rows: int, n: int,
               special: bool) -> np.ndarray:
    length = fft.input_length(transform, n)
    if transform == "rfft":
        return random_row_values(rng, (rows, length), special)
    re = random_row_values(rng, (rows, length), special)
    im = random_row_values(rng, (rows, length), special)
    return _complex(re, im)


def _complex(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    out = np.empty(re.shape, dtype=np.complex64)
    out.real, out.imag = re, im  # keeps NaN, inf and -0 parts as they are
    return out


def same_bits(expected: np.ndarray, actual: np.ndarray) -> bool:
    e = np.ascontiguousarray(expected).view(np.float32).ravel()
    a = np.ascontiguousarray(actual).view(np.float32).ravel()
    return e.shape == a.shape and bool(np.all((e.view(np.uint32) == a.view(np.uint32))
                                              | (np.isnan(e) & np.isnan(a))))


def run_cases(binary: Path, transform: str, cases: list[tuple[np.ndarray, int, np.float32]],
              work: Path, *, corrupt: bool = False) -> subprocess.CompletedProcess[str]:
    """Runs the testbench on ``cases`` and checks its outputs here too; ``corrupt`` flips
    a bit of the first case's reference, which the testbench must report."""
    argv = [str(binary)]
    expected = []
    for i, (x, n, scale) in enumerate(cases):
        y = fft.transform(transform, x, n, scale)
        expected.append(y)
        data = spectral.testbench_case(transform, x, n, scale)
        if corrupt and i == 0:  # the reference's second component, last bit flipped
            at = len(data) - y.nbytes + 4
            data = data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]
        (work / f"case{i}.bin").write_bytes(data)
        argv += [str(work / f"case{i}.bin"), str(work / f"out{i}.bin")]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if corrupt:
        return done
    assert done.returncode == csim.TB_MATCH, done.stderr[-2000:]
    for i, y in enumerate(expected):
        actual = spectral.testbench_output(transform, (work / f"out{i}.bin").read_bytes(),
                                           y.shape[0], cases[i][1])
        assert same_bits(y, actual), f"case {i}: fpgakern's comparison disagrees"
    return done


@pytest.mark.parametrize("rung", RUNGS)
@pytest.mark.parametrize("transform", fft.TRANSFORMS)
def test_bit_exact(transform: str, rung: int, tmp_path: Path) -> None:
    binary = build(transform, rung)
    rng = np.random.default_rng(1000 * rung + fft.TRANSFORMS.index(transform))
    cases = []
    for n in LENGTHS:
        for norm in fft.NORMS:
            scale = fft.norm_scale(transform, n, norm)
            for special in (False, True):
                cases.append((case_input(transform, rng, BATCH, n, special), n, scale))
    run_cases(binary, transform, cases, tmp_path)


@pytest.mark.parametrize("rung", RUNGS)
@pytest.mark.parametrize("transform", fft.TRANSFORMS)
def test_every_length(transform: str, rung: int, tmp_path: Path) -> None:
    """Every power of two up to 8192 (each rung's stages, bypasses and banks differ by
    length): a row of special values, one of subnormals and zeros, one random."""
    binary = build(transform, rung)
    rng = np.random.default_rng(5000 + 10 * rung + fft.TRANSFORMS.index(transform))
    cases = [(case_input(transform, rng, 3, 1 << b, True), 1 << b,
              fft.norm_scale(transform, 1 << b, "ortho")) for b in range(3, 14)]
    run_cases(binary, transform, cases, tmp_path)


@pytest.mark.parametrize("rung", RUNGS)
def test_verify_cases(library, rung: int, tmp_path: Path) -> None:
    """The transform kind's own C-simulation cases (verify.spectral: several lengths and
    norms, special rows, one row, no rows) for every spectral_ops kernel."""
    kernels = [k for k in library.kernels if k.kind == "transform"]
    assert {k.transform for k in kernels} == set(fft.TRANSFORMS)
    for kernel in kernels:
        assert kernel.transform is not None
        work = tmp_path / kernel.transform
        work.mkdir()
        cases = [(c.tensors[kernel.inputs[0]], verify_spectral.transform_length(kernel, c),
                  np.float32(c.scalars["scale"]))
                 for c in verify_spectral.cases(kernel, DTYPES[kernel.dtypes[0]])]
        run_cases(build(kernel.transform, rung), kernel.transform, cases, work)


@pytest.mark.parametrize("rung", (0, 1, 2, 4))
@pytest.mark.parametrize("transform", ("ifft", "rfft"))
def test_smaller_max_n(transform: str, rung: int, tmp_path: Path) -> None:
    """A kernel for transforms of at most 64 points (tables and buffers of that size, the
    twiddles subsampled from the same quarter wave) up to its longest."""
    binary = build(transform, rung, max_n=64)
    rng = np.random.default_rng(77 + rung)
    cases = [(case_input(transform, rng, 3, n, True), n, fft.norm_scale(transform, n, None))
             for n in (8, 16, 32, 64)]
    run_cases(binary, transform, cases, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("rung", RUNGS)
@pytest.mark.parametrize("transform", fft.TRANSFORMS)
def test_longest(transform: str, rung: int, tmp_path: Path) -> None:
    binary = build(transform, rung)
    rng = np.random.default_rng(7)
    n = fft.MAX_FFT
    cases = [(case_input(transform, rng, 4, n, special), n,
              fft.norm_scale(transform, n, "ortho"))
             for special in (False, True)]
    run_cases(binary, transform, cases, tmp_path)


@pytest.mark.parametrize("transform", ["rfft", "irfft"])
def test_testbench_reports_a_mismatch(transform: str, tmp_path: Path) -> None:
    """The testbench checks results itself (Vitis cosim needs that): one bit off in the
    reference is a mismatch, exit status 1."""
    binary = build(transform, 4)
    x = case_input(transform, np.random.default_rng(3), 2, 16, False)
    done = run_cases(binary, transform, [(x, 16, np.float32(1.0))], tmp_path, corrupt=True)
    assert done.returncode == csim.TB_MISMATCH, done.stderr
    assert "1 of" in done.stderr


def test_render_contract() -> None:
    files = spectral.render_spectral("irfft_c64", "irfft", 4)
    assert set(files) == {"irfft_c64.cpp", "irfft_c64_tb.cpp", "irfft_c64_twiddles.h",
                          "fpgakern_ops.h"}
    kernel = files["irfft_c64.cpp"]
    assert ('extern "C" void irfft_c64(const in_word* x, out_word* out, float scale, '
            'int rows, int n)') in kernel
    assert "hls::vector<float, 16> out_word" in kernel
    with pytest.raises(ValueError):
        spectral.render_spectral("x", "dct", 0)
    with pytest.raises(ValueError):
        spectral.render_spectral("x", "fft", 5)
    with pytest.raises(ValueError):
        spectral.render_spectral("fft c64", "fft", 0)
    with pytest.raises(ValueError):
        spectral.render_spectral("x", "fft", 4, lanes=16)
    with pytest.raises(ValueError):
        spectral.render_spectral("x", "fft", 2, max_n=1000)


TWIDDLE_DUMP = r"""
#include <cstdio>
#include "top_twiddles.h"

int main() {
    std::fwrite(FK_COS_16, sizeof FK_COS_16, 1, stdout);
    std::fwrite(FK_TWC_15, sizeof FK_TWC_15, 1, stdout);
    std::fwrite(FK_TWS_15, sizeof FK_TWS_15, 1, stdout);
    return 0;
}
"""


def test_twiddle_headers_are_strict_cxx14_and_exact(tmp_path) -> None:
    """The twiddle tables are decimal literals (C++14 has no hexadecimal floats): the
    headers of rungs 2 and 4 compile as strict C++14 without a warning, and g++ reads
    every value back bit for bit."""
    rung2 = spectral.render_spectral("top", "fft", 2)["top_twiddles.h"]
    rung4 = spectral.render_spectral("top", "fft", 4)["top_twiddles.h"]
    assert not re.search(r"0x[0-9a-f.]+p", rung2 + rung4)
    (tmp_path / "top_twiddles.h").write_text(rung2 + rung4.replace("FPGAKERN_TOP_", "R4_"))
    source = tmp_path / "dump.cpp"
    source.write_text(TWIDDLE_DUMP)
    gxx.run(["-std=c++14", "-pedantic", "-Wall", "-Wextra", "-Werror", "-I", str(tmp_path),
             str(source), "-o", str(tmp_path / "dump")], source.name)
    out = subprocess.run([tmp_path / "dump"], capture_output=True, check=True).stdout
    c, s = fft.twiddle_table(fft.MAX_FFT)
    quarter = c[: fft.MAX_FFT // 4 + 1]
    j = np.arange(fft.MAX_FFT // 2)  # stage of half-span 2^15: twiddle j at resolution 2^16
    want = np.concatenate([quarter, c[j], s[j]]).astype(np.float32)
    assert np.array_equal(np.frombuffer(out, dtype=np.uint32), want.view(np.uint32))
