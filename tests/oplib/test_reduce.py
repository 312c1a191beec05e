"""The reduction accumulators (fk_reduce_<dtype>_<op>, generated from the op table around
fk_reduce_core.sv) in Verilator.

Each reduction is checked three ways:
* against the op table's numpy reference: bit for bit for int32 and for fp32 max/min, and
  within the float64 error bound for the fp32 sum and product;
* bit for bit against ``order_model`` below, the documented order of combination (lane
  tree, P interleaved partials, halving combine) written with numpy float32 operations:
  this is the model the HLS C++ generator mirrors;
* for the handshake: random in_valid gaps, tails with lane masks, back-to-back reductions,
  lengths 1, P-1, P, P+1 and long ones, and the measured drain latency (which the op table
  states).
The C++ driver is embedded below; builds are cached like fpgakern.verify.opsim's.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from fpgakern.backends.rtl import reduce, sources
from fpgakern.ir.ops import OPS
from fpgakern.tools.cache import cached_build, key_of
from fpgakern.tools.verilator_build import verilate
from fpgakern.verify import compare, opsim, stimulus

U32 = np.uint32
F32 = np.float32

# (op, dtype) -> (module, default P, combine op latency OPLAT), as the op table must give them
REDUCTIONS = {
    ("sum", "float32"): ("fk_reduce_fp32_sum", 8, 6),
    ("max", "float32"): ("fk_reduce_fp32_max", 1, 1),
    ("min", "float32"): ("fk_reduce_fp32_min", 1, 1),
    ("sum", "int32"): ("fk_reduce_int32_sum", 1, 1),
    ("max", "int32"): ("fk_reduce_int32_max", 1, 1),
    ("min", "int32"): ("fk_reduce_int32_min", 1, 1),
    ("prod", "float32"): ("fk_reduce_fp32_prod", 8, 6),
    ("prod", "int32"): ("fk_reduce_int32_prod", 4, 3),
}

# The index reductions (argmax, argmin; tests at the end of this file).
# (op, dtype) -> module, and the lane count each runs at. The default run simulates the
# two fk_pick variants that the default kernel simulations (argmax float32, argmin int32:
# tests/variant_selection.py) leave out, at 16 lanes; -m slow adds the others.
INDEX_REDUCTIONS = {("argmax", "float32"): ("fk_reduce_fp32_argmax", 1),
                    ("argmin", "float32"): ("fk_reduce_fp32_argmin", 16),
                    ("argmax", "int32"): ("fk_reduce_int32_argmax", 16),
                    ("argmin", "int32"): ("fk_reduce_int32_argmin", 1)}
INDEX_SLOW = {("argmax", "float32"), ("argmin", "int32")}

DRIVER = r"""
// Drives fk_reduce_* : beats from in.bin, optional random in_valid gaps, records results.
// in.bin : uint32 words; per beat: flags (bit 0 last), mask, LANES data words.
// out.bin: per result: out_data, cycle of out_valid, cycle its last beat was taken.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "verilated.h"
#include "Vtop.h"
#include "driver_config.h"

static void set_data(Vtop& m, const uint32_t* d) {
#if LANES == 1
  m.in_data = d[0];
#elif LANES == 2
  m.in_data = (uint64_t(d[1]) << 32) | d[0];
#else
  for (int i = 0; i < LANES; i++) m.in_data[i] = d[i];
#endif
}

