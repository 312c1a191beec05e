"""The RTL of row kernels (docs/rtl.md, "Row kernels"): stages per statistic, two
accumulators per stage, per-column tables, one read of the input. Their simulation
against the oracle runs in tests/sim/test_library_sim.py (every rung, representative
variants) and below for the shapes the kind must get right."""

from __future__ import annotations

import re

import pytest

from fpgakern.backends.rtl import rows
from fpgakern.backends.rtl.generate import render
from fpgakern.ladder import plan


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
    assert depth >= 4096 // p.lanes + rows.SLACK_BEATS
    in_flight = "x_first_ok = x_col != '0 || in_flight < 8'd1;"
    assert (in_flight in top) == (rung < 2)
