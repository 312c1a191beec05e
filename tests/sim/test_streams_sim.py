"""Stream kernels in the cocotb/Verilator simulation: AxiStreamSource and AxiStreamSink on
their AXI4-Stream ports (sim/fk_stream_host.py), the standard stimulus, reference and
judge, TLAST checked on the last beat, gaps and backpressure on the streams in every case
but the timed one. The chain of tests/data/stream_project: mm2s, square_plus
(free-running) and s2mm."""

from __future__ import annotations

import pytest
from stream_kernels import MIXED_SPECS, STREAM_SPECS, mixed_library

from fpgakern.backends.rtl.generate import generate
from fpgakern.ladder import plan
from fpgakern.spec.library import Library
from fpgakern.verify.rtlsim import simulate
from fpgakern.verify.rtlsim.wrapper import kernel_ports, render

LIBRARY = Library(STREAM_SPECS)
SIZE = 300


@pytest.mark.parametrize("name", ["mm2s", "square_plus", "s2mm"])
def test_stream_kernel_simulates(name, sim_run_dir):
    """Every case passes, gaps and backpressure included; the timed case (streams at
    full rate) runs close to rung 2's ideal of one element per cycle."""
    result = simulate(plan(LIBRARY.get(f"stream_ops/{name}"), 2, "float32"), size=SIZE,
                      stream_pause=0.4, run_dir=sim_run_dir)
    assert result.passed, result.message
    assert len(result.cases) > 1 and all(c["passed"] for c in result.cases)
    assert result.ideal_elements_per_cycle == 1.0
    assert result.elements_per_cycle is not None
    # Memory's 64-cycle latency and the pipeline's once per run: about 300 / (300 + 75).
    assert result.elements_per_cycle > 0.75, result.cycles


def test_stream_pauses_reach_the_ports(sim_run_dir):
    """Gaps and backpressure do happen: the untimed cases of square_plus take longer with
    them than at full rate, the timed one (random) as long."""
    kernel = LIBRARY.get("stream_ops/square_plus")
    runs = [simulate(plan(kernel, 2, "float32"), size=SIZE, stream_pause=pause,
                     run_dir=sim_run_dir) for pause in (0.0, 0.5)]
    cycles = [{c["label"]: c["cycles"] for c in r.cases} for r in runs]
    assert cycles[0]["random"] == cycles[1]["random"]
    # Untimed cases long enough to meet many pauses (size_1's one beat may meet none).
    untimed = [c["label"] for c in runs[0].cases if c["label"] != "random" and c["size"] > 16]
    assert untimed and all(cycles[1][x] > 1.5 * cycles[0][x] for x in untimed), cycles


@pytest.mark.parametrize("name", MIXED_SPECS)
def test_mixed_stream_kernel_simulates(name, tmp_path, sim_run_dir):
    """Streams and memory ports mixed, with a scalar, and two free-running inputs."""
    kernel = mixed_library(tmp_path).get(f"mix/{name}")
    result = simulate(plan(kernel, 2, "float32"), size=200, run_dir=sim_run_dir)
    assert result.passed, result.message


def test_free_running_wrapper_has_no_control(tmp_path):
    p = plan(LIBRARY.get("stream_ops/square_plus"), 2, "float32")
    rtl = generate(p, tmp_path)
    top = next(f for f in rtl.files if f.name == f"{rtl.top}.sv")
    assert not [x for x in kernel_ports(top, rtl.top) if x.name.startswith("s_axi")]
    text = render(rtl.top, top, {}, 1, "fast")
    assert "cu0_interrupt" not in text and "cu0_s_axi_control" not in text
    assert "cu0_x_tdata," in text and "cu0_y_tready," in text
    assert ".y_TLAST(cu0_y_tlast)" in text


def test_misplaced_tlast_fails(mutate_rtl, sim_run_dir):
    """mm2s raising TLAST one beat early is caught: the sink's frame is one beat short."""
    mutate_rtl("mm2s.sv", r"out_TLAST = sent == run_beats - 1'b1;",
               "out_TLAST = sent == run_beats - 2'd2;")
    result = simulate(plan(LIBRARY.get("stream_ops/mm2s"), 2, "float32"), size=64,
                      labels=["random"], run_dir=sim_run_dir)
    assert result.passed is False
    assert "TLAST on beat 62, expected on beat 63" in result.message


def test_free_running_tlast_passes_through(mutate_rtl, sim_run_dir):
    """square_plus dropping its input's TLAST is caught: no frame ever ends."""
    mutate_rtl("square_plus.sv", r"assign y_TLAST  = out_data\[DATA_W\];",
               "assign y_TLAST  = 1'b0;")
    result = simulate(plan(LIBRARY.get("stream_ops/square_plus"), 2, "float32"), size=16,
                      labels=["random"], run_dir=sim_run_dir)
    assert result.passed is False
    assert "no TLAST" in result.message