int main(int argc, char** argv) {
  FILE* f = fopen(argv[1], "rb");
  std::vector<uint32_t> w;
  uint32_t x;
  while (fread(&x, 4, 1, f) == 1) w.push_back(x);
  fclose(f);
  const int gaps = atoi(argv[3]);
  const size_t stride = 2 + LANES, nbeats = w.size() / stride;
  std::vector<uint32_t> out;
  std::vector<uint64_t> last_taken;
  Vtop m;
  uint32_t rng = 0x12345678u;
  m.clk = 0; m.rst_n = 0; m.in_valid = 0; m.in_last = 0; m.in_mask = 0;
  for (int i = 0; i < 3; i++) { m.clk = 0; m.eval(); m.clk = 1; m.eval(); }
  m.rst_n = 1;
  size_t beat = 0, results = 0, nlast = 0;
  for (size_t i = 0; i < nbeats; i++) nlast += w[i * stride] & 1;
  uint64_t cycle = 0, limit = 200 * (nbeats + 100);
  while (results < nlast && cycle < limit) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
    bool valid = beat < nbeats && !(gaps && rng % 3 == 0);
    m.clk = 0;
    m.in_valid = valid;
    if (beat < nbeats) {
      const uint32_t* b = &w[beat * stride];
      m.in_last = b[0] & 1;
      m.in_mask = b[1];
      set_data(m, b + 2);
    }
    m.eval();
    bool taken = valid && m.in_ready;
    if (taken && (w[beat * stride] & 1)) last_taken.push_back(cycle);
    m.clk = 1; m.eval();
    cycle++;
    if (taken) beat++;
    if (m.out_valid) {
      out.push_back(m.out_data);
      out.push_back(uint32_t(cycle));
      out.push_back(uint32_t(results < last_taken.size() ? last_taken[results] : ~0u));
      results++;
    }
  }
  if (results < nlast) {
    fprintf(stderr, "timeout: %zu of %zu results\n", results, nlast);
    return 1;
  }
  FILE* o = fopen(argv[2], "wb");
  fwrite(out.data(), 4, out.size(), o);
  fclose(o);
  return 0;
}
"""


def _accumulator(module: str) -> reduce.Accumulator:
    op_name, dtype = next(key for key, value in {**REDUCTIONS, **INDEX_REDUCTIONS}.items()
                          if value[0] == module)
    return reduce.accumulator(op_name, dtype)


def _build(module: str, lanes: int, p: int) -> Path:
    acc = _accumulator(module)
    text = reduce.render(acc)  # generated from the op table, as a kernel's rtl/ holds it
    oplib = sources.operator_files(acc.operators)
    key = key_of(DRIVER, module, str(lanes), str(p), *opsim.VERILATOR_FLAGS, text,
                 *(path.name.encode() + b"\0" + path.read_bytes() for path in oplib))

    def build(work: Path) -> None:
        (work / "driver.cpp").write_text(DRIVER)
        (work / acc.file_name).write_text(text)
        verilate(
            work,
            ["--exe", *opsim.VERILATOR_FLAGS, "-Wno-fatal", "--top-module", module,
             f"-GLANES={lanes}", f"-GP={p}", "-o", str(work / "sim"),
             *(str(s) for s in oplib), str(work / acc.file_name), str(work / "driver.cpp")],
            prefix="Vtop", files={"driver_config.h": f"#define LANES {lanes}\n"},
            what=f"verilator build of {module}")

    return cached_build("reduce", f"{module}-L{lanes}-P{p}", key, "sim", build) / "sim"


@dataclass
class Beats:
    """A stream of beats: one row per beat."""

    data: np.ndarray  # (n, LANES) uint32
    mask: np.ndarray  # (n, LANES) bool
    last: np.ndarray  # (n,) bool


def make_beats(reductions: list[np.ndarray], lanes: int, rng: np.random.Generator,
               holes: bool = True) -> Beats:
    """Pack each reduction's elements (uint32 bits) into LANES-wide beats; the tail beat is
    masked, and with ``holes`` some beats carry random masked lanes (and some none)."""
    data, mask, last = [], [], []
    for values in reductions:
        n = values.size
        if holes and lanes > 1 and n > 4 * lanes:
            keep = rng.random((n + lanes) // lanes * lanes * 2) > 0.2
            slots = np.flatnonzero(keep)[:n]  # elements spread over lanes with gaps
            nbeats = slots[-1] // lanes + 1
        else:
            slots = np.arange(n)
            nbeats = max(1, -(-n // lanes))
        d = rng.integers(0, 1 << 32, nbeats * lanes, dtype=U32)  # junk in masked lanes
        m = np.zeros(nbeats * lanes, dtype=bool)
        d[slots] = values
        m[slots] = True
        data.append(d.reshape(nbeats, lanes))
        mask.append(m.reshape(nbeats, lanes))
        lst = np.zeros(nbeats, dtype=bool)
        lst[-1] = True
        last.append(lst)
    return Beats(np.concatenate(data), np.concatenate(mask), np.concatenate(last))


def simulate(module: str, beats: Beats, p: int, gaps: bool = False) -> np.ndarray:
    """Results (uint32) and, per result, cycles from taking the last beat to out_valid."""
    lanes = beats.data.shape[1]
    binary = _build(module, lanes, p)
    words = np.zeros((beats.last.size, 2 + lanes), dtype=U32)
    words[:, 0] = beats.last
    words[:, 1] = (beats.mask.astype(np.uint64) << np.arange(lanes, dtype=np.uint64)).sum(1)
    words[:, 2:] = beats.data
    with tempfile.TemporaryDirectory(prefix="fk-reduce-") as tmp:
        inp, out = Path(tmp) / "in.bin", Path(tmp) / "out.bin"
        words.tofile(inp)
        done = subprocess.run([str(binary), str(inp), str(out), str(int(gaps))],
                              capture_output=True, text=True, check=False)
        if done.returncode:
            raise AssertionError(f"{module} simulation failed: {done.stderr}")
        rows = np.fromfile(out, dtype=U32).reshape(-1, 3)
    return np.stack([rows[:, 0], rows[:, 1] - rows[:, 2]], axis=1)


# --------------------------------------------------------------------------- the order model


def _combine_fn(op_name: str, dtype: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    combine = OPS[OPS[op_name].combine]
    if dtype == "int32":
        return lambda a, b: combine.reference(a.view(np.int32), b.view(np.int32)).view(U32)

    def fp32_op(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        y = combine.reference(a.view(F32), b.view(F32)).view(U32)
        return np.where(np.isnan(y.view(F32)), U32(0x7FC0_0000), y)  # the RTL's NaN

    return fp32_op


def _identity_bits(op_name: str, dtype: str) -> U32:
    value = OPS[op_name].identity[dtype]
    return (np.array([value], F32) if dtype == "float32"
            else np.array([value], np.int32)).view(U32)[0]


def order_model(op_name: str, dtype: str, beats: Beats, p: int) -> np.ndarray:
    """The documented order of combination (fk_reduce_core.sv), with the op table's
    elementwise reference as the operator: the result of each reduction as uint32 bits."""
    op = _combine_fn(op_name, dtype)
    ident = _identity_bits(op_name, dtype)
    lanes = beats.data.shape[1]
    v = np.where(beats.mask, beats.data, ident).astype(U32)
    w = lanes // 2
    while w >= 1:  # lane tree: v[j] = op(v[j], v[j + w])
        v = op(v[:, :w], v[:, w:2 * w])
        w //= 2
    beat_values = v[:, 0]
    ends = np.flatnonzero(beats.last) + 1
    starts = np.concatenate([[0], ends[:-1]])
    results = []
    for s, e in zip(starts, ends, strict=True):
        part = np.full(p, ident, dtype=U32)
        vals = beat_values[s:e]
        for k0 in range(0, vals.size, p):  # p[k % P] = op(p[k % P], beat_k)
            chunk = vals[k0:k0 + p]
            part[:chunk.size] = op(part[:chunk.size], chunk)
        w = p // 2
        while w >= 1:  # combine: p[j] = op(p[j], p[j + w])
            part = op(part[:w], part[w:2 * w])
            w //= 2
        if not beats.mask[s:e].any():
            empty = F32(0.0).view(U32) if (op_name, dtype) == ("sum", "float32") else ident
            results.append(empty)
        else:
            results.append(part[0])
    return np.array(results, dtype=U32)


def _split(values: np.ndarray, lengths: list[int]) -> list[np.ndarray]:
    return np.split(values, np.cumsum(lengths)[:-1])


def check_reference(op_name: str, dtype: str, reductions: list[np.ndarray],
                    got: np.ndarray) -> None:
    """The numpy reference is the oracle: exact, or the float sum's error bound."""
    np_type = F32 if dtype == "float32" else np.int32
    for values, g in zip(reductions, got, strict=True):
        x = values.view(np_type)
        want = OPS[op_name].reference(x).view(U32)[0]
        if OPS[op_name].accuracy_for(dtype).kind == "reduction":
            gf, wf = np.array([g], U32).view(F32)[0], want.view(F32)
            if np.isnan(wf) or np.isinf(wf):
                assert np.isnan(gf) == np.isnan(wf) and (np.isnan(wf) or gf == wf)
                continue
            bound = compare.reduction_bound(x, OPS[op_name].accuracy_for(dtype))
            assert abs(float(gf) - float(wf)) <= bound, (values.size, gf, wf, bound)
        elif dtype == "float32" and np.isnan(want.view(F32)):
            assert g == U32(0x7FC0_0000), hex(g)
        else:
            assert g == want, (values.size, hex(g), hex(want))


