"""A multi-CU rung and the rung it replicates share one quick-build model; which rungs
pair up comes from the ladder's flags, not from rung numbers."""

from __future__ import annotations

from dataclasses import replace

from fpgakern.ladder import RUNGS, plan
from fpgakern.spec.library import Library
from fpgakern.verify import rtlsim


def test_a_multi_cu_rung_replicates_the_single_cu_rung_of_its_shape():
    pairs = {r.index: rtlsim.replicated_rung(r) for r in RUNGS}
    for r in RUNGS:
        base = pairs[r.index]
        if not r.multi_cu:
            assert base is None, r.label
        elif base is not None:  # a multi-CU rung that also changes the CU has none
            assert not base.multi_cu
            assert replace(base, index=r.index, name=r.name, summary=r.summary,
                           rtl_summary=r.rtl_summary, multi_cu=True) == r
    assert pairs[3] is RUNGS[2]  # the ladder as DESIGN.md draws it


def test_rung_2_and_3_share_a_model_and_rung_4_has_none():
    add = Library.for_project().get("binary_ops/add")
    three = plan(add, 3, "float32")
    for rung in (2, 3):
        shared = rtlsim._shared_multi_cu_model(plan(add, rung, "float32"))
        assert shared is not None
        source, cus = shared
        assert source.rung.index == 2 and cus == three.placement.compute_units > 1
    assert rtlsim._shared_multi_cu_model(plan(add, 4, "float32")) is None
