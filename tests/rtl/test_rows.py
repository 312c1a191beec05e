"""The RTL of row kernels (docs/rtl.md, "Row kernels"): stages per statistic, two
accumulators per stage, per-column tables, one read of the input. Their simulation
against the oracle runs in tests/sim/test_library_sim.py (every rung, representative
variants) and below for the shapes the kind must get right."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fpgakern.backends.rtl import rows
from fpgakern.backends.rtl.generate import generate, render
from fpgakern.backends.rtl.lint import lint
from fpgakern.ladder import plan
from fpgakern.spec.library import Library


def test_softmax_stages(library):
    """softmax: max(x), then sum(exp(x - max)) with 1 / sum once per row, then the body."""
    d = rows.design(plan(library.get("nn_ops/softmax"), 4, "float32"))
    assert len(d.stages) == 3 and d.record == ["fk_max0", "fk_sum1", "fk_row0"]
    assert d.stages[0].pipe.bare == "x" and d.stages[0].pipe.module is None
    assert [i.op for i in d.stages[1].pipe.dp.instances] == ["sub", "exp"]
    post = d.stages[1].post
    assert post is not None and [f[0] for f in post.fields] == ["fk_sum1", "fk_row0"]
    assert [i.op for i in post.dp.instances] == ["div"]  # 1 / sum, once per row
    assert d.stages[2].acc is None and d.final is None


def test_layer_norm_means_and_tables(library):
    """layer_norm's means are finished by a divide by float(cols); weight and bias are
    tables read by the body stage only."""
    d = rows.design(plan(library.get("nn_ops/layer_norm"), 2, "float32"))
    assert d.tables == ["weight", "bias"] and d.convert is not None
    assert d.stages[-1].tables == ["weight", "bias"]
    assert all(not s.tables for s in d.stages[:-1])
    assert [i.op for i in d.stages[0].post.dp.instances] == ["div"]
    # The variance's record: its mean and rstd = rsqrt(mean + eps) share one divide.
    ops = [i.op for i in d.stages[1].post.dp.instances]
    assert ops.count("div") == 1 and "rsqrt" in ops


@pytest.mark.parametrize("rung", [1, 4])
def test_one_read_of_the_input(library, rung):
    """x is read once per run (in_beats); weight is one row of beats; two accumulators per
    statistic alternate by row; rows queue in FIFOs deep enough for a whole MAX_ROW row."""
    p = plan(library.get("nn_ops/rms_norm"), rung, "float32")
    top = render(p)[f"{p.top}.sv"]
    assert top.count("fk_axi_read #(") == (1 if rung < 2 else 2)
    assert re.search(r"rd_\w+_beats = in_beats;", top)
    assert re.search(r"rd_\w+_beats = row_beats;", top)
    assert top.count("for (genvar a = 0; a < 2; a++) begin : g_s0_acc") == 1
    depth = int(re.search(r"ROWQ_DEPTH\s+= (\d+)", top).group(1))
    assert depth >= 4096 // p.arch.lanes + rows.SLACK_BEATS
    in_flight = "x_first_ok = x_col != '0 || in_flight < 8'd1;"
    assert (in_flight in top) == (rung < 2)


# Row kernels of several full-shaped inputs, as torch.compile fuses an elementwise prefix
# into them: layer_norm of relu(a * sigmoid(a) + bias + x), and sum(a * b) along rows.
LOCKSTEP = Library(Path(__file__).parents[1] / "data" / "lockstep_project" / "kernel_specs")


def test_several_full_inputs_are_read_in_lockstep(library):
    d = rows.design(plan(LOCKSTEP.get("fused/fused_ln"), 2, "float32"))
    assert d.full == ["a", "x"] and d.x == "a" and d.lockstep
    assert d.tables == ["bias", "weight", "shift"]
    # Stage 0 computes the prefix h from a beat of each full input (and bias); the later
    # stages read h from the row FIFO, never a or x.
    assert d.prefix == "relu(add(add(mul(a, sigmoid(a)), bias), x))"
    assert set(d.stages[0].pipe.dp.inputs) == {"a", "x", "bias"}
    for st in d.stages[1:]:
        assert rows.PREFIX in st.pipe.dp.inputs and not {"a", "x"} & set(st.pipe.dp.inputs)
    assert d.stages[1].tables == [] and d.stages[2].tables == ["weight", "shift"]
    # No statistic (sum(a * b)) or a later stage reading an input beside the first
    # statistic's operand ((a - max(a)) * g): every input's beats travel on.
    dot = rows.design(plan(LOCKSTEP.get("fused/row_dot"), 4, "float32"))
    assert dot.full == ["a", "b"] and len(dot.stages) == 1 and dot.prefix is None
    gated = rows.design(plan(LOCKSTEP.get("fused/gated_shift"), 1, "float32"))
    assert gated.prefix is None and set(gated.stages[1].pipe.dp.inputs) >= {"a", "g"}
    assert not rows.design(plan(library.get("nn_ops/layer_norm"), 2, "float32")).lockstep


@pytest.mark.parametrize("rung", [0, 1])
def test_shared_bundle_reads_full_inputs_in_chunks(rung):
    """Rungs 0-1 (one gmem): the full inputs in chunks of CHUNK beats, each input's in
    turn, into FIFOs as deep as the engine's credits; an issue owes the engine a beat of
    each FIFO, given back one a cycle."""
    p = plan(LOCKSTEP.get("fused/fused_ln"), rung, "float32")
    top = render(p)[f"{p.top}.sv"]
    assert top.count("fk_axi_read #(") == 1
    chunk = int(re.search(r"CHUNK\s+= (\d+);", top).group(1))
    depth = int(re.search(r"IN_FIFO_DEPTH\s+= (\d+);", top).group(1))
    assert depth == 2 * chunk
    assert "rd_gmem_base  = ptr_a + 64'(rd_gmem_chunk_next) * 64'(DATA_W / 8);" in top
    assert "rd_gmem_base  = ptr_x + 64'(rd_gmem_chunk_next) * 64'(DATA_W / 8);" in top
    assert "(x_pop ? 32'd2 : 32'd0)" in top
    assert "x_data  = {in_x_data, in_a_data};" in top
    # The row FIFO keeps the prefix, as stage 0's pipe computes it, on credits.
    assert "fk_fifo #(.WIDTH(DATA_W + BW + 1), .DEPTH(ROWQ_DEPTH)) u_rowq0" in top
    assert ".in_valid(s0_y_valid), .in_ready(rowq0_in_ready)," in top
    assert "assign s0_rowq_ready = s0_rowq_credit != '0;" in top
    gated = plan(LOCKSTEP.get("fused/gated_shift"), rung, "float32")
    top = render(gated)[f"{gated.top}.sv"]
    assert "fk_fifo #(.WIDTH(IN_W + BW + 1), .DEPTH(ROWQ_DEPTH)) u_rowq0" in top


@pytest.mark.parametrize("rung", [2, 4])
def test_dataflow_rungs_read_each_full_input_on_its_bundle(rung):
    p = plan(LOCKSTEP.get("fused/row_dot"), rung, "float32")
    top = render(p)[f"{p.top}.sv"]
    assert top.count("fk_axi_read #(") == 2 and "CHUNK" not in top
    assert len(re.findall(r"rd_\w+_beats = in_beats;", top)) == 2
    assert len(re.findall(r"rd_gmem[01]_credit = 1'b0 \|\| x_pop;", top)) == 2
    assert "IN_W           = 2 * DATA_W;" in top


@pytest.mark.parametrize("name", ["nn_ops/softmax", "nn_ops/layer_norm", "nn_ops/row_sum"])
def test_one_full_input_has_no_lockstep_logic(library, name):
    """A kernel of one full input is generated as before the lockstep reads existed."""
    for rung in (1, 4):
        p = plan(library.get(name), rung, "float32")
        top = render(p)[f"{p.top}.sv"]
        assert "IN_W" not in top and "CHUNK" not in top and "in_x_data" not in top


@pytest.mark.parametrize(("name", "rung"), [("fused/fused_ln", 1), ("fused/fused_ln", 4),
                                            ("fused/row_dot", 0), ("fused/row_dot", 2),
                                            ("fused/gated_shift", 1),
                                            ("fused/gated_shift", 4)])
def test_lockstep_kernels_lint_clean(name, rung, tmp_path):
    """verilator --lint-only -Wall: the chunked reads of one gmem (rungs 0-1), a port each
    (rungs 2-4), the wide beats through the row FIFOs."""
    result = lint(generate(plan(LOCKSTEP.get(name), rung, "float32"), tmp_path))
    assert result.ok, result.output
