"""The generated C++ host wrappers of shaped kernels (hls_templates/default/host_shaped*.j2):
built with -Wall -Wextra -Werror against fpgakern's XRT emulation library, one per kind,
lane count and CU count, and the nn_ops category entry with its with_shape() calls; the
batch_norm host run on hw_emu (4 CUs) on case files, against the numpy oracle bit for bit,
and the layer_norm host (rows over 4 CUs) on sw_emu and hw_emu within the spec's accuracy."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from runtime_support import LIBRARY, emulation_env, for_target, link_xclbin, variant

from fpgakern.backends import host
from fpgakern.ir import shapes
from fpgakern.runtime import emu
from fpgakern.verify import reference

# broadcast with 4 CUs of 1 lane and 16 lanes; the row kinds with 16 lanes and CUs.
VARIANTS = [("nn_ops/batch_norm", 3), ("nn_ops/batch_norm", 5), ("nn_ops/softmax", 5),
            ("nn_ops/layer_norm", 2), ("nn_ops/rms_norm", 4)]


@pytest.mark.parametrize(("qualname", "rung"), VARIANTS, ids=[f"{q}@{r}" for q, r in VARIANTS])
def test_shaped_host_program_compiles(tmp_path, qualname, rung):
    p = variant(qualname, rung, "float32")
    sources = host.generate(p, tmp_path)
    text = sources.header.read_text()
    assert "const std::vector<std::size_t>& shape" in text
    if p.kernel.kind == "broadcast":
        assert "static_cast<int>(first / inner % channels)" in text  # each CU's channel0
    else:
        assert "upload_rows" in text and "pitch" in text
    assert emu.compile_host(sources.main, tmp_path / "prog").is_file()


def test_category_entry_with_shapes_compiles(tmp_path):
    kernels = [k for k in LIBRARY.kernels if k.category == "nn_ops"]
    plans = [variant(k.qualname, 4, "float32") for k in kernels if k.name != "rms_norm"]
    for p in plans:
        host.generate(p, tmp_path)
    host.generate_category("nn_ops", "nn", kernels, plans, tmp_path)
    main = tmp_path / "main.cpp"
    main.write_text(MAIN)
    assert emu.compile_host(main, tmp_path / "main").is_file()


MAIN = """#include "fpga_kernel_nn_ops.hpp"
int main(int argc, char** argv) {
    if (argc < 2) return 2;
    xrt::device device(0);
    const xrt::uuid uuid = device.load_xclbin(std::string(argv[1]));
    fpgakern::nn_ops::fpga_kernel fk(device, uuid);
    float x[6] = {1, 2, 3, 4, 5, 6}, out[6], w[3] = {1, 1, 1}, b[3] = {0, 0, 0};
    using fpgakern::nn_ops::op;
    fpgakern::Status s = fk.with_shape(op::layer_norm, {x, w, b}, out, {2, 3}, {1e-5f});
    s = fk.with_shape(op::rms_norm, {x, w}, out, {2, 3});  // not built: missing_kernel
    s = fk.with_shape(op::silu, {x}, out, {2, 3});  // a flat kernel: n = 6
    s = fk(op::silu, {x}, out, 6);
    return static_cast<int>(s);
}
"""


def test_main_documents_the_case_format(tmp_path):
    p = variant("nn_ops/batch_norm", 4, "float32")
    main = Path(host.generate(p, tmp_path).main).read_text()
    assert "int32 ndim, int32 extents of x ((N, C, *))" in main


def write_shaped_case(path: Path, kernel, main_shape: tuple[int, ...],
                      tensors: dict[str, np.ndarray], scalars: dict[str, float]) -> None:
    """A case file of the shaped command-line host: int32 ndim, the extents, the scalars,
    then each input in its own shape (host_shaped_main.cpp.j2)."""
    with path.open("wb") as f:
        np.array([len(main_shape), *main_shape], dtype=np.int32).tofile(f)
        np.array([scalars[s.name] for s in kernel.scalars], dtype=np.float32).tofile(f)
        for name in kernel.inputs:
            np.ascontiguousarray(tensors[name], dtype=np.float32).tofile(f)


# batch_norm with 4 CUs (channel runs split), layer_norm with 4 CUs (rows split).
LINKED = [("nn_ops/batch_norm", 3), ("nn_ops/layer_norm", 3)]


@pytest.fixture(scope="module")
def shaped_hosts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shaped_host")
    path = link_xclbin(folder, [f"{q}@opt{r}:float32" for q, r in LINKED])
    emu.prepare(path)
    programs = {}
    for q, r in LINKED:
        p = variant(q, r, "float32")
        programs[q] = (p, emu.compile_host(host.generate(p, folder).main, folder / p.top))
    return folder, path, programs


@pytest.fixture(scope="module")
def batch_norm_host(shaped_hosts):
    folder, path, programs = shaped_hosts
    return (folder, path, *programs["nn_ops/batch_norm"])


def _run(program: Path, xclbin_path: Path, *files: str,
         target: str = "hw_emu") -> subprocess.CompletedProcess:
    return subprocess.run([str(program), "-x", str(for_target(xclbin_path, target)), *files],
                          capture_output=True,
                          text=True, env=emulation_env(target), timeout=300)


@pytest.mark.parametrize("target", ["sw_emu", "hw_emu"])
def test_layer_norm_host_within_accuracy(shaped_hosts, target):
    """Rows padded to the pitch and stripped, rows split over 4 CUs, by the C++ host."""
    from fpgakern.verify import compare

    folder, path, programs = shaped_hosts
    p, program = programs["nn_ops/layer_norm"]
    rng = np.random.default_rng(11)
    cases, argv = [], []
    for i, shape in enumerate([(3, 7), (9, 33), (2, 3, 17), (0, 5), (4, 0), (1, 1)]):
        tensors = {name: rng.standard_normal(shapes.operand_shape(name, p.kernel.layout, shape))
                   .astype(np.float32) for name in p.kernel.inputs}
        scalars = {"eps": 1e-5}
        stem = folder / f"{target}_ln{i}"
        write_shaped_case(stem.with_suffix(".bin"), p.kernel, shape, tensors, scalars)
        argv += [str(stem.with_suffix(".bin")), str(stem.with_suffix(".out"))]
        cases.append((shape, tensors, scalars, stem))
    done = _run(program, path, *argv, target=target)
    assert done.returncode == 0, done.stderr
    for shape, tensors, scalars, stem in cases:
        got = np.fromfile(stem.with_suffix(".out"), dtype=np.float32).reshape(shape)
        want = reference.shaped_expected(p.kernel, "float32", tensors, scalars)
        verdict = compare.compare_rows(want, got, p.kernel.accuracy("float32"))
        assert verdict.passed, f"{shape}: {verdict.summary()}"


def test_batch_norm_host_matches_the_oracle_on_hw_emu(batch_norm_host):
    folder, path, p, program = batch_norm_host
    rng = np.random.default_rng(7)
    cases = []
    argv = []
    # (13, 5, 7): 65 channel runs over 4 CUs, shares of 17 runs, the last of 14.
    for i, shape in enumerate([(8, 4), (2, 3, 5), (13, 5, 7), (2, 3, 4, 5), (0, 3), (1, 1)]):
        lay = p.kernel.layout
        tensors = {name: rng.standard_normal(shapes.operand_shape(name, lay, shape))
                   .astype(np.float32) for name in p.kernel.inputs}
        tensors["running_var"] = np.abs(tensors["running_var"])
        scalars = {"eps": 1e-3}
        write_shaped_case(folder / f"c{i}.bin", p.kernel, shape, tensors, scalars)
        argv += [str(folder / f"c{i}.bin"), str(folder / f"c{i}.out")]
        cases.append((shape, tensors, scalars))
    done = _run(program, path, *argv)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("fpgakern hw_emu: batch_norm_f32:") == 4, done.stderr
    for i, (shape, tensors, scalars) in enumerate(cases):
        got = np.fromfile(folder / f"c{i}.out", dtype=np.float32)
        want = reference.shaped_expected(p.kernel, "float32", tensors, scalars)
        assert got.size == want.size, shape
        np.testing.assert_array_equal(got.view(np.uint32), want.reshape(-1).view(np.uint32))


def test_too_many_channels_is_bad_arguments(batch_norm_host):
    folder, path, p, program = batch_norm_host
    shape = (1, 4097)
    tensors = {name: np.ones(shapes.operand_shape(name, p.kernel.layout, shape), np.float32)
               for name in p.kernel.inputs}
    write_shaped_case(folder / "big.bin", p.kernel, shape, tensors, {"eps": 1e-5})
    done = _run(program, path, str(folder / "big.bin"), str(folder / "big.out"))
    assert done.returncode == 2
    assert "4097 channels; the kernel keeps at most 4096 on chip" in done.stderr
