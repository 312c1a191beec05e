"""HLS C++ and C simulation of the shaped kinds (broadcast, row_map, row_reduction):
the hardware contract's arguments and layouts, judged on whole shaped tensors."""

from __future__ import annotations

import numpy as np
import pytest

from fpgakern.backends.hls import generate
from fpgakern.errors import UsageError
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ladder import plan
from fpgakern.spec.library import Library
from fpgakern.verify import csim, shaped_stimulus, stimulus

NN_SHAPED = ("nn_ops/batch_norm", "nn_ops/bias_add", "nn_ops/softmax", "nn_ops/log_softmax",
             "nn_ops/layer_norm", "nn_ops/rms_norm")

ROW_OPS = {
    "_category.yaml": "doc: Row reductions.\ndefaults:\n  outputs: [out]\n  dtypes: [float32]\n",
    # float sum along rows, with a per-column operand
    "row_dot.yaml": "kernel: row_dot\ndoc: Each row's dot product with a per-column weight.\n"
                    "inputs: [x, weight]\nshapes:\n  x: (*, D)\n  weight: (D)\n"
                    "expression: sum(x * weight)\naccuracy: {ulps: 8, row_ulps: 8}\n",
    # exact: max of an exact product, with a scalar
    "row_peak.yaml": "kernel: row_peak\ndoc: Each row's largest element, scaled.\n"
                     "inputs: [x]\nscalars:\n  gain: 2.0\nshapes:\n  x: (R, D)\n"
                     "expression: max(x * gain)\naccuracy: {ulps: 0, row_ulps: 0}\n",
}

# relu of silu plus a per-column (per-channel) bias: the bias cancels a * sigmoid(a) at
# some elements, where sigmoid's ulps (fk::sigmoid's are not the reference's) are many.
BIAS_OPS = {
    "_category.yaml": "doc: Broadcast biases.\ndefaults:\n  outputs: [out]\n"
                      "  dtypes: [float32]\n",
    "bias_silu.yaml": "kernel: bias_silu\ndoc: relu of silu plus a per-column bias.\n"
                      "inputs: [a, b]\nshapes:\n  a: (*, D)\n  b: (D)\n"
                      "expression: relu(a * sigmoid(a) + b)\n",
    "chan_silu.yaml": "kernel: chan_silu\ndoc: relu of silu plus a per-channel bias.\n"
                      "inputs: [a, b]\nshapes:\n  a: (N, C, *)\n  b: (C)\n"
                      "expression: relu(a * sigmoid(a) + b)\n",
}


@pytest.fixture(scope="module")
def bias_ops(tmp_path_factory) -> Library:
    root = tmp_path_factory.mktemp("specs")
    (root / "bias_ops").mkdir()
    for name, text in BIAS_OPS.items():
        (root / "bias_ops" / name).write_text(text)
    return Library(root)


@pytest.fixture(scope="module")
def row_ops(tmp_path_factory) -> Library:
    root = tmp_path_factory.mktemp("specs")
    (root / "row_ops").mkdir()
    for name, text in ROW_OPS.items():
        (root / "row_ops" / name).write_text(text)
    return Library(root)


def _csim(p, tmp_path) -> csim.CsimResult:
    sources = generate(p, tmp_path)
    return csim.run(p, sources, shaped_stimulus.cases(p.kernel, p.dtype), tmp_path / "csim")


def test_cases_cover_the_contract(library):
    """Inner 1, odd sizes, 1 and 17 channels, no elements; rows of 1, 5, 33 and 1024
    columns, rows of none, no rows; special values (zero variance: a constant row)."""
    bn = library.get("nn_ops/batch_norm")
    shapes = {c.label: c.main_shape for c in shaped_stimulus.cases(bn, DTYPES["float32"])}
    assert shapes["random_c17_inner1"] == (3, 17) and shapes["random_c1"][1] == 1
    assert shapes["empty"][0] == 0 and "specials" in shapes
    softmax = library.get("nn_ops/softmax")
    cases = shaped_stimulus.cases(softmax, DTYPES["float32"])
    assert {c.main_shape[-1] for c in cases} >= {0, 1, 5, 33, 1024}
    assert any(c.main_shape[0] == 0 for c in cases)
    special = next(c for c in cases if c.label == "specials").tensors["x"]
    assert np.isnan(special).any() and np.isinf(special).any()
    assert any(np.all(row == row[0]) and np.isfinite(row[0]) for row in special)


# batch_norm at rung 3 (channel runs split over CUs, each told its channel0) and 4
# (per-lane cursors and tables), softmax at rung 4 (padded rows), each kernel and each
# rung body once; -m slow: every rung of every kernel.
_FAST = [("nn_ops/batch_norm", 0), ("nn_ops/batch_norm", 3), ("nn_ops/batch_norm", 4),
         ("nn_ops/softmax", 1), ("nn_ops/softmax", 4), ("nn_ops/bias_add", 2),
         ("nn_ops/log_softmax", 3), ("nn_ops/layer_norm", 4), ("nn_ops/rms_norm", 2)]
