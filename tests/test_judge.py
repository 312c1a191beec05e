"""compare.judge: the verdict on a kernel's output where an ulp-bounded op feeds further
ops (exp(x) - 1, atan2(y, x) * c): the hardware's choice within the inner op's bound is
followed through the rest of the expression exactly, and nothing else passes."""

from __future__ import annotations

import numpy as np
import pytest

from fpgakern.ir import ops
from fpgakern.ir.dtypes import DTYPES
from fpgakern.spec.library import Library
from fpgakern.verify import compare, reference, shaped_stimulus
from fpgakern.verify.stimulus import Case

F32 = np.float32


def _kernel(tmp_path, write_spec, name: str, inputs: str, expression: str):
    write_spec(tmp_path, f"my_ops/{name}.yaml",
               f"kernel: {name}\ndoc: A test kernel.\ninputs: [{inputs}]\noutputs: [out]\n"
               f"dtypes: [float32]\nexpression: {expression}\n")
    return Library(tmp_path / "kernel_specs").get(f"my_ops/{name}")


def test_an_inner_exp_one_ulp_off_is_followed_through_the_cancellation(tmp_path, write_spec):
    kernel = _kernel(tmp_path, write_spec, "em1", "x", "exp(x) - 1")
    x = np.array([1e-6, -3e-5, 2e-3, 0.5, -20.0, 0.0], F32)
    case = Case("near zero", {"x": x}, {})
    exact = reference.expected_output(kernel, "float32", case)
    # Hardware whose exp is one ulp above (or two below) the reference's: exp(x) - 1 moves
    # by an ulp of 1, many ulps of the result near 0, and still passes ...
    for ulps in (1, -2):
        chosen = reference.step_ulps(np.exp(x.astype(np.float64)).astype(F32), ulps) - F32(1)
        assert compare.ulp_distance(exact, chosen)[0] > 2  # what the old bound refused
        verdict = compare.judge(kernel, "float32", case, chosen)
        assert verdict.passed, verdict.summary()
        assert "after exp within their bounds" in verdict.accuracy
    # ... while exp three ulps off, or a sub that errs by one ulp, fails.
    for wrong in (reference.step_ulps(np.exp(x.astype(np.float64)).astype(F32), 3) - F32(1),
                  reference.step_ulps(exact, 1)):
        verdict = compare.judge(kernel, "float32", case, wrong)
        assert not verdict.passed and verdict.mismatch_count >= 3, verdict.summary()


def test_a_subnormal_atan2_feeding_a_multiply(tmp_path, write_spec):
    """atan2(0x7FFFFF, 2) is a tie between two subnormals in float64 (the reference rounds
    it to even, 2^-127) where the correctly rounded result is the one below (atan < y/x):
    times 57.3 that is four ulps apart, and either is right."""
    kernel = _kernel(tmp_path, write_spec, "angle", "y, x", "atan2(y, x) * 57.29577951308232")
    y = np.array([0x7F_FFFF], np.uint32).view(F32)
    case = Case("tie", {"y": y, "x": np.array([2.0], F32)}, {})
    correctly_rounded = np.array([0x3F_FFFF], np.uint32).view(F32) * F32(57.29577951308232)
    assert compare.ulp_distance(reference.expected_output(kernel, "float32", case),
                                correctly_rounded)[0] == 4
    assert compare.judge(kernel, "float32", case, correctly_rounded).passed


def test_exact_kernels_and_root_bounds_are_judged_as_before(tmp_path, write_spec):
    kernel = _kernel(tmp_path, write_spec, "sq", "x", "x * x + 1")
    x = np.array([1.5, -2.0, 3e-20], F32)
    case = Case("plain", {"x": x}, {})
    exact = reference.expected_output(kernel, "float32", case)
    assert compare.judge(kernel, "float32", case, exact).passed
    assert not compare.judge(kernel, "float32", case, reference.step_ulps(exact, 1)).passed
    root = _kernel(tmp_path, write_spec, "ex", "x", "exp(x * 2)")
    case = Case("plain", {"x": x}, {})
    want = reference.expected_output(root, "float32", case)
    assert compare.judge(root, "float32", case, reference.step_ulps(want, 2)).passed
    assert not compare.judge(root, "float32", case, reference.step_ulps(want, 3)).passed


def test_step_ulps_walks_the_floats():
    values = np.array([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan], F32)
    up = reference.step_ulps(values, 1)
    assert list(up.view(np.uint32)[:3]) == [1, 0, 0x3F80_0001]
    assert up[3] == np.inf and np.isnan(up[5])  # never past an infinity; NaN stays
    down = reference.step_ulps(values, -1)
    assert list(down.view(np.uint32)[:5]) == [0x8000_0000, 0x8000_0001, 0x3F7F_FFFF,
                                               0x7F7F_FFFF, 0xFF80_0000]