# --------------------------------------------------------------------------- data


def _values(op_name: str, dtype: str, n: int, rng: np.random.Generator,
            special: bool) -> np.ndarray:
    if dtype == "int32":
        return opsim.int32_random(rng, n)
    if op_name == "sum" and not special:
        # Mixed scales and signs, subnormals, exact zeros, but no overflow.
        x = rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)
        x[rng.random(n) < 0.05] = 0.0
        bits = x.astype(F32).view(U32)
        sub = rng.random(n) < 0.05
        bits[sub] = rng.integers(0, 1 << 23, int(sub.sum()), dtype=U32) | (
            rng.integers(0, 2, int(sub.sum()), dtype=U32) << U32(31))
        return bits
    if op_name == "prod" and not special:
        # Factors near 1: the partial products stay normal in every order.
        return stimulus.product_values(n, rng).view(U32)
    if special:
        return rng.choice(opsim.fp32_unary_specials(), n)
    return opsim.fp32_random(rng, n)


def _lengths(lanes: int, p: int) -> list[int]:
    """1, L-1, L, L+1 elements, the same around L*P (where the ring wraps), and long ones."""
    per = [1, lanes - 1, lanes, lanes + 1, lanes * p - 1, lanes * p, lanes * p + 1,
           lanes * (2 * p + 3) + 1, 5000]
    return [n for n in per if n >= 1]


