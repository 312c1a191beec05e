"""The generated C++ host wrappers of the contraction kernels
(hls_templates/contraction/host*.j2): built with -Wall -Wextra -Werror against fpgakern's
XRT emulation library, the command-line hosts run on the C-simulation testbench's case
files (square, tall, wide, K = 1, K = 0, odd 197 x 200 x 301, batched, special values) on
sw_emu and hw_emu through a linked .xclbin, bit for bit with fpgakern.verify.matmul. At the
multi-CU rung each CU takes a slab of the output's rows, with buffers of its own in its
own memory banks."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from runtime_support import LIBRARY, emulation_env, for_target, link_xclbin, variant

from fpgakern.backends import host
from fpgakern.runtime import emu
from fpgakern.verify import matrix_cases, matrix_csim

# mm at rung 4 (the PE array) and linear at rung 3 (4 CUs: x and out in slabs, weight and
# bias whole in each CU's banks) by default; under -m slow also bmm at rung 3 (slabs
# inside every batch) and addmm int32 at rung 2 (scalars beta and alpha).
VARIANTS = [("matrix_ops/mm", 4, "float32"), ("matrix_ops/linear", 3, "float32")]
SLOW_VARIANTS = [("matrix_ops/bmm", 3, "float32"), ("matrix_ops/addmm", 2, "int32")]

ENTRY_MAIN = r"""
#include <cstdio>
#include "fpga_kernel_matrix_ops.hpp"
int main(int argc, char** argv) {
    xrt::device device(0);
    const xrt::uuid uuid = device.load_xclbin(argv[argc - 1]);
    fpgakern::matrix_ops::fpga_kernel fk(device, uuid);
    using fpgakern::matrix_ops::op;
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, out[4] = {};
    fpgakern::Status s = fk.contract(op::mm, {a, b}, out, 1, 2, 2, 3);  // (2 x 3) @ (3 x 2)
    std::printf("mm %d %g %g %g %g\n", static_cast<int>(s), out[0], out[1], out[2], out[3]);
    s = fk(op::mm, {a, b}, out, 4);  // a contraction through the flat call: bad arguments
    std::printf("flat %d\n", static_cast<int>(s));
    s = fk.contract(op::linear_relu, {a, b, a}, out, 1, 2, 2, 3);  // not built: missing
    std::printf("missing %d\n", static_cast<int>(s));
    s = fk.contract(op::mm, {a}, out, 1, 2, 2, 3);  // one operand short
    std::printf("arity %d\n", static_cast<int>(s));
    return 0;
}
"""


def _link(folder, variants):
    """An xclbin of ``variants`` prepared for sw_emu, and each one's command-line host."""
    path = link_xclbin(folder, [f"{q}@opt{r}:{d}" for q, r, d in variants])
    emu.prepare(path, ("sw_emu",))
    programs = {}
    for q, r, d in variants:
        p = variant(q, r, d)
        programs[p.kernel.name] = (p, emu.compile_host(host.generate(p, folder).main,
                                                       folder / p.top))
    return path, programs


@pytest.fixture(scope="module")
def linked_slow(tmp_path_factory):
    folder = tmp_path_factory.mktemp("matrix_host_slow")
    return (folder, *_link(folder, SLOW_VARIANTS))


@pytest.fixture(scope="module")
def linked(tmp_path_factory):
    folder = tmp_path_factory.mktemp("matrix_host")
    path, programs = _link(folder, VARIANTS)
    category = LIBRARY.categories["matrix_ops"]
    host.generate_category("matrix_ops", category.doc, list(category.kernels),
                           [p for p, _ in programs.values()], folder)
    (folder / "entry.cpp").write_text(ENTRY_MAIN)
    programs["entry"] = (None, emu.compile_host(folder / "entry.cpp", folder / "entry"))
    return folder, path, programs


def _run(program, path, target, argv):
    return subprocess.run([str(program), "-x", str(for_target(path, target)), *argv],
                          capture_output=True, text=True, env=emulation_env(target),
                          timeout=600)


def _name(qualname: str) -> str:
    return qualname.split("/")[1]


# hw_emu (more models to verilate) under -m slow.
@pytest.mark.parametrize("target", ["sw_emu", pytest.param("hw_emu", marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", [
    *(_name(q) for q, _, _ in VARIANTS),
    *(pytest.param(_name(q), marks=pytest.mark.slow) for q, _, _ in SLOW_VARIANTS)])
def test_host_program_is_the_reference(request, target, name):
    slow = name in {_name(q) for q, _, _ in SLOW_VARIANTS}
    folder, path, programs = request.getfixturevalue("linked_slow" if slow else "linked")
    if target == "hw_emu":
        emu.prepare(path)  # the hw_emu models too
    p, program = programs[name]
    cases = list(matrix_cases.cases(p.kernel, p.dtype.name, seed=3))
    argv, expected = [], []
    for i, case in enumerate(cases):
        stem = folder / f"{target}_{name}_{i}"
        expected.append(matrix_csim.write_case(case, p, stem.with_suffix(".bin")))
        argv += [str(stem.with_suffix(".bin")), str(stem.with_suffix(".out"))]
    done = _run(program, path, target, argv)
    assert done.returncode == 0, done.stderr
    if target == "hw_emu":
        assert f"fpgakern hw_emu: {p.top}:" in done.stderr and "cycles" in done.stderr
    for i, case in enumerate(cases):
        got = np.fromfile(folder / f"{target}_{name}_{i}.out", dtype=p.dtype.numpy)
        verdict = matrix_cases.judge(expected[i], got)
        assert verdict.passed, f"{case.label} {case.sizes}: {verdict.summary()}"


def test_every_compute_unit_takes_a_slab(linked):
    """linear at rung 3, 200 rows: four CUs, each its 64 rows (two tiles), its own run."""
    _, path, programs = linked
    _, program = programs["linear"]
    done = _run(program, path, "sw_emu", ["-n", "200"])
    assert done.returncode == 0, done.stderr
    assert "200 x 200 x 200 on 4 CU(s)" in done.stdout


def test_bad_case_files_and_sizes_are_refused(linked):
    folder, path, programs = linked
    p, program = programs["mm"]
    # A's count disagrees with its sizes (2 x 3 wants 6 values).
    bad = folder / "bad_count.bin"
    bad.write_bytes(np.array([1, 2, 4, 3], np.int32).tobytes() + np.int64(5).tobytes()
                    + np.zeros(5, np.float32).tobytes())
    done = _run(program, path, "sw_emu", [str(bad), str(folder / "bad.out")])
    assert done.returncode == 2 and "malformed case file" in done.stderr, done.stderr
    # mm has no batch index (its operands are 2 x 2 whatever the batch): batch 2 is
    # refused with the reason.
    batched = folder / "batched.bin"
    parts = [np.array([2, 2, 2, 2], np.int32).tobytes()]
    for _ in range(2):
        parts += [np.int64(4).tobytes(), np.ones(4, np.float32).tobytes()]
    batched.write_bytes(b"".join(parts))
    done = _run(program, path, "sw_emu", [str(batched), str(folder / "batched.out")])
    assert done.returncode == 2 and "no batch index: batch must be 1, got 2" in done.stderr


def test_category_entry_contracts(linked):
    _, path, programs = linked
    _, entry = programs["entry"]
    done = subprocess.run([str(entry), str(for_target(path, "sw_emu"))], capture_output=True,
                          text=True, env=emulation_env("sw_emu"), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["mm 0 4 5 10 11", "flat 2", "missing 1", "arity 2"]
