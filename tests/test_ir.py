"""The expression parser, the type checker and the op table's references."""

from __future__ import annotations

import re

import numpy as np
import pytest

from fpgakern.ir import expr
from fpgakern.ir.ops import OPS
from fpgakern.verify import compare

F, INT = "float32", "int32"


def parse(text, inputs=("a", "b"), scalars=("alpha",), dtype=F):
    return expr.parse(text, dict.fromkeys(inputs, dtype), dict.fromkeys(scalars, dtype))


def test_precedence_and_typing():
    root = parse("a + alpha * b")
    assert expr.to_text(root) == "add(a, mul(alpha, b))"
    assert root.dtype == F


def test_literals_take_the_operand_type():
    root = parse("a * 2", scalars=(), inputs=("a",))
    const = root.args[1]
    assert isinstance(const, expr.Const) and const.dtype == F and const.value == 2.0


def test_negative_literal_folds():
    root = parse("maximum(a, -1)", inputs=("a",), scalars=(), dtype=INT)
    assert root.args[1] == expr.Const(INT, -1)


def test_three_operand_call_and_negated_scalar():
    root = parse("fma(-alpha, b, a)")
    assert expr.to_text(root) == "fma(neg(alpha), b, a)"
    assert root.op is OPS["fma"] and root.dtype == F
    literals = parse("fma(2, a, 1)", inputs=("a",), scalars=(), dtype=INT)
    assert literals.args[0] == expr.Const(INT, 2) and literals.args[2] == expr.Const(INT, 1)


def test_comparison_yields_bool_for_where():
    root = parse("where(a < b, a, 0)", scalars=())
    assert root.dtype == F and root.args[0].dtype == "bool"
    assert root.args[2] == expr.Const(F, 0.0)
    # literal values take the type the comparison compares
    assert parse("where(a < 1, 2, 3)", scalars=(), dtype=INT).dtype == INT
    assert parse("where(a < b, 2, 3)", scalars=()).args[1] == expr.Const(F, 2.0)


@pytest.mark.parametrize(("text", "message"), [
    ("a < b", "'lt(a, b)' is a comparison, whose bool no output holds"),
    ("(a < b) + a", "comparison 'lt(a, b)' as operand 1 of add()"),
    ("where(a < b, a < b, a)", "comparison 'lt(a, b)' as operand 2 of where()"),
    ("where(a, a, b)", "where() takes a comparison as its first operand"),
    ("where(a < b, a, to_int32(b))", "type mismatch in where"),
    ("maximum(a > b, a)", "comparison 'gt(a, b)' as operand 1 of maximum()"),
])
def test_a_comparison_is_only_a_condition(text, message):
    with pytest.raises(expr.ExprError, match=re.escape(message)):
        parse(text, scalars=())


def test_conversion_changes_dtype():
    root = parse("to_float32(a)", inputs=("a",), scalars=(), dtype=INT)
    assert root.dtype == F


@pytest.mark.parametrize(("text", "dtype", "message"), [
    ("a + c", F, "unknown name 'c'"),
    ("sqrt(a)", INT, "op sqrt is not defined for int32"),
    ("a + to_float32(b)", INT, "type mismatch in add: operands are float32 and int32"),
    ("a ** b", F, "unsupported syntax"),
    ("exp(a, b)", F, "exp() takes 1 operand(s), got 2"),
    ("fma(a, b)", F, "fma() takes 3 operand(s), got 2"),
    ("fma(a, b, to_float32(a))", INT, "type mismatch in fma"),
    ("sum(a) + b", F, "may only stand at the root"),
    ("sum(sum(a))", F, "may only stand at the root"),
    ("3", F, "constant"),
    ("alpha * 2", F, "uses no tensor input"),
    ("a +", F, "cannot parse"),
])
def test_errors(text, dtype, message):
    with pytest.raises(expr.ExprError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("*", r"\*").replace("+", r"\+")):
        parse(text, dtype=dtype)


def test_reduction_root():
    root = parse("sum(a * b)", scalars=())
    assert expr.reduction_of(root) is OPS["sum"]


# --------------------------------------------------------------------------- references

def f32(*values):
    return np.array(values, dtype=np.float32)


def bits(x):
    return x.view(np.uint32).tolist()


def test_maximum_propagates_nan_and_orders_zeros():
    out = OPS["maximum"].reference(f32(np.nan, 1, -0.0, 0.0), f32(1, np.nan, 0.0, -0.0))
    assert np.isnan(out[:2]).all()
    assert bits(out[2:]) == bits(f32(0.0, 0.0))
    low = OPS["minimum"].reference(f32(-0.0, 0.0), f32(0.0, -0.0))
    assert bits(low) == bits(f32(-0.0, -0.0))


def test_int_division_truncates_like_torch():
    a = np.array([7, -7, 7, -7, 5, np.iinfo(np.int32).min], dtype=np.int32)
    b = np.array([2, 2, -2, -2, 0, -1], dtype=np.int32)
    assert OPS["div"].reference(a, b).tolist() == [3, -3, -3, 3, -1, np.iinfo(np.int32).min]


def test_int_arithmetic_wraps():
    big = np.array([np.iinfo(np.int32).max], dtype=np.int32)
    assert OPS["add"].reference(big, np.array([1], np.int32)).tolist() == [np.iinfo(np.int32).min]
    assert OPS["abs"].reference(np.array([np.iinfo(np.int32).min], np.int32)).tolist() == [
        np.iinfo(np.int32).min]


