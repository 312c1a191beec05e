"""The generated C++ host (XRT native API) for add, exp, sum and mean: built with
-Wall -Wextra -Werror against fpgakern's XRT emulation library, run on sw_emu and hw_emu
on the testbench's case files, and judged against numpy. Also: a kernel missing from the
xclbin, and the per-category fpga_kernel entry."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from runtime_support import LIBRARY, emulation_env, for_target, link_xclbin, variant

from fpgakern.backends import host
from fpgakern.runtime import emu
from fpgakern.verify import compare, csim, reference, stimulus

# exp at rung 2: one lane of its RTL is the hw_emu model (the rung-4 lanes are add's and
# sum's here); sixteen exp lanes verilate for long.
VARIANTS = [("binary_ops/add", 3, "float32"), ("unary_ops/exp", 2, "float32"),
            ("reduce_ops/sum", 4, "float32"), ("reduce_ops/mean", 3, "float32")]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Host programs for the variants and one xclbin holding all their kernels."""
    folder = tmp_path_factory.mktemp("host")
    programs = {}
    for qualname, rung, dtype in VARIANTS:
        p = variant(qualname, rung, dtype)
        sources = host.generate(p, folder)
        programs[p.top] = (p, emu.compile_host(sources.main, folder / f"{p.top}_host"))
    path = link_xclbin(folder, [f"{q}@opt{r}:{d}" for q, r, d in VARIANTS])
    emu.prepare(path)
    return folder, path, programs


