"""The Python runtime and stream kernels: a kernel with AXI4-Stream ports runs only in a
chain linked with stream_connect, from an XRT host program (tests/runtime/
test_host_xrt_examples.py runs one); opening one from Python says so in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from fpgakern import runtime
from fpgakern.errors import UsageError
from fpgakern.link import config, linker, platforms, resolve, xclbin
from fpgakern.spec.library import Library

SPECS = Path(__file__).parents[1] / "data" / "stream_project" / "kernel_specs"
CHAIN = ("[connectivity]\nstream_connect=mm2s_1.out:square_plus_1.x\n"
         "stream_connect=square_plus_1.y:s2mm_1.data\n")


@pytest.fixture(scope="module")
def chain(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("chain")
    inputs = resolve.resolve(["stream_ops/mm2s", "stream_ops/square_plus", "stream_ops/s2mm"],
                             Library(SPECS), folder / "build")
    design = linker.link(inputs, platforms.load("u250"), config.parse(CHAIN, "c.cfg"),
                         "sw_emu")
    path = folder / "chain.xclbin"
    path.write_bytes(xclbin.to_xclbin(design))
    return path


@pytest.mark.parametrize(("name", "ports"), [("stream_ops/mm2s", "out"),
                                             ("square_plus", "x, y"), ("s2mm", "data")])
def test_stream_kernels_refused(chain, name, ports):
    device = runtime.open(chain, "sw_emu", specs=SPECS)
    with pytest.raises(UsageError) as refused:
        device.kernel(name)
    message = str(refused.value)
    assert f"has AXI4-Stream ports ({ports})" in message
    assert "from an XRT host program" in message and "\n" not in message