# Lane counts in CI: both widths for the order-sensitive fp32 sum and product, one per
# other module, and the other tests reuse these builds (each distinct build costs a few
# seconds the first time).
CI_LANES = {("sum", "float32"): (1, 16), ("max", "float32"): (16,), ("min", "float32"): (1,),
            ("sum", "int32"): (16,), ("max", "int32"): (1,), ("min", "int32"): (16,),
            ("prod", "float32"): (1, 16), ("prod", "int32"): (16,)}
CI_CASES = [(op, dtype, lanes) for (op, dtype), widths in CI_LANES.items() for lanes in widths]


@pytest.mark.parametrize(("op_name", "dtype", "lanes"), CI_CASES)
def test_reduction(op_name, dtype, lanes, rng):
    module, p, _ = REDUCTIONS[(op_name, dtype)]
    lengths = _lengths(lanes, p)
    reductions = [_values(op_name, dtype, n, rng, special=False) for n in lengths]
    beats = make_beats(reductions, lanes, rng)
    got = simulate(module, beats, p, gaps=True)
    np.testing.assert_array_equal(got[:, 0], order_model(op_name, dtype, beats, p))
    check_reference(op_name, dtype, reductions, got[:, 0])


@pytest.mark.parametrize(("op_name", "dtype"), [("sum", "float32"), ("max", "float32"),
                                                ("min", "float32")])
def test_fp32_special_values(op_name, dtype, rng):
    """NaN, +-inf (inf - inf = NaN), +-0 only (-0 sums to -0), subnormals, max floats."""
    module, p, _ = REDUCTIONS[(op_name, dtype)]
    lanes = CI_LANES[(op_name, dtype)][-1]
    reductions = [_values(op_name, dtype, n, rng, special=True) for n in (5, 33, 200)]
    specials = [
        np.array([0x8000_0000] * 5, U32),  # all -0: -0 (sum), -0 (max/min)
        np.array([0x8000_0000, 0x0000_0000, 0x8000_0000], U32),  # mixed zeros
        np.array([0x7F80_0000, 0x3F80_0000], U32),  # +inf
        np.array([0x7F80_0000, 0xFF80_0000], U32),  # inf - inf = NaN
        np.array([0x3F80_0000, 0x7FA0_0001, 0x4000_0000], U32),  # signalling NaN payload
        np.array([0x0000_0001] * 37, U32),  # subnormal sum
        np.array([0x807F_FFFF, 0x0000_0003, 0x8000_0001], U32),
        np.array([0x7F7F_FFFF] * 3, U32),  # overflow to inf in the sum
    ]
    reductions += specials
    beats = make_beats(reductions, lanes, rng)
    got = simulate(module, beats, p)
    np.testing.assert_array_equal(got[:, 0], order_model(op_name, dtype, beats, p))
    # The random special mixes include the largest floats, whose float32 partial sums
    # overflow where the float64 reference does not: for the sum, the order model above
    # is their check. The last hand-made case shows that overflow.
    first = 0 if op_name != "sum" else 3
    check_reference(op_name, dtype, reductions[first:-1], got[first:-1, 0])
    if op_name == "sum":
        assert got[-1, 0] == U32(0x7F80_0000)


