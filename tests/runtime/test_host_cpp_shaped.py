"""The generated C++ host wrappers of shaped kernels (hls_templates/default/host_shaped*.j2):
built with -Wall -Wextra -Werror against fpgakern's XRT emulation library, one per kind,
lane count and CU count, and the nn_ops category entry with its with_shape() calls."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import LIBRARY, variant

from fpgakern.backends import host
from fpgakern.runtime import emu

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