def test_row_sum_depth_follows_the_accumulator_order() -> None:
    # P = 8 partials: one lane puts 4096 terms through 512 - 1 adds into a partial and 3
    # in the final tree; 16 lanes 4 in the beat tree, 32 - 1 and 3. The larger counts.
    assert ops.OPS["sum"].partials("float32") == 8
    assert ops.row_sum_depth(4096) == 514
    assert ops.row_sum_depth(1024) == 130
    assert ops.row_sum_depth(16) == 4 + 0 + 3
    assert ops.row_sum_depth(0) == 0


def test_sum_ulps_widen_the_row_term_with_the_sum_depth() -> None:
    # A row of 1024: depth 130, so sum_ulps 1 allows 130 ulp of the row's largest (1.0,
    # ulp 2**-23) on top of row_ulps; one ulp more fails.
    accuracy = ops.Accuracy("rows", 0, row_ulps=2, sum_ulps=1)
    expected = np.zeros((1, 1024), dtype=np.float32)
    expected[0, 0] = 1.0
    actual = expected.copy()
    actual[0, 1] = np.float32(132 * 2.0**-23)
    assert compare.compare_rows(expected, actual, accuracy).passed
    actual[0, 1] = np.float32(133 * 2.0**-23)
    assert not compare.compare_rows(expected, actual, accuracy).passed
    # A row reduction's output is one value per row: the depth is the reduced row's.
    assert compare.compare_rows(expected, actual, accuracy, cols=4096).passed


def test_stated_row_bounds_parse_with_sum_ulps(library: Library) -> None:
    softmax = library.get("nn_ops/softmax").accuracy("float32")
    assert (softmax.kind, softmax.ulps, softmax.row_ulps, softmax.sum_ulps) == \
        ("rows", 19, 1, 1)


# -- broadcast kernels (compare.judge_shaped): the same rule on their stages -------------

def _broadcast(tmp_path, write_spec, name: str, shapes: str, expression: str,
               lets: str = ""):
    write_spec(tmp_path, f"my_ops/{name}.yaml",
               f"kernel: {name}\ndoc: A test kernel.\ninputs: [a, b]\noutputs: [out]\n"
               f"dtypes: [float32]\nshapes:\n{shapes}{lets}expression: {expression}\n")
    kernel = Library(tmp_path / "kernel_specs").get(f"my_ops/{name}")
    assert kernel.kind == "broadcast"
    return kernel


def _silu_cancelled(a: np.ndarray, sigmoid_ulps: int, bias: np.ndarray) -> np.ndarray:
    """relu(a * sigmoid(a) + bias) in float32 with sigmoid moved ``sigmoid_ulps``."""
    s = reference.step_ulps(ops.op("sigmoid").reference(a), sigmoid_ulps)
    return np.maximum(a * s + bias, F32(0))


@pytest.mark.parametrize("shapes", ["  a: (*, D)\n  b: (D)\n", "  a: (N, C, *)\n  b: (C)\n"])
def test_a_broadcast_kernels_inner_sigmoid_is_followed_through_the_cancellation(
        tmp_path, write_spec, shapes):
    """relu(a * sigmoid(a) + b) per column (a (*, D), b (D)) and per channel (a (N, C, *),
    b (C)): b nearly cancels a * sigmoid(a), so sigmoid's 1 or 2 ulps are many of the
    result's; they pass, 3 ulps (past its bound) and a 1-ulp error at the exact root do
    not (what csim found: 0x3c7a4f50 for 0x3c7a4f48 at rung 4)."""
    kernel = _broadcast(tmp_path, write_spec, "bias_silu", shapes, "relu(a * sigmoid(a) + b)")
    per_column = "D" in shapes
    rows = np.array([[0.75, 1.5, 3.0], [2.25, 0.5, 4.0]], F32)
    a = rows if per_column else rows.reshape(2, 3, 1)
    # b nearly cancels the first row's a * sigmoid(a).
    b = -(rows[0] * ops.op("sigmoid").reference(rows[0]) - np.array([1e-6, 3e-6, 2e-5], F32))
    bias = b if per_column else b.reshape(3, 1)
    tensors = {"a": a, "b": b}
    exact = reference.shaped_expected(kernel, "float32", tensors, {})
    assert np.array_equal(exact, _silu_cancelled(a, 0, bias))
    for ulps in (1, -2):
        chosen = _silu_cancelled(a, ulps, bias)
        assert compare.ulp_distance(exact.ravel(), chosen.ravel()).max() > 2  # the old bound
        verdict = compare.judge_shaped(kernel, "float32", tensors, {}, chosen)
        assert verdict.passed, verdict.summary()
        assert verdict.accuracy == "exact after sigmoid within their bounds"
    for wrong in (_silu_cancelled(a, 3, bias), reference.step_ulps(exact, 1)):
        verdict = compare.judge_shaped(kernel, "float32", tensors, {}, wrong)
        assert not verdict.passed and verdict.mismatch_count >= 3, verdict.summary()