_ALL = [(k, r) for k in NN_SHAPED for r in range(5)]


@pytest.mark.parametrize(("name", "rung"), _FAST)
def test_csim_of_shaped_kernels(library, tmp_path, name, rung):
    result = _csim(plan(library.get(name), rung, "float32"), tmp_path)
    assert result.passed, result.summary()


@pytest.mark.slow
@pytest.mark.parametrize(("name", "rung"), [v for v in _ALL if v not in _FAST])
def test_csim_of_shaped_kernels_every_rung(library, tmp_path, name, rung):
    result = _csim(plan(library.get(name), rung, "float32"), tmp_path)
    assert result.passed, result.summary()


@pytest.mark.parametrize(("name", "rung"), [("row_ops/row_dot", 0), ("row_ops/row_dot", 4),
                                            ("row_ops/row_peak", 2)])
def test_csim_of_row_reductions(row_ops, tmp_path, name, rung):
    """One result per row (rows of no elements: the empty reduction's value); rung 4
    packs LANES results a word."""
    result = _csim(plan(row_ops.get(name), rung, "float32"), tmp_path)
    assert result.passed, result.summary()
    assert any(c.label == "rows2_cols0" and c.verdict.compared == 2 for c in result.cases)


def test_csim_catches_a_kernel_ignoring_channels(library, tmp_path):
    """Every element taking channel 0's scale and shift must fail, bit-exactly judged."""
    p = plan(library.get("nn_ops/batch_norm"), 4, "float32")
    sources = generate(p, tmp_path)
    text = sources.kernel.read_text()
    assert "[at[l].channel]" in text
    sources.kernel.write_text(text.replace("[at[l].channel]", "[0]"))
    result = csim.run(p, sources, shaped_stimulus.cases(p.kernel, p.dtype), tmp_path / "c")
    assert not result.passed and "values differ" in result.summary()


def test_csim_catches_a_row_off_by_more_than_its_bound(library, tmp_path):
    """softmax with its row sum 16 ulps too large (times 1 + 2^-19) must fail: every
    element is then about 16 ulps off, past the spec's 8 ulps + 2 of the row's largest."""
    p = plan(library.get("nn_ops/softmax"), 2, "float32")
    sources = generate(p, tmp_path)
    text = sources.kernel.read_text()
    stat = "const float fk_sum1 = fk_sum1_partial[0];"
    assert stat in text
    sources.kernel.write_text(text.replace(stat, stat.replace(";", " * 1.0000019f;")))
    result = csim.run(p, sources, shaped_stimulus.cases(p.kernel, p.dtype), tmp_path / "c")
    assert not result.passed and "values differ" in result.summary()


def test_csim_refuses_flat_cases_for_a_shaped_kernel(library, tmp_path):
    p = plan(library.get("nn_ops/softmax"), 0, "float32")
    sources = generate(p, tmp_path)
    with pytest.raises(UsageError, match="shaped cases"):
        csim.run(p, sources, stimulus.cases(p.kernel, p.dtype, size=64), tmp_path / "c")


@pytest.mark.parametrize(("name", "rung"), [("bias_ops/bias_silu", 4), ("bias_ops/bias_silu", 0),
                                            ("bias_ops/chan_silu", 4)])
def test_csim_follows_a_broadcast_kernels_inner_sigmoid(bias_ops, tmp_path, name, rung):
    """The testbench and compare.judge_shaped both take a result equal to the reference
    with sigmoid moved within its bound (rung 4 of bias_silu gave 0x3c7a4f50 for
    0x3c7a4f48 where b cancels a * sigmoid(a): 8 ulps of the result)."""
    result = _csim(plan(bias_ops.get(name), rung, "float32"), tmp_path)
    assert result.passed, result.summary()
    assert all("after sigmoid within their bounds" in c.verdict.accuracy for c in result.cases)


def test_csim_catches_a_sigmoid_off_past_its_bound(bias_ops, tmp_path):
    """sigmoid about 8 ulps too large (times 1 + 2^-20) fails both checks alike."""
    p = plan(bias_ops.get("bias_ops/bias_silu"), 4, "float32")
    sources = generate(p, tmp_path)
    text = sources.kernel.read_text()
    call = "fk::sigmoid(a_v[l])"
    assert call in text
    sources.kernel.write_text(text.replace(call, f"({call} * 1.00000095f)"))
    result = csim.run(p, sources, shaped_stimulus.cases(p.kernel, p.dtype), tmp_path / "c")
    assert not result.passed and result.error is None and "values differ" in result.summary()
