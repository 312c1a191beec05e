"""Which aten nodes fuse into which kernels, and why the others stay in torch."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

from fpgakern.compiler import fusion  # noqa: E402
from fpgakern.compiler.build import Validator  # noqa: E402
from fpgakern.compiler.fusion import Fusion  # noqa: E402

from .models import D, MlpBlock, aten_graph  # noqa: E402


@pytest.fixture(scope="module")
def validator():
    v = Validator()
    yield v
    v.close()


def plan_for(validator, fn, *inputs) -> Fusion:
    return fusion.plan(aten_graph(fn, *inputs), validator)


def kernels(plan: Fusion) -> list[tuple[str, list[str]]]:
    return [(s.kind, [n.name for n in s.nodes]) for s in plan.specs]


def left(plan: Fusion) -> dict[str, str]:
    return {u.node.name: u.reason for u in plan.left_out}


def test_mlp_block_fuses_its_pointwise_part_into_two_kernels(validator):
    torch.manual_seed(0)
    plan = plan_for(validator, MlpBlock().eval(), torch.randn(8, D))
    assert kernels(plan) == [
        ("row_map", ["sigmoid", "mul", "add", "add_1", "relu", "native_layer_norm",
                     "getitem"]),
        ("reduction", ["sum_1"]),
    ]
    # The Linear runs on the library's linear kernel, reading the weight through t.
    assert left(plan) == {}
    assert [(m.kernel, m.node.name, [n.name for n in m.absorbed]) for m in plan.matrices] \
        == [("matrix_ops/linear", "addmm", ["t"])]
    first = plan.specs[0]
    assert [n.name for n in first.inputs] == ["addmm", "arg2_1", "arg3_1", "arg4_1",
                                              "arg5_1"]
    assert plan.partitions == 1


def test_a_value_used_twice_ends_its_kernel(validator):
    def f(x, y):
        e = torch.exp(x)
        return e * y, e + 1.0
    plan = plan_for(validator, f, torch.randn(33), torch.randn(33))
    assert kernels(plan) == [("elementwise", ["exp"]), ("elementwise", ["mul"]),
                             ("elementwise", ["add"])]


def test_elementwise_chain_ends_in_a_reduction(validator):
    def f(a, b):
        return (torch.tanh(a) * b - 2.0).sum()
    plan = plan_for(validator, f, torch.randn(5, 7), torch.randn(5, 7))
    assert kernels(plan) == [("reduction", ["tanh", "mul", "sub", "sum_1"])]
    assert "sum(v2_sub)" in plan.specs[0].text and "v0_tanh * in1" in plan.specs[0].text


def test_a_full_reduction_of_a_row_kernel_is_a_kernel_of_its_own(validator):
    def f(x):
        return torch.softmax(x, -1).sum()
    plan = plan_for(validator, f, torch.randn(4, 16))
    assert kernels(plan) == [("row_map", ["_softmax"]), ("reduction", ["sum_1"])]


def test_decomposed_rms_norm_fuses_its_row_statistic(validator):
    w = torch.randn(16)

    def f(x):
        return F.rms_norm(torch.relu(x), [16], w)
    plan = plan_for(validator, f, torch.randn(4, 16))
    assert len(plan.specs) == 1 and plan.specs[0].kind == "row_map", kernels(plan)
    assert "mean(" in plan.specs[0].text


def test_row_reductions_along_the_last_dimension(validator):
    def f(x):
        return x.sum(-1) + x.amax(-1)
    plan = plan_for(validator, f, torch.randn(6, 10))
    assert [k for k, _ in kernels(plan)] == ["row_reduction", "row_reduction",
                                            "elementwise"]


@pytest.mark.parametrize(("fn", "inputs", "node", "reason"), [
    (lambda x: torch.fmod(x, 1.5), [torch.randn(8)], "fmod", "depends on the element's position"),
    (lambda x: torch.softmax(x, 0), [torch.randn(4, 8)], "_softmax", "dim=0"),
    (lambda x: x.sum(0), [torch.randn(4, 8)], "sum_1", "dim=[0]"),
    (lambda x: x * 2, [torch.arange(8, dtype=torch.int32)], "mul", "torch.int32"),
    (lambda x, y: x + y, [torch.randn(4, 8), torch.randn(4, 1)], "add",
     "neither the main tensor"),
    (lambda x: F.layer_norm(x, [4, 8]), [torch.randn(2, 4, 8)], "native_layer_norm",
     "normalized_shape=[4, 8]"),
    (lambda x: torch.div(x, 3.0, rounding_mode="floor"), [torch.randn(8)], "div",
     "rounding_mode"),
    (lambda x: torch.addmm(x, x, x, beta=0), [torch.randn(4, 4)], "addmm",
     "beta=0: torch ignores input"),
    (lambda x: torch.addmm(x[0], x, x), [torch.randn(4, 4)], "addmm",
     "input of shape [4] broadcasts to [4, 4]"),
])
def test_nodes_left_to_torch_say_why(validator, fn, inputs, node, reason):
    plan = plan_for(validator, fn, *inputs)
    reasons = left(plan)
    assert node in reasons, reasons
    assert reason in reasons[node]


def test_matrix_nodes_run_on_the_contraction_kernels(validator):
    def f(x, w, b, y):
        return (torch.mm(x, w.t()), torch.mm(x, y), F.linear(x, w, b),
                torch.addmm(x, x, y, beta=2.0, alpha=0.5), torch.bmm(x[None], y[None]))
    x, w, b, y = torch.randn(4, 6), torch.randn(6, 6), torch.randn(6), torch.randn(6, 6)
    plan = plan_for(validator, f, x, w, b, y)
    got = [(m.kernel, m.zeros, dict(m.scalars)) for m in plan.matrices]
    assert got == [("matrix_ops/linear", (6,), {}),
                   ("matrix_ops/addmm", (4, 6), {"beta": 1.0, "alpha": 1.0}),
                   ("matrix_ops/linear", None, {}),
                   ("matrix_ops/addmm", None, {"beta": 2.0, "alpha": 0.5}),
                   ("matrix_ops/bmm", None, {})]
    assert not any(u.node.target in (torch.ops.aten.t.default,) for u in plan.left_out)


def test_a_relu_of_a_linear_is_the_linear_relu_kernel(validator):
    w, b = torch.randn(6, 5), torch.randn(6)

    def f(x):
        h = F.linear(x, w, b)
        return torch.relu(h), torch.relu(F.linear(x, w, b)) * 2.0, torch.relu(h) + h
    plan = plan_for(validator, f, torch.randn(4, 5))
    got = [(m.kernel, m.node.name, [n.name for n in m.absorbed]) for m in plan.matrices]
    assert got == [("matrix_ops/linear", "addmm", ["t"]),  # h has three users
                   ("matrix_ops/linear_relu", "relu_1", ["t_1", "addmm_1"])]
    assert [n.name for s in plan.specs for n in s.nodes if n.name.startswith("relu")] == \
        ["relu", "relu_2"]


def test_gelu_picks_the_kernel_of_its_approximation(validator):
    plan = plan_for(validator, lambda x: F.gelu(x, approximate="tanh") + F.gelu(x),
                    torch.randn(8))
    text = plan.specs[0].text
    assert "gelu_tanh(" in text and "gelu(" in text


def test_spec_names_are_content_hashes(validator):
    one = plan_for(validator, lambda x: torch.exp(x) * 2.0, torch.randn(8))
    two = plan_for(validator, lambda y: torch.exp(y) * 2.0, torch.randn(8))
    other = plan_for(validator, lambda x: torch.exp(x) * 3.0, torch.randn(8))
    assert one.specs[0].name == two.specs[0].name != other.specs[0].name


def test_a_kernel_keeps_its_spec_when_the_graph_around_it_changes(validator):
    # Node names shift (add -> add_1) when a model gains an op elsewhere; the kernel's
    # spec, and so its name and build cache entry, must not.
    def before(x, y):
        return torch.relu(x + y)

    def after(x, y):
        return torch.relu(x + y), torch.mm(x, y.t())
    one = plan_for(validator, before, torch.randn(4, 4), torch.randn(4, 4))
    two = plan_for(validator, lambda x, y: (x @ y.t(), torch.relu((x * 1.0) + y)),
                   torch.randn(4, 4), torch.randn(4, 4))
    three = plan_for(validator, after, torch.randn(4, 4), torch.randn(4, 4))
    assert one.specs[0].text == three.specs[0].text
    assert one.specs[0].name != two.specs[-1].name  # another computation: x * 1.0 too
