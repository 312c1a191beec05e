"""reduce_ops/mean (issue 14): the sum accumulator, then one float32 division by float(n)
(the op table's finish), in the kernel at single-CU rungs and on the host where compute
units share the work. The torch op's contract is in tests/runtime/test_torch_ops.py."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from fpgakern.backends.hls import generate as generate_hls
from fpgakern.backends.rtl.generate import generate as generate_rtl
from fpgakern.backends.rtl.lint import lint
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.ops import OPS, Accuracy
from fpgakern.ladder import RUNGS, plan
from fpgakern.paths import specs_dir
from fpgakern.spec.library import Library
from fpgakern.verify import compare, csim, stimulus

SINGLE = [r.index for r in RUNGS if not r.multi_cu and r.by_default]
MULTI = [r.index for r in RUNGS if r.multi_cu and r.by_default]


@pytest.fixture(scope="module")
def mean():
    return Library(specs_dir()).get("reduce_ops/mean")


def test_op_table_entry():
    op = OPS["mean"]
    assert (op.combine, op.finish, op.accumulates) == ("add", "div", "sum")
    assert op.accuracy_for("float32") == Accuracy("reduction", bound="mean")
    assert op.partials("float32") == OPS["sum"].partials("float32")  # sum's order
    x = np.array([1, 2, 4], np.float32)
    assert op.reference(x)[0] == np.float32(7 / 3)
    assert np.isnan(op.reference(np.zeros(0, np.float32))[0])  # torch.mean of nothing


def test_mean_bound_is_the_sum_bound_over_n_plus_roundings():
    x = np.full(1000, 3.0, np.float32)
    total = 3000.0
    bound = compare.reduction_bound(x, Accuracy("reduction", bound="mean"))
    assert bound == pytest.approx(2.0**-24 * total + 2.0**-23 * total / 1000, rel=1e-6)
    assert bound < compare.reduction_bound(x) / 500  # the sum bound over n, nearly
    # A sum left undivided (what a multi-CU kernel returns) is far outside it.
    verdict = compare.compare(np.array([3.0], np.float32), np.array([3000.0], np.float32),
                              Accuracy("reduction", bound="mean"), x)
    assert not verdict.passed


@pytest.mark.parametrize("rung", SINGLE + MULTI)
def test_hls_divides_in_the_kernel_only_at_single_cu_rungs(mean, rung, tmp_path):
    p = plan(mean, rung, "float32")
    sources = generate_hls(p, tmp_path)
    kernel = sources.kernel.read_text()
    bench = sources.testbench.read_text()
    divides = re.search(r"out\[0\] = fk::div\(.*static_cast<float>\((n|words)\)\);", kernel)
    if p.rung.multi_cu:
        assert p.arch.finish is None and not divides
        # The testbench is the host here: CU sums added, then one division by n.
        assert "actual[0] = fk::div(actual[0], static_cast<float>(n));" in bench
    else:
        assert p.arch.finish == "div" and divides
        assert "fk::div(actual[0]" not in bench


@pytest.mark.parametrize("rung", SINGLE + MULTI)
def test_rtl_divider_after_the_accumulator_lints_clean(mean, rung, tmp_path):
    p = plan(mean, rung, "float32")
    rtl = generate_rtl(p, tmp_path)
    top = (tmp_path / f"{p.top}.sv").read_text()
    names = {f.name for f in rtl.files}
    assert "fk_reduce_fp32_sum.sv" in names
    if p.rung.multi_cu:
        assert "u_finish" not in top and "fk_fp32_div" not in top
    else:
        assert "fk_fp32_div u_finish" in top and "fk_int32_to_fp32 u_count" in top
        assert ".a(arg_n)" in top and {"fk_fp32_div.sv", "fk_fp32_convert.sv"} <= names
    result = lint(rtl)
    assert result.ok, result.output


@pytest.mark.parametrize("rung", [SINGLE[0], MULTI[0], SINGLE[-1]])
def test_csim(mean, rung, tmp_path: Path):
    """The C simulation (the testbench's own check and fpgakern's) passes on random data
    and the reduction's special values, at a single-CU rung and a multi-CU one."""
    p = plan(mean, rung, "float32")
    sources = generate_hls(p, tmp_path / "src")
    cases = stimulus.cases(mean, DTYPES["float32"], size=300, lanes=p.arch.lanes)
    result = csim.run(p, sources, cases, tmp_path / "run")
    assert result.passed, (result.error, [r.verdict.summary() for r in result.results
                                          if not r.verdict.passed][:3])