def test_relu_keeps_nan_and_negative_zero_like_torch():
    out = OPS["relu"].reference(f32(np.nan, -0.0, -3, 2))
    assert np.isnan(out[0]) and bits(out[1:]) == bits(f32(-0.0, 0.0, 2))


def test_to_int32_out_of_range_is_int_min():
    out = OPS["to_int32"].reference(f32(np.nan, 3e9, -3e9, -2.7, 2.7))
    assert out.tolist() == [-(2**31), -(2**31), -(2**31), -2, 2]


def test_shifts_follow_torch_out_of_range_rules():
    a = np.array([1, -8, 1, -8], np.int32)
    b = np.array([33, 40, -1, 2], np.int32)
    assert OPS["shl"].reference(a, b).tolist() == [0, 0, 0, -32]
    assert OPS["shr"].reference(a, b).tolist() == [0, -1, 0, -2]


def test_reductions():
    x = f32(1, 2, 3)
    assert OPS["sum"].reference(x).tolist() == [6.0]
    assert np.isnan(OPS["max"].reference(f32(1, np.nan, 3))[0])
    assert bits(OPS["max"].reference(f32(-0.0, 0.0))) == bits(f32(0.0))
    assert bits(OPS["min"].reference(f32(0.0, -0.0))) == bits(f32(-0.0))


def test_every_op_reference_runs_on_its_dtypes():
    for entry in OPS.values():
        for dtype in entry.dtypes:
            args = [np.arange(1, 5).astype(dtype)] * entry.arity
            out = entry.reference(*args)
            assert out.size in (1, 4), entry.name


# --------------------------------------------------------------------------- comparison

def test_compare_exact_nan_and_zero_signs():
    ok = compare.compare(f32(np.nan, 1), f32(np.nan, 1), compare.Accuracy("exact"))
    assert ok.passed
    bad = compare.compare(f32(0.0, 1), f32(-0.0, 1), compare.Accuracy("exact"))
    assert not bad.passed and bad.mismatches[0].index == 0
    assert "0x80000000" in bad.summary()


def test_compare_ulp_bound():
    x = f32(1.0)
    two_up = (x.view(np.uint32) + 2).view(np.float32)
    three_up = (x.view(np.uint32) + 3).view(np.float32)
    assert compare.compare(x, two_up, compare.Accuracy("ulp", 2)).passed
    assert not compare.compare(x, three_up, compare.Accuracy("ulp", 2)).passed


def test_ulp_distance_across_zero():
    assert compare.ulp_distance(f32(-0.0), f32(0.0)).tolist() == [1]
    tiny = np.finfo(np.float32).smallest_subnormal
    assert compare.ulp_distance(f32(-tiny), f32(tiny)).tolist() == [3]


def test_compare_reduction_bound():
    data = np.ones(1000, np.float32)
    assert compare.compare(f32(1000), f32(1000.0001), compare.Accuracy("reduction"), data).passed
    assert not compare.compare(f32(1000), f32(999), compare.Accuracy("reduction"), data).passed


# --------------------------------------------------------------------------- complex64


def _complex_graph(text: str, scalars: dict[str, str] | None = None) -> expr.Node:
    return expr.parse(text, {"a": "complex64", "b": "complex64"}, scalars or {})


def test_real_operands_of_complex_ops_are_promoted_explicitly():
    """A float32 scalar meeting complex64 operands is promoted by an explicit to_complex64
    node, after what it computes in float32: sub's -alpha is negated, then promoted."""
    root = _complex_graph("fma(-alpha, b, a)", {"alpha": "float32"})
    assert expr.to_text(root) == "fma(to_complex64(neg(alpha)), b, a)"
    assert root.dtype == "complex64"
    literal = _complex_graph("a * 2.5")
    assert isinstance(literal, expr.Apply) and literal.args[1] == expr.Const("complex64", 2.5)


@pytest.mark.parametrize(("text", "scalars", "message"), [
    ("maximum(a, b)", {}, "op maximum is not defined for complex64"),
    ("a < b", {}, "op lt is not defined for complex64"),
    ("a * k", {"k": "int32"}, "type mismatch in mul: operands are complex64 and int32"),
    ("sum(a)", {}, "op sum is not defined for complex64"),
])
def test_complex_errors(text, scalars, message):
    with pytest.raises(expr.ExprError, match=re.escape(message)):
        _complex_graph(text, scalars)


def test_complex_references_are_component_operations():
    """The references never use numpy's complex operators: (inf + 0i) * (1 + 0i) is
    (inf*1 - 0*0) + (inf*0 + 0*1)i = inf + NaN i (torch's vectorized multiply), where a
    C99 Annex G multiply (numpy's, g++'s std::complex) would keep a real infinity."""
    x = np.array([complex(np.inf, 0)], np.complex64)
    one = np.array([1 + 0j], np.complex64)
    product = OPS["mul"].reference(x, one)
    assert product.real[0] == np.inf and np.isnan(product.imag[0])
    conj = OPS["conj"].reference(np.array([complex(1, 0)], np.complex64))
    assert np.signbit(conj.imag[0])  # -0: a sign flip, not 0 - im