def _run_cases(p, program, xclbin_path, stem, target):
    """The host program on the standard cases, written as ``<stem>_<i>.bin``; the cases
    and the finished process (its outputs are ``<stem>_<i>.out``)."""
    cases = stimulus.cases(p.kernel, p.dtype, size=500, lanes=16)
    argv = [str(program), "-x", str(for_target(xclbin_path, target))]
    for i, case in enumerate(cases):
        csim.write_case(case, p, Path(f"{stem}_{i}.bin"))
        argv += [f"{stem}_{i}.bin", f"{stem}_{i}.out"]
    done = subprocess.run(argv, capture_output=True, text=True, env=emulation_env(target),
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return cases, done


@pytest.mark.parametrize("target", ["sw_emu", "hw_emu"])
# mean at rung 3: each CU returns its sum, the host adds them and divides by float(n) once.
@pytest.mark.parametrize("top", ["add_f32", "exp_f32", "sum_f32", "mean_f32"])
def test_generated_host_matches_numpy(built, target, top):
    folder, path, programs = built
    p, program = programs[top]
    cases, done = _run_cases(p, program, path, folder / f"{top}_{target}", target)
    if target == "hw_emu":
        # The emulation library reports each CU's runs and cycles when the device closes.
        cus = p.placement.compute_units
        assert done.stderr.count(f"fpgakern hw_emu: {top}:") == cus, done.stderr
        assert "cycles" in done.stderr
    accuracy = compare.accuracy_of(p.kernel, "float32")
    for i, case in enumerate(cases):
        actual = np.fromfile(folder / f"{top}_{target}_{i}.out", dtype=np.float32)
        expected = reference.expected_output(p.kernel, "float32", case)
        reduced = (reference.reduction_operand(p.kernel, "float32", case)
                   if p.kernel.is_reduction else None)
        verdict = compare.compare(expected, actual, accuracy, reduced)
        assert verdict.passed, f"{case.label}: {verdict.summary()}"


def test_pattern_mode_uses_all_cus(built):
    _, path, programs = built
    _, program = programs["add_f32"]
    done = subprocess.run([str(program), "-x", str(path), "-n", "100000"], capture_output=True,
                          text=True, env=emulation_env("hw_emu"), timeout=120)
    assert done.returncode == 0, done.stderr
    assert "100000 elements on 4 CU(s)" in done.stdout


def test_missing_kernel_is_a_status_not_a_crash(built, tmp_path):
    _, _, programs = built
    _, program = programs["add_f32"]
    only_exp = link_xclbin(tmp_path, ["unary_ops/exp@opt2:float32"])
    emu.prepare(only_exp, ("sw_emu",))
    done = subprocess.run([str(program), "-x", str(for_target(only_exp, "sw_emu")), "-n", "10"],
                          capture_output=True, text=True, env=emulation_env("sw_emu"),
                          timeout=60)
    assert done.returncode == 3
    assert "kernel not in the xclbin" in done.stderr and "No such kernel 'add_f32'" in done.stderr


def test_emulation_needs_mode_and_config(built, tmp_path):
    _, path, programs = built
    _, program = programs["exp_f32"]
    env = dict(os.environ)
    env.pop("XCL_EMULATION_MODE", None)
    done = subprocess.run([str(program), "-x", str(path), "-n", "4"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 1 and "XCL_EMULATION_MODE" in done.stderr
    lonely = tmp_path / "lonely.xclbin"
    lonely.write_bytes(for_target(path, "sw_emu").read_bytes())
    done = subprocess.run([str(program), "-x", str(lonely), "-n", "4"], capture_output=True,
                          text=True, env=emulation_env("sw_emu"), cwd=tmp_path, timeout=60)
    assert done.returncode == 1 and "prepare" in done.stderr


ENTRY_MAIN = r"""
#include <cstdio>
#include "fpga_kernel_binary_ops.hpp"
int main(int argc, char** argv) {
    xrt::device device(0);
    const xrt::uuid uuid = device.load_xclbin(argv[argc - 1]);
    fpgakern::binary_ops::fpga_kernel fk(device, uuid);
    using fpgakern::binary_ops::op;
    float a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 20, 30, 40, 50}, out[5] = {};
    fpgakern::Status s = fk(op::add, {a, b}, out, 5, {2.0f});
    std::printf("add %d %g %g\n", static_cast<int>(s), out[0], out[4]);
    s = fk(op::mul, {a, b}, out, 5);  // built for no dtype: answers missing_kernel
    std::printf("mul %d\n", static_cast<int>(s));
    int32_t x[2] = {1, 2}, y[2] = {3, 4}, z[2] = {};
    s = fk(op::add, {x, y}, z, 2);  // add_i32 not generated: missing_kernel
    std::printf("add_i32 %d\n", static_cast<int>(s));
    s = fk(op::add, {a}, out, 5);
    std::printf("arity %d avail %d %d\n", static_cast<int>(s), fk.available<float>(op::add),
                fk.available<float>(op::sub));
    return 0;
}
"""


def test_emulation_library_key_covers_every_source(tmp_path, monkeypatch):
    """The emulation library is several files (sources, their own headers, the public
    headers): a change to any of them rebuilds it, none is served stale."""
    copy = tmp_path / "emu"
    shutil.copytree(emu.EMU_DIR, copy, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    monkeypatch.setattr(emu, "EMU_DIR", copy)
    monkeypatch.setattr(emu, "SOURCE_DIR", copy / "src")
    monkeypatch.setattr(emu, "INCLUDE_DIR", copy / "include")
    before = emu.library_key()
    files = sorted(p for folder in ("src", "include") for p in (copy / folder).rglob("*")
                   if p.is_file())
    assert {p.suffix for p in files if p.parent.name == "src"} == {".cpp", ".h"}
    for path in files:
        text = path.read_text()
        path.write_text(text + "\n")
        assert emu.library_key() != before, f"{path.relative_to(copy)} is not in the key"
        path.write_text(text)
    assert emu.library_key() == before


def test_category_entry(built):
    folder, path, _ = built
    category = LIBRARY.categories["binary_ops"]
    host.generate_category("binary_ops", category.doc, list(category.kernels),
                           [variant("binary_ops/add", 3, "float32")], folder)
    main = folder / "entry_main.cpp"
    main.write_text(ENTRY_MAIN)
    program = emu.compile_host(main, folder / "entry")
    done = subprocess.run([str(program), str(for_target(path, "sw_emu"))], capture_output=True,
                          text=True, env=emulation_env("sw_emu"), timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["add 0 21 105", "mul 1", "add_i32 1", "arity 2 avail 1 0"]


@pytest.mark.slow
@pytest.mark.parametrize("target", ["sw_emu", "hw_emu"])
def test_generated_host_argmax_four_cus(tmp_path, target):
    """argmax at rung 3: each of the 4 CUs returns an int64 index into its share; the C++
    host picks among the elements they name (ties to the lower CU) and writes the index."""
    p = variant("reduce_ops/argmax", 3, "float32")
    sources = host.generate(p, tmp_path)
    program = emu.compile_host(sources.main, tmp_path / f"{p.top}_host")
    path = link_xclbin(tmp_path, ["reduce_ops/argmax@opt3:float32"], target)
    emu.prepare(path)
    cases, _ = _run_cases(p, program, path, tmp_path / "case", target)
    for i, case in enumerate(cases):
        actual = np.fromfile(tmp_path / f"case_{i}.out", dtype=np.int64)
        expected = reference.expected_output(p.kernel, "float32", case)
        assert list(actual) == list(expected), case.label


# complex64 (issue 16): the wrapper takes std::complex<float> (numpy's layout) and a real
# float scalar; rung 3 splits the words over 4 CUs (sw_emu here; hw_emu runs its RTL in
# tests/runtime/test_kernels.py).
COMPLEX_VARIANTS = [("binary_ops/add", 3, "complex64")]

COMPLEX_ENTRY_MAIN = r"""
#include <complex>
#include <cstdio>
#include "fpga_kernel_binary_ops.hpp"
int main(int argc, char** argv) {
    xrt::device device(0);
    const xrt::uuid uuid = device.load_xclbin(argv[argc - 1]);
    fpgakern::binary_ops::fpga_kernel fk(device, uuid);
    using fpgakern::binary_ops::op;
    std::complex<float> a[2] = {{1, 2}, {3, 4}}, b[2] = {{10, 20}, {30, 40}}, out[2] = {};
    fpgakern::Status s = fk(op::add, {a, b}, out, 2, {0.5f});  // a real alpha
    std::printf("add %d %g %g %g %g\n", static_cast<int>(s), out[0].real(), out[0].imag(),
                out[1].real(), out[1].imag());
    return 0;
}
"""


def test_generated_host_complex64(tmp_path):
    programs = {}
    for qualname, rung, dtype in COMPLEX_VARIANTS:
        p = variant(qualname, rung, dtype)
        sources = host.generate(p, tmp_path)
        programs[p.top] = (p, emu.compile_host(sources.main, tmp_path / f"{p.top}_host"))
    path = link_xclbin(tmp_path, [f"{q}@opt{r}:{d}" for q, r, d in COMPLEX_VARIANTS], "sw_emu")
    emu.prepare(path, ("sw_emu",))
    for top, (p, program) in programs.items():
        cases, _ = _run_cases(p, program, path, tmp_path / top, "sw_emu")
        for i, case in enumerate(cases):
            actual = np.fromfile(tmp_path / f"{top}_{i}.out", dtype=np.complex64)
            expected = reference.expected_output(p.kernel, "complex64", case)
            verdict = compare.compare(expected, actual, compare.accuracy_of(p.kernel,
                                                                            "complex64"))
            assert verdict.passed, f"{top} {case.label}: {verdict.summary()}"
    category = LIBRARY.categories["binary_ops"]
    host.generate_category("binary_ops", category.doc, list(category.kernels),
                           [variant("binary_ops/add", 3, "complex64")], tmp_path)
    main = tmp_path / "entry_main.cpp"
    main.write_text(COMPLEX_ENTRY_MAIN)
    program = emu.compile_host(main, tmp_path / "entry")
    done = subprocess.run([str(program), str(path)], capture_output=True, text=True,
                          env=emulation_env("sw_emu"), timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["add 0 6 12 18 24"]


# complex64 in, float32 out (abs, angle, real, imag): the wrapper takes
# std::complex<float>* in and float* out, its buffers each in their own words (rung 4:
# 512-bit in, 256-bit out; rung 1: both on one 64-bit bundle); the category entry deduces
# the output's type (R) apart from the inputs' (T).
REAL_OUT_VARIANTS = [("unary_ops/abs", 4, "complex64"), ("unary_ops/angle", 1, "complex64"),
                     ("unary_ops/real", 3, "complex64"), ("unary_ops/imag", 0, "complex64")]

REAL_OUT_ENTRY_MAIN = r"""
#include <complex>
#include <cstdio>
#include "fpga_kernel_unary_ops.hpp"
int main(int argc, char** argv) {
    xrt::device device(0);
    const xrt::uuid uuid = device.load_xclbin(argv[argc - 1]);
    fpgakern::unary_ops::fpga_kernel fk(device, uuid);
    using fpgakern::unary_ops::op;
    std::complex<float> x[3] = {{3, 4}, {-1, 0}, {0, -2}};
    float out[3] = {};
    fpgakern::Status s = fk(op::abs, {x}, out, 3);
    std::printf("abs %d %g %g %g\n", static_cast<int>(s), out[0], out[1], out[2]);
    s = fk(op::imag, {x}, out, 3);
    std::printf("imag %d %g %g %g\n", static_cast<int>(s), out[0], out[1], out[2]);
    std::printf("available %d %d\n", fk.available<std::complex<float>>(op::abs),
                fk.available<float>(op::abs));
    return 0;
}
"""


def test_generated_host_complex64_to_float32(tmp_path):
    programs = {}
    for qualname, rung, dtype in REAL_OUT_VARIANTS:
        p = variant(qualname, rung, dtype)
        sources = host.generate(p, tmp_path)
        assert "std::complex<float>* x, float* out" in sources.header.read_text()
        programs[p.top] = (p, emu.compile_host(sources.main, tmp_path / f"{p.top}_host"))
    path = link_xclbin(tmp_path, [f"{q}@opt{r}:{d}" for q, r, d in REAL_OUT_VARIANTS], "sw_emu")
    emu.prepare(path, ("sw_emu",))
    for top, (p, program) in programs.items():
        cases, _ = _run_cases(p, program, path, tmp_path / top, "sw_emu")
        for i, case in enumerate(cases):
            actual = np.fromfile(tmp_path / f"{top}_{i}.out", dtype=np.float32)
            expected = reference.expected_output(p.kernel, "complex64", case)
            assert expected.dtype == np.float32
            verdict = compare.compare(expected, actual, compare.accuracy_of(p.kernel,
                                                                            "complex64"))
            assert verdict.passed, f"{top} {case.label}: {verdict.summary()}"
    category = LIBRARY.categories["unary_ops"]
    host.generate_category("unary_ops", category.doc, list(category.kernels),
                           [variant(q, r, d) for q, r, d in REAL_OUT_VARIANTS], tmp_path)
    main = tmp_path / "entry_main.cpp"
    main.write_text(REAL_OUT_ENTRY_MAIN)
    program = emu.compile_host(main, tmp_path / "entry")
    done = subprocess.run([str(program), str(path)], capture_output=True, text=True,
                          env=emulation_env("sw_emu"), timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["abs 0 5 1 2", "imag 0 4 0 -2", "available 1 0"]