def test_all_masked_reduction_gives_empty(rng):
    """A reduction with no valid lane returns +0.0 for the sum, the identity otherwise."""
    for op_name, dtype in [("sum", "float32"), ("max", "int32")]:
        module, p, _ = REDUCTIONS[(op_name, dtype)]
        lanes = CI_LANES[(op_name, dtype)][-1]
        beats = Beats(np.full((3, lanes), 0x4000_0000, U32), np.zeros((3, lanes), bool),
                      np.array([False, False, True]))
        got = simulate(module, beats, p)
        want = U32(0) if op_name == "sum" else _identity_bits(op_name, dtype)
        assert got[0, 0] == want


@pytest.mark.parametrize(("op_name", "dtype"), sorted(REDUCTIONS))
def test_op_table_entry(op_name, dtype):
    """The op table names the module and the drain latency, and gives P (from its combine
    op's latency); the wrapper wires the combine op at the latency the op table gives it."""
    module, p, oplat = REDUCTIONS[(op_name, dtype)]
    impl = OPS[op_name].rtl[dtype]
    assert impl.module == module
    assert OPS[op_name].partials(dtype) == p
    assert OPS[OPS[op_name].combine].rtl[dtype].latency == oplat
    acc = _accumulator(module)
    assert acc.operators == ("fk_reduce_core", OPS[OPS[op_name].combine].rtl[dtype].module)
    text = reduce.render(acc)
    assert f"module {module} #(" in text
    assert f"parameter int P     = {p}" in text
    assert f"localparam int OPLAT    = {oplat};" in text
    assert text.count(f"{acc.combine_module} u_") == 2  # the lane tree's and the ring's


@pytest.mark.parametrize(("op_name", "dtype", "lanes"), [("sum", "float32", 1),
                                                         ("sum", "float32", 16),
                                                         ("max", "int32", 1),
                                                         ("sum", "int32", 16),
                                                         ("prod", "int32", 1)])
def test_drain_latency_matches_op_table(op_name, dtype, lanes, rng):
    """Cycles from taking the last beat to out_valid: the op table's latency for LANES=1,
    plus log2(LANES) * OPLAT for the lane tree; the same with and without input gaps."""
    module, p, oplat = REDUCTIONS[(op_name, dtype)]
    reductions = [_values(op_name, dtype, n, rng, special=False) for n in (1, 50, 3)]
    beats = make_beats(reductions, lanes, rng)
    want = OPS[op_name].rtl[dtype].latency + int(np.log2(lanes)) * oplat
    for gaps in (False, True):
        got = simulate(module, beats, p, gaps=gaps)
        assert list(got[:, 1]) == [want] * 3


SWEEP = [(op, dtype, lanes, REDUCTIONS[(op, dtype)][1]) for op, dtype in sorted(REDUCTIONS)
         for lanes in (1, 2, 16)] + [("sum", "float32", 4, 16)]


@pytest.mark.slow
@pytest.mark.parametrize(("op_name", "dtype", "lanes", "p"), SWEEP)
def test_reduction_sweep(op_name, dtype, lanes, p):
    """Every module at 1, 2 and 16 lanes (and the fp32 sum at other P): ~200k elements in
    many reductions, with and without gaps, plus the special-value mix."""
    rng = np.random.default_rng(lanes * 7 + len(op_name) + p)
    module = REDUCTIONS[(op_name, dtype)][0]
    lengths = list(rng.integers(1, 3 * lanes * p + 2, 300)) + _lengths(lanes, p) + [100_000]
    for special in (False, True):
        reductions = [_values(op_name, dtype, int(n), rng, special) for n in lengths]
        beats = make_beats(reductions, lanes, rng)
        got = simulate(module, beats, p, gaps=special)
        np.testing.assert_array_equal(got[:, 0], order_model(op_name, dtype, beats, p))
        if not special or dtype == "int32" or op_name != "sum":  # see test_fp32_special_values
            check_reference(op_name, dtype, reductions, got[:, 0])


