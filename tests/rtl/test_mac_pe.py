"""The contraction PE (fk_mac_pe) in Verilator: each output's products summed in the
declared order (64 strided partials, then the fixed pairwise tree), bit for bit with
fpgakern.verify.matmul, float32 and int32, one output at a time and several interleaved
over its slots, at one product per cycle; on random and special values (inf, NaN, -0,
subnormals, overflow, int32 extremes) and K across the partials' stride (1 to 1000). The
check can fail: a PE whose tree adds the odd last instead of passing it up differs."""

from __future__ import annotations

import re

import numpy as np
import pytest

from fpgakern.backends.rtl import pe, sources
from fpgakern.verify import pesim

pytest.importorskip("cocotb")  # the RTL tools' extra: the simulations need Verilator

KS = [1, 2, 3, 5, 63, 64, 65, 127, 128, 200, 0, 1000]
FLOAT_SPECIALS = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e-45, -3e-39, 1.17e-38,
                           3e38, -3e38, 1.0, -1.5, 2.0 ** 70, -(2.0 ** -70)], np.float32)
INT_SPECIALS = np.array([-2 ** 31, 2 ** 31 - 1, -1, 0, 1, 65536], np.int64)


def _operands(dtype: str, special: bool, seed: int, slots: int = 1) -> tuple[list, list]:
    """Each K of KS for ``slots`` outputs in a row (a PE's slots share their K)."""
    rng = np.random.default_rng(seed)
    if dtype == "int32":
        def draw(k: int) -> np.ndarray:
            if special:
                return rng.choice(INT_SPECIALS, k).astype(np.int32)
            return rng.integers(-2 ** 31, 2 ** 31, k, dtype=np.int64).astype(np.int32)
    else:
        def draw(k: int) -> np.ndarray:
            if special:
                return rng.choice(FLOAT_SPECIALS, k)
            return rng.standard_normal(k).astype(np.float32)
    ks = [k for k in KS for _ in range(slots)]
    return [draw(k) for k in ks], [draw(k) for k in ks]


# Three of the six by default (the kernels' RTL simulations run the PE too), all under
# -m slow. Two banks: the trees on their own adder (the harness uses bank 0).
@pytest.mark.parametrize(("dtype", "slots", "banks"), [
    ("float32", 1, 1), ("int32", 4, 1), ("float32", 4, 2),
    pytest.param("float32", 4, 1, marks=pytest.mark.slow),
    pytest.param("int32", 1, 1, marks=pytest.mark.slow),
    pytest.param("int32", 4, 2, marks=pytest.mark.slow)])
def test_the_pe_sums_in_the_declared_order(dtype, slots, banks):
    for special in (False, True):
        a, b = _operands(dtype, special, seed=slots, slots=slots)
        result = pesim.run(a, b, dtype, slots, banks)
        want = pesim.expected(a, b, dtype)
        assert pesim.mismatches(result.results, want) == 0, (special, result.results, want)
    # One product per cycle: the products, then one pass of trees per group of slots
    # (63 adds a slot, six levels' settling).
    assert result.cycles < slots * sum(KS) + len(KS) * (slots * 64 + 200)


def test_a_minus_zero_product_survives_k1():
    result = pesim.run([np.array([-0.0], np.float32)], [np.array([1.0], np.float32)],
                       "float32")
    assert np.signbit(result.results[0])


@pytest.mark.slow
def test_the_pe_check_can_fail(monkeypatch, tmp_path):
    """The tree's odd last added to the one before instead of passed up: K = 3 and 65
    (three partials) come out in another order, and the comparison sees it."""
    source = sources.LIB_DIR / "fk_mac_pe.sv"
    text, count = re.subn(r"assign tree_copy  = tree_issue && pair == half;",
                          "assign tree_copy  = 1'b0;", source.read_text())
    assert count == 1
    mutated = tmp_path / "lib"
    mutated.mkdir()
    (mutated / "fk_mac_pe.sv").write_text(text)
    original = pe.pe_sources
    monkeypatch.setattr(pe, "pe_sources",
                        lambda dtype: [mutated / "fk_mac_pe.sv", *original(dtype)[1:]])
    rng = np.random.default_rng(3)
    ks = [3, 65, 5]
    a = [rng.standard_normal(k).astype(np.float32) for k in ks]
    b = [rng.standard_normal(k).astype(np.float32) for k in ks]
    result = pesim.run(a, b, "float32")
    assert pesim.mismatches(result.results, pesim.expected(a, b, "float32")) > 0


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_the_pe_lints_clean(dtype):
    from fpgakern.tools import verilator

    for slots, banks in ((1, 1), (8, 1), (8, 2)):
        params = pe.pe_parameters(dtype, slots, banks)
        result = verilator.lint(pe.pe_sources(dtype), top=pe.PE,
                                options=[f"-G{k}={v}" for k, v in params.items()])
        assert result.ok, result.output
