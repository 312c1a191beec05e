"""The bit-exact elementwise operators of issue 14 (trunc, floor, ceil, round, sign,
copysign, reciprocal, clamp, where): first the op table's references against torch itself on
special values (so the oracle is torch's answer, not a reading of its documentation),
then the RTL operators against the references bit for bit. Latency and II=1 of every
operator: test_latency.py; lint: test_lint.py; 1M-vector sweeps: benchmarks/operator_sweep.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from fpgakern.ir.ops import OPS
from fpgakern.verify import opsim

torch = pytest.importorskip("torch")

U32 = np.uint32
N_RANDOM = 20_000
FP32_UNARY = ["trunc", "floor", "ceil", "round", "sign", "reciprocal"]
INT32_UNARY = ["trunc", "floor", "ceil", "round", "sign"]
TORCH = {"trunc": torch.trunc, "floor": torch.floor, "ceil": torch.ceil,
         "round": torch.round, "sign": torch.sign, "reciprocal": torch.reciprocal,
         "copysign": torch.copysign, "clamp": torch.clamp}


def _same(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Equal bits; any NaN matches any NaN (payloads are free, docs/operators.md)."""
    if ours.dtype.kind != "f":
        return ours == theirs
    return (np.isnan(ours) & np.isnan(theirs)) | (ours.view(U32) == theirs.view(U32))


def _torch(name: str, *operands: np.ndarray, step: int = 1) -> np.ndarray:
    """torch's answer on whole arrays (its vectorized path) or, with ``step``, on every
    step-th element alone (its scalar path)."""
    fn = TORCH[name]
    if step == 1:
        return fn(*(torch.from_numpy(x) for x in operands)).numpy()
    return np.concatenate([fn(*(torch.from_numpy(x[i:i + 1]) for x in operands)).numpy()
                           for i in range(0, operands[0].size, step)])


def _near_integers(rng: np.random.Generator) -> np.ndarray:
    """Integers, half-integers (the ties of round) and values one ulp either side of
    them, at every magnitude up to 2^24, both signs, as float32 bits."""
    ints = np.concatenate([np.arange(-40, 41), rng.integers(-(1 << 24), 1 << 24, 3000),
                           2 ** np.arange(24), -(2 ** np.arange(24))]).astype(np.float32)
    halves = np.concatenate([ints + np.float32(0.5), ints - np.float32(0.5)])
    values = np.concatenate([ints, halves]).view(U32)
    return np.concatenate([values, values + U32(1), values - U32(1)])


@pytest.mark.parametrize("op_name", FP32_UNARY)
def test_fp32_reference_is_torch(op_name):
    x = np.concatenate([opsim.fp32_unary_specials(),
                        _near_integers(np.random.default_rng(3))]).view(np.float32)
    ours = OPS[op_name].reference(x)
    assert _same(ours, _torch(op_name, x)).all()
    assert _same(ours[::7], _torch(op_name, x, step=7)).all()


@pytest.mark.parametrize("op_name", INT32_UNARY)
def test_int32_reference_is_torch(op_name):
    x = opsim.INT32_SPECIALS.view(np.int32)
    theirs = _torch(op_name, x)
    assert theirs.dtype == np.int32 and (OPS[op_name].reference(x) == theirs).all()


def test_copysign_reference_is_torch():
    a, b = (v.view(np.float32) for v in opsim.fp32_binary_specials(np.random.default_rng(1)))
    assert _same(OPS["copysign"].reference(a, b), _torch("copysign", a, b)).all()


def test_clamp_reference_is_torch_but_for_zeros_of_both_signs():
    """torch.clamp(x, lo, hi) with tensors: NaN anywhere gives NaN, lo > hi gives hi. Over
    zeros of opposite sign torch's pick depends on its code path (whole tensors and single
    elements differ); the op table orders -0 < +0, as maximum and minimum do."""
    a, b, c = (v.view(np.float32) for v in opsim.fp32_ternary_specials(np.random.default_rng(1)))
    ours = OPS["clamp"].reference(a, b, c)
    for step, theirs in ((1, _torch("clamp", a, b, c)), (9, _torch("clamp", a, b, c, step=9))):
        mine = ours[::step]
        differ = ~_same(mine, theirs)
        assert ((mine == 0) & (theirs == 0))[differ].all()
        assert differ.sum() < 100
    named = opsim.fp32_named().view(np.float32)
    lo, hi = np.float32(-1.0), np.float32(1.0)
    with np.errstate(invalid="ignore"):
        inside = ~np.isnan(named) & (named > lo) & (named < hi)
    got = OPS["clamp"].reference(named, np.full_like(named, lo), np.full_like(named, hi))
    assert np.isnan(got[np.isnan(named)]).all() and (got[inside] == named[inside]).all()
    ints = opsim.INT32_SPECIALS.view(np.int32)
    x, y, z = (g.reshape(-1) for g in np.meshgrid(ints, ints, ints[::3], indexing="ij"))
    assert (OPS["clamp"].reference(x, y, z) == _torch("clamp", x, y, z)).all()


def _conditions(rng: np.random.Generator, n: int) -> np.ndarray:
    """where's condition operand: the 1-bit port's value, 0 or 1, as uint32."""
    return rng.integers(0, 2, n, dtype=U32)