@pytest.mark.parametrize(("op_name", "dtype"), sorted(REDUCTIONS) + sorted(INDEX_REDUCTIONS))
@pytest.mark.parametrize("lanes", [1, 16])
def test_generated_accumulator_lints_clean(op_name, dtype, lanes, tmp_path):
    """The generated accumulator passes verilator --lint-only -Wall like the oplib modules."""
    from fpgakern.tools import verilator

    acc = reduce.accumulator(op_name, dtype)
    path = tmp_path / acc.file_name
    path.write_text(reduce.render(acc))
    result = verilator.lint([*sources.operator_files(acc.operators), path], top=acc.module,
                            options=[f"-GLANES={lanes}"])
    assert result.ok and "%Warning" not in result.output, result.output


# --------------------------------------------------------------------------- index reductions
# argmax and argmin: fk_reduce_core over {value, index} pairs, combined by fk_pick. The
# accumulator's result is the index (the position of the element in its reduction's
# stream of beats: beat k, lane i is k * LANES + i).

_NAN, _QNAN = U32(0x7FA0_0001), U32(0x7FC0_0000)


def _index_cases(dtype: str, lanes: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Reductions whose answer hangs on the pick's rules: ties (all equal, the extreme
    repeated in other lanes and beats), NaN (first of several, in a later beat than an
    extreme), +-inf, -0 and +0, the int32 extremes, and random data of odd lengths."""
    if dtype == "int32":
        lo, hi = U32(0x8000_0000), U32(0x7FFF_FFFF)
        cases = [np.full(37, hi, U32), np.full(5, lo, U32),
                 np.array([0, hi, 5, hi, lo, lo], U32), np.array([lo, 1, hi, lo, hi], U32)]
    else:
        inf, ninf, zero, nzero = U32(0x7F80_0000), U32(0xFF80_0000), U32(0), U32(0x8000_0000)
        cases = [np.full(37, U32(0x3F80_0000), U32), np.array([nzero, zero, nzero], U32),
                 np.array([zero, nzero, zero], U32), np.array([inf, ninf, inf, ninf], U32),
                 np.array([ninf] * 3, U32),
                 np.concatenate([np.full(2 * lanes + 1, inf, U32), [_NAN, _QNAN, _NAN]]),
                 np.array([U32(0x3F80_0000), _QNAN, ninf, _NAN], U32)]
    for n in (1, 3, 17, lanes + 1, 300):
        x = opsim.int32_random(rng, n) if dtype == "int32" else opsim.fp32_random(rng, n)
        x[rng.integers(0, n, 3)] = x[rng.integers(0, n)]  # repeats of one value
        cases.append(x)
    # the extremes repeated in several lanes and beats of a longer stream
    x = rng.integers(0x3F80_0000, 0x3F90_0000, 5 * lanes + 3, dtype=U32)
    x[[1, lanes + 1, 3 * lanes + 2]] = U32(0x4000_0000)
    x[[2, lanes + 2, 4 * lanes]] = U32(0x3F00_0000)
    cases.append(x)
    return cases


@pytest.mark.parametrize(("op_name", "dtype"), [
    pytest.param(*key, marks=pytest.mark.slow if key in INDEX_SLOW else ())
    for key in sorted(INDEX_REDUCTIONS)])
def test_index_reduction(op_name, dtype, rng):
    """The index each reduction returns is the reference's (torch's argmax/argmin: the
    first NaN, else the first extreme with -0 == +0), with gaps in in_valid, and the drain
    takes the op table's latency plus log2(LANES) cycles of fk_pick."""
    module, lanes = INDEX_REDUCTIONS[(op_name, dtype)]
    op = OPS[op_name]
    assert _accumulator(module).operators == ("fk_reduce_core", "fk_pick")
    reductions = _index_cases(dtype, lanes, rng)
    beats = make_beats(reductions, lanes, rng, holes=False)
    np_type = F32 if dtype == "float32" else np.int32
    want = [int(op.reference(x.view(np_type))[0]) for x in reductions]
    for gaps in (False, True):
        got = simulate(module, beats, op.partials(dtype), gaps=gaps)
        assert list(got[:, 0]) == want
        assert set(got[:, 1]) == {op.rtl[dtype].latency + int(np.log2(lanes))}
