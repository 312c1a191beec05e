"""The RTL of broadcast kernels (docs/rtl.md, "Broadcast kernels"): the channel pipeline
scheduled from the channel values, the tables and the lane-parallel lookups. Their
simulation against the oracle, bit for bit, runs in tests/sim/test_library_sim.py
(every rung) and tests/sim/test_broadcast_sim.py."""

from __future__ import annotations

import re

import pytest

from fpgakern.backends.rtl.generate import broadcast_of, datapath_of, render
from fpgakern.backends.rtl.schedule import schedule_outputs
from fpgakern.ir import expr
from fpgakern.ladder import plan


def test_channel_pipeline_shares_and_balances(library):
    """batch_norm's scale and shift share 1 / sqrt(var + eps) * weight: one sqrt, one div,
    one mul; both results leave at the pipeline's latency."""
    p = plan(library.get("nn_ops/batch_norm"), 2, "float32")
    bcast = broadcast_of(p)
    assert bcast is not None
    assert bcast.channel_inputs == ("running_mean", "running_var", "weight", "bias")
    assert bcast.tables == ("scale", "shift")
    ops = [i.op for i in bcast.pipeline.instances]
    assert ops.count("sqrt") == ops.count("div") == ops.count("mul") == 1
    ready = {i.name: i.ready for i in bcast.pipeline.instances}
    latency = bcast.pipeline.latency
    for _, signal in bcast.pipeline.outputs:
        base = signal.split("_d")[0]
        depth = int(signal.rsplit("_d", 1)[1]) if "_d" in signal else 0
        assert ready[base] + depth == latency
    # The element stage reads x and the two tables, and computes one fma.
    dp = datapath_of(p)
    assert dp.inputs == ("x", "scale", "shift")
    assert [i.op for i in dp.instances] == ["fma"]


def test_bare_channel_input_is_a_delayed_table(library):
    """bias_add has no channel value: its table is bias itself, passed through."""
    bcast = broadcast_of(plan(library.get("nn_ops/bias_add"), 4, "float32"))
    assert bcast is not None and bcast.tables == ("bias",)
    assert bcast.pipeline.outputs == [("bias", "in_bias")] and bcast.pipeline.latency == 0


def test_schedule_outputs_delays_early_results():
    graph = {"a": expr.parse("x * y", {"x": "float32", "y": "float32"}, {}),
             "b": expr.Input("float32", "x")}
    dp = schedule_outputs(graph, ("x", "y"), ())
    mul = dp.instances[0]
    assert dp.latency == mul.ready
    assert dp.outputs == [("a", mul.name), ("b", f"in_x_d{mul.ready}")]


@pytest.mark.parametrize("rung", [2, 4])
def test_tables_per_lane_and_one_read_per_channel(library, rung):
    p = plan(library.get("nn_ops/batch_norm"), rung, "float32")
    top = render(p)[f"{p.top}.sv"]
    lanes = p.arch.lanes
    # The per-channel inputs share gmem1: one engine reads each `channels` elements once
    # (tbl_beats), in turn; x has its own engine on gmem0 for its n elements.
    assert re.search(r"u_read_tables \(.*?\.beats\(tbl_beats\)", top, re.S)
    assert re.search(r"u_read_x \(.*?\.beats\(in_beats\)", top, re.S)
    assert top.count("fk_axi_read #(") == 2 and top.count("fk_axi_write #(") == 1
    assert re.findall(r"^\s*output logic\s*(?:\[[^]]*\])?\s*m_axi_(\w+?)_arvalid", top, re.M) \
        == ["gmem0", "gmem1", "gmem2"]
    for seg, c in enumerate(("running_mean", "running_var", "weight")):
        assert f"{seg}: rd_tbl_base = ptr_{c};" in top
        assert f"u_buf_{c} (" in top and f"rd_tbl_seg == 8'd{seg}), .waddr(tbl_fill)" in top
    assert "default: rd_tbl_base = ptr_bias;" in top
    assert "u_fifo_bias (" in top and ".in_valid(rd_tbl_valid && rd_tbl_seg == 8'd3)" in top
    assert "fk_ram #(.WIDTH(DATA_W), .DEPTH(TBL_WORDS))" in top
    assert f"localparam int TBL_WORDS = {4096 // lanes};" in top
    # One table per value, replicated per lane in g_table; the walk has the lanes.
    assert f"for (genvar lane = 0; lane < {lanes}; lane++) begin : g_table" in top
    assert top.count("fk_ram #(.WIDTH(32), .DEPTH(MAX_CHANNELS))") == 2
    assert f"fk_channel_walk #(.LANES({lanes})" in top
    assert "localparam int MAX_CHANNELS = 4096;" in top
    assert "assign issue = x_valid && tables_ready && sink_credit != '0;" in top


def test_one_table_streams_without_buffers(library):
    """bias_add's one per-channel input has its bundle to itself and no buffer: its beats
    go from the FIFO straight into the channel pipeline."""
    p = plan(library.get("nn_ops/bias_add"), 4, "float32")
    top = render(p)[f"{p.top}.sv"]
    assert "u_read_tables (" in top and "u_fifo_bias (" in top
    assert "rd_tbl_seg" not in top and "TBL_WORDS" not in top
    assert "assign tbl_valid = tbl_issue;" in top


@pytest.mark.parametrize("rung", [0, 1])
def test_sequential_rungs_load_tables_once_per_run(library, rung):
    """Rungs 0-1: the per-channel inputs are read whole (run_channels beats) into buffers
    of MAX_CHANNELS before the first chunk; chunks read only x (sel 0)."""
    p = plan(library.get("nn_ops/batch_norm"), rung, "float32")
    top = render(p)[f"{p.top}.sv"]
    assert "localparam int FULL_INPUTS     = 1;" in top
    assert ".beats(tbl_phase ? 32'(run_channels) : chunk_elems)" in top
    for c in ("running_mean", "running_var", "weight", "bias"):
        assert f"fk_ram #(.WIDTH(32), .DEPTH(MAX_CHANNELS)) u_buf_{c}" in top
    assert "end else if (!tbl_loaded) begin" in top
    assert "S_TBL_COMPUTE: if (tables_ready) phase <= S_NEXT;" in top


def test_broadcast_ideal_counts_table_load_once(library):
    """Per element only x moves (rung 1: x in, then compute and write: 1/2); the tables cost
    `channels` cycles once (rung 1: each of the 4 per-channel inputs burst in first)."""
    kernel = library.get("nn_ops/batch_norm")
    sizes = {"n": 32 * 64 * 1024, "channels": 64}
    buffered, vectorized = plan(kernel, 1, "float32"), plan(kernel, 4, "float32")
    assert buffered.performance.compute_elements_per_cycle == 0.5
    assert buffered.performance.table_cycles(64) == 64 * 5
    assert buffered.arch.pointer_bytes("running_var") == 0
    assert buffered.arch.pointer_bytes("x") == 4
    # Rung 4: the four share a bundle; three are read whole first (4 beats each), the
    # last while its channels go through the channel pipeline.
    assert vectorized.performance.table_cycles(64) == 64 + 3 * 4
    assert vectorized.performance.ideal_for(sizes) == \
        pytest.approx(sizes["n"] / (64 + 3 * 4 + sizes["n"] / 16))
    bias = plan(library.get("nn_ops/bias_add"), 2, "float32")
    assert bias.performance.table_cycles(64) == 64  # one table, read as it goes through
    add = plan(library.get("binary_ops/add"), 4, "float32")
    assert add.performance.ideal_for({"n": 1000}) == 16