def test_a_per_channel_let_with_an_inexact_op_is_followed(tmp_path, write_spec):
    """exp(b), computed once per channel (a let), feeds a - e: exp's 2 ulps of it are
    followed; 3 ulps are not."""
    kernel = _broadcast(tmp_path, write_spec, "shifted", "  a: (N, C, *)\n  b: (C)\n",
                        "a - e", "let:\n  e: exp(b)\n")
    assert [v.name for v in kernel.staged("float32").channel_values] == ["e"]
    b = np.array([0.5, -1.25, 2.0], F32)
    e = ops.op("exp").reference(b)
    a = np.stack([e + np.spacing(e) * 3, e]).reshape(2, 3, 1).astype(F32)
    tensors = {"a": a, "b": b}
    exact = reference.shaped_expected(kernel, "float32", tensors, {})
    for ulps, passes in ((2, True), (-1, True), (3, False)):
        chosen = a - reference.step_ulps(e, ulps).reshape(3, 1)
        verdict = compare.judge_shaped(kernel, "float32", tensors, {}, chosen)
        assert verdict.passed == passes, verdict.summary()
    assert compare.judge_shaped(kernel, "float32", tensors, {}, exact).passed
    assert compare.followed_accuracy(kernel, "float32") == ops.EXACT  # sub's, at the root


def test_batch_norm_is_still_judged_bit_for_bit(library):
    """No inexact op: nothing to follow, and one ulp off anywhere fails."""
    kernel = library.get("nn_ops/batch_norm")
    assert compare.followed_applications(kernel, "float32") == []
    assert compare.followed_accuracy(kernel, "float32") == ops.EXACT
    case = next(c for c in shaped_stimulus.cases(kernel, DTYPES["float32"])
                if c.label == "random_c17_inner1")
    exact = reference.shaped_expected(kernel, "float32", case.tensors, case.scalars)
    verdict = compare.judge_shaped(kernel, "float32", case.tensors, case.scalars, exact)
    assert verdict.passed and verdict.accuracy == "exact"
    off = exact.copy()
    off.flat[5] = reference.step_ulps(off.flat[5:6], 1)[0]
    verdict = compare.judge_shaped(kernel, "float32", case.tensors, case.scalars, off)
    assert not verdict.passed and verdict.mismatch_count == 1


def test_elementwise_and_broadcast_kernels_follow_by_one_rule(tmp_path, write_spec, library):
    """Kernel.followed_applications, which the judges and the testbenches share: an
    elementwise kernel's inner sigmoid is followed and its results held to relu's bound
    (exact); four inner inexact ops are more than MAX_FOLLOWED (their bounds add); a
    reduction, or an op at the root only, has none to follow."""
    silu_plus = _kernel(tmp_path, write_spec, "silu_plus", "a, b", "relu(a * sigmoid(a) + b)")
    assert [a.op.name for a in compare.followed_applications(silu_plus, "float32")] == \
        ["sigmoid"]
    assert compare.followed_accuracy(silu_plus, "float32") == ops.EXACT
    many = _kernel(tmp_path, write_spec, "many", "x", "exp(x) + exp(x * 2) + exp(x * 3) + "
                   "exp(x * 4)")
    assert len(reference.inexact_inner_applications(many, "float32")) == 4 > \
        compare.MAX_FOLLOWED
    assert compare.followed_applications(many, "float32") == []
    assert compare.followed_accuracy(many, "float32") == many.accuracy("float32")
    root = _kernel(tmp_path, write_spec, "ex", "x", "exp(x * 2)")
    assert compare.followed_applications(root, "float32") == []
    assert compare.followed_applications(library.get("reduce_ops/sum"), "float32") == []
    # silu_plus's case where b cancels a * sigmoid(a): sigmoid 2 ulps off passes, 3 not.
    a = np.array([0.5, 4.0, 0.75], F32)
    s = ops.op("sigmoid").reference(a)
    case = Case("cancelling", {"a": a, "b": -(a * s - F32(1e-6))}, {})
    for ulps, passes in ((2, True), (-2, True), (3, False)):
        chosen = np.maximum(a * reference.step_ulps(s, ulps) + case.tensors["b"], F32(0))
        assert compare.judge(silu_plus, "float32", case, chosen).passed == passes
