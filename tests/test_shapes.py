"""Shaped kernels in the IR (fpgakern.ir.shapes): layouts, stages, sizes, the oracle."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fpgakern.ir import expr, shapes
from fpgakern.ir.ops import Accuracy
from fpgakern.spec.library import Library
from fpgakern.verify import compare, reference


def _stages(library: Library, name: str) -> shapes.Staged:
    staged = library.get(name).staged("float32")
    assert staged is not None
    return staged


def test_kinds_follow_shapes_and_expression(library: Library) -> None:
    kinds = {k.name: k.kind for k in library.kernels if k.category == "nn_ops"}
    assert kinds["batch_norm"] == "broadcast"
    assert kinds["bias_add"] == "broadcast"
    assert kinds["softmax"] == kinds["layer_norm"] == kinds["rms_norm"] == "row_map"
    assert kinds["silu"] == "elementwise"
    assert library.get("binary_ops/add").kind == "elementwise"
    assert library.get("reduce_ops/sum").kind == "reduction"


def test_batch_norm_hoists_per_channel_values(library: Library) -> None:
    staged = _stages(library, "nn_ops/batch_norm")
    assert [h.name for h in staged.channel_values] == ["scale", "shift"]
    assert expr.to_text(staged.body) == "fma(x, scale, shift)"
    assert not staged.stats and not staged.row_values


def test_softmax_stages_run_in_dependency_order(library: Library) -> None:
    staged = _stages(library, "nn_ops/softmax")
    assert [(s.op.name, expr.to_text(s.operand)) for s in staged.stats] == [
        ("max", "x"), ("sum", "exp(sub(x, fk_max0))")]
    assert [expr.to_text(h.node) for h in staged.row_values] == ["div(1.0, fk_sum1)"]
    assert expr.to_text(staged.body) == "mul(exp(sub(x, fk_max0)), fk_row0)"
    assert staged.element_inputs(("x",)) == ("x", "fk_max0", "fk_row0")


def test_sizes_of_each_kind(library: Library) -> None:
    bn = library.get("nn_ops/batch_norm")
    assert bn.layout is not None
    assert shapes.sizes("broadcast", bn.layout, (2, 3, 4, 5)) == {
        "n": 120, "inner": 20, "channels": 3, "channel0": 0}
    assert shapes.sizes("broadcast", bn.layout, (7, 3)) == {
        "n": 21, "inner": 1, "channels": 3, "channel0": 0}
    assert shapes.operand_shape("weight", bn.layout, (7, 3)) == (3,)
    with pytest.raises(shapes.ShapeError, match="does not fit"):
        shapes.sizes("broadcast", bn.layout, (7,))
    sm = library.get("nn_ops/softmax")
    assert sm.layout is not None
    assert shapes.sizes("row_map", sm.layout, (2, 3, 10)) == {"rows": 6, "cols": 10}
    assert bn.size_args == ("n", "inner", "channels", "channel0")
    assert sm.size_args == ("rows", "cols")


@pytest.mark.parametrize("shape", [(8, 4), (2, 3, 5), (4, 16, 33), (2, 3, 4, 5)])
def test_batch_norm_oracle_is_torch_bit_for_bit(library: Library, shape: tuple[int, ...]) -> None:
    gen = torch.Generator().manual_seed(sum(shape))
    c = shape[1]
    x = torch.randn(shape, generator=gen) * 8
    x.view(-1)[:4] = torch.tensor([float("nan"), float("inf"), -float("inf"), 1e-40])
    mean, weight, bias = (torch.randn(c, generator=gen) for _ in range(3))
    var = torch.rand(c, generator=gen)
    var[0] = 0.0  # zero variance: invstd = 1 / sqrt(eps)
    want = torch.nn.functional.batch_norm(x, mean, var, weight, bias, training=False,
                                          eps=1e-5).numpy()
    got = reference.shaped_expected(
        library.get("nn_ops/batch_norm"), "float32",
        {"x": x.numpy(), "running_mean": mean.numpy(), "running_var": var.numpy(),
         "weight": weight.numpy(), "bias": bias.numpy()}, {"eps": 1e-5})
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    assert same.all()


def test_compare_rows_holds_each_element_to_its_bound() -> None:
    accuracy = Accuracy("rows", 2, row_ulps=1)
    expected = np.array([[1.0, 2.0**-20, np.nan, np.inf]], dtype=np.float32)
    near = np.array([[np.nextafter(np.float32(1), np.float32(2)), 2.0**-20, np.nan, np.inf]],
                    dtype=np.float32)
    assert compare.compare_rows(expected, near, accuracy).passed
    # Tiny elements may err by row_ulps of the row's largest (1.0): 2**-23, not more.
    loose = near.copy()
    loose[0, 1] = 2.0**-20 + 2.0**-23
    assert compare.compare_rows(expected, loose, accuracy).passed
    loose[0, 1] = 2.0**-20 + 2.0**-22
    assert not compare.compare_rows(expected, loose, accuracy).passed
    wrong_inf = near.copy()
    wrong_inf[0, 3] = np.float32(3e38)
    assert not compare.compare_rows(expected, wrong_inf, accuracy).passed


def test_softmax_oracle_is_close_to_torch(library: Library) -> None:
    x = torch.randn(16, 100, generator=torch.Generator().manual_seed(1)) * 4
    verdict = compare.judge_shaped(library.get("nn_ops/softmax"), "float32",
                                   {"x": x.numpy()}, {}, torch.softmax(x, -1).numpy())
    assert verdict.passed, verdict.summary()
