"""Shaped kernels through the Python runtime (KernelHandle with numpy arrays of their
shapes) on hw_emu, judged against the oracle (compare.judge_shaped): a row reduction's
one result per row, rows of no element (row_mean's NaN, written by the kernel), no rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from runtime_support import device_for

from fpgakern.ladder import plan
from fpgakern.runtime import Device, open_plans
from fpgakern.spec.library import Library
from fpgakern.verify import compare


@pytest.mark.parametrize("qualname", ["nn_ops/row_mean", "nn_ops/row_sum"])
def test_row_reduction_on_hw_emu(qualname):
    handle = device_for(qualname, 2, "float32", "hw_emu").kernel(qualname)
    rng = np.random.default_rng(3)
    for shape in [(3, 7), (2, 3, 9), (4, 0), (0, 5), (1, 1)]:
        x = rng.standard_normal(shape).astype(np.float32)
        out = handle(x)
        assert out.shape == shape[:-1] and out.dtype == np.float32
        verdict = compare.judge_shaped(handle.kernel, "float32", {"x": x}, {}, out)
        assert verdict.passed, f"{shape}: {verdict.summary()}"
        if shape == (4, 0):  # rows of no element: the kernel wrote the empty reduction's
            want = np.nan if qualname.endswith("mean") else 0.0
            np.testing.assert_array_equal(out, np.full(4, want, dtype=np.float32))
        info = handle.last_call
        assert info is not None and (info.compute_units == 0) == (shape[:-1].count(0) > 0)


LOCKSTEP = Library(Path(__file__).parents[1] / "data" / "lockstep_project" / "kernel_specs")
_lockstep: dict[str, Device] = {}


# fused_ln's lanes model (12 s) nightly; row_dot proves several full inputs on hw_emu.
@pytest.mark.parametrize("qualname", [pytest.param("fused/fused_ln", marks=pytest.mark.slow),
                                      "fused/row_dot"])
def test_several_full_inputs_on_hw_emu(qualname):
    """Row kernels of two full-shaped inputs (docs/rtl.md, "Row kernels") at rung 3: the
    host pads both inputs' rows and splits them over the CUs with the per-column ones."""
    if "dev" not in _lockstep:
        _lockstep["dev"] = open_plans([plan(LOCKSTEP.get(q), 3, "float32")
                                       for q in ("fused/fused_ln", "fused/row_dot")], "hw_emu")
    handle = _lockstep["dev"].kernel(qualname)
    layout = handle.kernel.layout
    rng = np.random.default_rng(5)
    for shape in [(3, 7), (2, 3, 40), (5, 1000), (4, 0), (0, 5)]:
        arrays = {n: rng.standard_normal(shape if n in layout.full_inputs else shape[-1:])
                  .astype(np.float32) for n in handle.kernel.inputs}
        out = handle(*arrays.values())
        verdict = compare.judge_shaped(handle.kernel, "float32", arrays, {}, out)
        assert verdict.passed, f"{shape}: {verdict.summary()}"
