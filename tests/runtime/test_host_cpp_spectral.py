"""The generated C++ host wrappers of the spectral kernels (hls_templates/transform/host*.j2)
and the spectral_ops category entry (transform()): built with -Wall -Wextra -Werror against
fpgakern's XRT emulation library; the command-line hosts run on case files on sw_emu and
hw_emu through a linked .xclbin, rows padded and stripped and split over compute units by
the C++ code, bit for bit with fpgakern.ir.fft."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from runtime_support import LIBRARY, emulation_env, for_target, link_xclbin, variant

from fpgakern.backends import host
from fpgakern.ir import fft
from fpgakern.runtime import emu
from fpgakern.verify import spectral

DTYPE = {"fft": "complex64", "ifft": "complex64", "rfft": "float32", "irfft": "complex64"}
# rfft at rung 4: float32 rows of 16 a word in, complex rows of 8 a word out; irfft at
# rung 3: 4 CUs; fft at rung 1 and ifft at rung 0 (one bundle for both pointers).
VARIANTS = [("rfft", 4), ("irfft", 3), ("fft", 1), ("ifft", 0)]
NORMS = {None: 0, "forward": 1, "ortho": 2}

ENTRY_MAIN = r"""
#include <complex>
#include <cstdio>
#include "fpga_kernel_spectral_ops.hpp"
int main(int argc, char** argv) {
    xrt::device device(0);
    const xrt::uuid uuid = device.load_xclbin(argv[argc - 1]);
    fpgakern::spectral_ops::fpga_kernel fk(device, uuid);
    using fpgakern::spectral_ops::op;
    float x[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    std::complex<float> bins[5];
    fpgakern::Status s = fk.transform(op::rfft, x, bins, 1, 8, fpgakern::Norm::ortho);
    std::printf("rfft %d %g %g\n", static_cast<int>(s), bins[0].real(), bins[4].real());
    s = fk(op::rfft, {x}, bins, 8);  // a transform through the flat call: bad arguments
    std::printf("flat %d\n", static_cast<int>(s));
    s = fk.transform(op::rfft, x, bins, 1, 12);  // not a power of two
    std::printf("n12 %d\n", static_cast<int>(s));
    return 0;
}
"""


def _plans():
    return [variant(f"spectral_ops/{t}", r, DTYPE[t]) for t, r in VARIANTS]


def test_wrappers_and_category_entry_compile(tmp_path):
    plans = _plans()
    for p in plans:
        sources = host.generate(p, tmp_path)
        text = sources.header.read_text()
        assert "upload_rows" in text and "scale(n, norm)" in text
        assert emu.compile_host(sources.main, tmp_path / p.top).is_file()
    category = LIBRARY.categories["spectral_ops"]
    host.generate_category("spectral_ops", category.doc, list(category.kernels), plans,
                           tmp_path)
    (tmp_path / "entry.cpp").write_text(ENTRY_MAIN)
    assert emu.compile_host(tmp_path / "entry.cpp", tmp_path / "entry").is_file()


@pytest.fixture(scope="module")
def linked(tmp_path_factory):
    folder = tmp_path_factory.mktemp("spectral_host")
    path = link_xclbin(folder, [f"spectral_ops/{t}@opt{r}:{DTYPE[t]}" for t, r in VARIANTS])
    emu.prepare(path, ("sw_emu",))
    programs = {}
    for p in _plans():
        programs[p.kernel.transform] = (p, emu.compile_host(host.generate(p, folder).main,
                                                            folder / p.top))
    category = LIBRARY.categories["spectral_ops"]
    host.generate_category("spectral_ops", category.doc, list(category.kernels), _plans(),
                           folder)
    (folder / "entry.cpp").write_text(ENTRY_MAIN)
    entry = emu.compile_host(folder / "entry.cpp", folder / "entry")
    return folder, path, programs, entry


# hw_emu (four more models to verilate) under -m slow.
@pytest.mark.parametrize("target", ["sw_emu", pytest.param("hw_emu", marks=pytest.mark.slow)])
@pytest.mark.parametrize("transform", [t for t, _ in VARIANTS])
def test_host_program_is_the_reference(linked, target, transform):
    folder, path, programs, _ = linked
    if target == "hw_emu":
        emu.prepare(path)  # the hw_emu models too
    p, program = programs[transform]
    rng = np.random.default_rng(5)
    argv, cases = [], []
    for i, (rows, n, norm) in enumerate([(3, 16, None), (5, 8, "ortho"), (2, 64, "forward"),
                                         (0, 8, None)]):
        x = spectral.normal_rows(transform, rows, n, rng)
        stem = folder / f"{target}_{transform}_{i}"
        with stem.with_suffix(".bin").open("wb") as f:
            np.array([rows, n, NORMS[norm]], dtype=np.int32).tofile(f)
            x.tofile(f)
        argv += [str(stem.with_suffix(".bin")), str(stem.with_suffix(".out"))]
        cases.append((x, n, norm, stem))
    done = subprocess.run([str(program), "-x", str(for_target(path, target)), *argv],
                          capture_output=True,
                          text=True, env=emulation_env(target), timeout=600)
    assert done.returncode == 0, done.stderr
    for x, n, norm, stem in cases:
        want = fft.transform(transform, x, n, fft.norm_scale(transform, n, norm))
        got = np.fromfile(stem.with_suffix(".out"), dtype=want.dtype).reshape(want.shape)
        assert np.array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8)), \
            (x.shape, n, norm)


def test_category_entry_runs(linked):
    folder, path, _, entry = linked
    done = subprocess.run([str(entry), str(for_target(path, "sw_emu"))], capture_output=True,
                          text=True,
                          env=emulation_env("sw_emu"), timeout=120)
    assert done.returncode == 0, done.stderr
    scale = 1 / np.sqrt(8)
    assert done.stdout.splitlines() == [f"rfft 0 {scale:g} {scale:g}", "flat 2", "n12 2"]