def test_where_reference_is_torch(rng):
    """torch.where passes the chosen operand's bits: NaN payloads, -0 and subnormals."""
    a, b = opsim.fp32_binary_specials(rng)
    cond = _conditions(rng, a.size) != 0
    theirs = torch.where(torch.from_numpy(cond), torch.from_numpy(a.view(np.float32)),
                         torch.from_numpy(b.view(np.float32))).numpy()
    ours = OPS["where"].reference(cond, a.view(np.float32), b.view(np.float32))
    assert (ours.view(U32) == theirs.view(U32)).all()  # payloads too: a multiplexer
    x, y = (v.view(np.int32) for v in opsim.int32_binary_specials())
    cond = _conditions(rng, x.size) != 0
    theirs = torch.where(torch.from_numpy(cond), torch.from_numpy(x), torch.from_numpy(y))
    assert (OPS["where"].reference(cond, x, y) == theirs.numpy()).all()


def test_leaky_relu_is_where_of_a_product():
    """leaky_relu's kernel, where(x > 0, x, negative_slope * x), is torch's CPU answer bit
    for bit on every special value, whole tensors and single elements alike."""
    x = np.concatenate([opsim.fp32_unary_specials(),
                        opsim.fp32_random(np.random.default_rng(5), 20_000)]).view(np.float32)
    for slope in (0.01, -2.5, 0.0, 1e-30, 3e38):
        s = np.full_like(x, slope)
        ours = OPS["where"].reference(OPS["gt"].reference(x, np.zeros_like(x)), x,
                                      OPS["mul"].reference(s, x))
        fn = torch.nn.functional.leaky_relu
        assert _same(ours, fn(torch.from_numpy(x), slope).numpy()).all()
        single = np.concatenate([fn(torch.from_numpy(x[i:i + 1]), slope).numpy()
                                 for i in range(0, x.size, 97)])
        assert _same(ours[::97], single).all()


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_where_rtl(dtype, rng, check_op):
    if dtype == "float32":
        a, b = opsim.fp32_binary_specials(rng)
    else:
        a, b = opsim.int32_binary_specials()
    check_op("where", dtype, [_conditions(rng, a.size), a, b])


@pytest.mark.parametrize("op_name", FP32_UNARY)
def test_fp32_unary_rtl(op_name, rng, check_op):
    values = np.concatenate([opsim.fp32_unary_specials(), _near_integers(rng),
                             opsim.fp32_random(rng, N_RANDOM)])
    assert check_op(op_name, "float32", [values]) > 30_000


@pytest.mark.parametrize("op_name", INT32_UNARY)
def test_int32_unary_rtl(op_name, rng, check_op):
    values = np.concatenate([opsim.INT32_SPECIALS, opsim.int32_random(rng, N_RANDOM)])
    check_op(op_name, "int32", [values])


def test_fp32_copysign_rtl(rng, check_op):
    a, b = opsim.fp32_binary_specials(rng)
    check_op("copysign", "float32", [a, b])


def test_fp32_clamp_rtl(rng, check_op):
    """Every named triple, every exponent pair with nearby bounds, and random triples
    in which lo and hi are often equal, swapped or equal to x."""
    a, b, c = opsim.fp32_ternary_specials(rng)
    x, lo, hi = (opsim.fp32_random(rng, N_RANDOM) for _ in range(3))
    lo[::4], hi[1::4], hi[2::4] = x[::4], x[1::4], lo[2::4]
    assert check_op("clamp", "float32", [np.concatenate([a, x]), np.concatenate([b, lo]),
                                         np.concatenate([c, hi])]) > 350_000


def test_int32_clamp_rtl(rng, check_op):
    ints = opsim.INT32_SPECIALS
    x, lo, hi = (g.reshape(-1) for g in np.meshgrid(ints, ints, ints, indexing="ij"))
    random = [opsim.int32_random(rng, N_RANDOM) for _ in range(3)]
    check_op("clamp", "int32", [np.concatenate([x, random[0]]),
                                np.concatenate([lo, random[1]]),
                                np.concatenate([hi, random[2]])])


def test_fp32_rounding_rules():
    """Named cases, bit for bit: signed zeros, ties to even, the largest non-integral
    values, subnormals, and the carry into the next binade."""
    cases = {  # x: (trunc, floor, ceil, round)
        -0.5: (-0.0, -1.0, -0.0, -0.0), 0.5: (0.0, 0.0, 1.0, 0.0),
        1.5: (1.0, 1.0, 2.0, 2.0), 2.5: (2.0, 2.0, 3.0, 2.0), -2.5: (-2.0, -3.0, -2.0, -2.0),
        0.50000006: (0.0, 0.0, 1.0, 1.0), -1e-45: (-0.0, -1.0, -0.0, -0.0),
        1e-45: (0.0, 0.0, 1.0, 0.0), 8388607.5: (8388607.0, 8388607.0, 8388608.0, 8388608.0),
        -8388606.5: (-8388606.0, -8388607.0, -8388606.0, -8388606.0),
        1.9999999: (1.0, 1.0, 2.0, 2.0), -0.0: (-0.0, -0.0, -0.0, -0.0),
    }
    x = np.array(list(cases), dtype=np.float32).view(U32)
    for i, name in enumerate(("trunc", "floor", "ceil", "round")):
        impl = OPS[name].rtl["float32"]
        want = np.array([v[i] for v in cases.values()], dtype=np.float32).view(U32)
        got = opsim.simulate_operator(impl.module, [x], impl.latency)
        assert [hex(g) for g in got] == [hex(w) for w in want], name


@pytest.mark.slow
@pytest.mark.parametrize("op_name", FP32_UNARY)
def test_fp32_unary_1m(op_name, rng, check_op):
    check_op(op_name, "float32", [opsim.fp32_random(rng, 1_000_000)])
