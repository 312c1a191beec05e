"""C simulation as Vitis-built float hardware computes: subnormals flushed to zero.

``csim.run(..., flush_subnormals=True)`` compiles the same generated kernel with the
stand-in headers' flush define and judges it against ``verify.flush``'s reference. These
tests run the real g++ build and the real testbench.
"""

from __future__ import annotations

import numpy as np
import pytest

from fpgakern.backends.hls import generate
from fpgakern.ir.ops import OPS
from fpgakern.ladder import plan
from fpgakern.verify import csim, flush, reference
from fpgakern.verify.stimulus import Case

TINY = np.finfo(np.float32).smallest_subnormal
MIN_NORMAL = np.finfo(np.float32).tiny


def _bits(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def test_flush_zeroes_subnormals_keeping_their_sign():
    x = np.array([TINY, -TINY, MIN_NORMAL - TINY, MIN_NORMAL, -0.0, 1.5, np.inf, np.nan],
                 dtype=np.float32)
    out = flush.flush(x)
    assert list(_bits(out)[:4]) == [0, 0x8000_0000, 0, 0x0080_0000]
    assert np.array_equal(_bits(out)[4:7], _bits(x)[4:7]) and np.isnan(out[7])


def test_a_product_that_rounds_up_to_the_smallest_normal_is_flushed():
    # (1 - 2**-24) * 2**-126 lies half a subnormal step below 2**-126 and rounds (to
    # even) up to it in IEEE; x86's flush-to-zero, which the flushing csim runs with,
    # judges tininess before rounding and flushes it.
    a = np.array([1 - 2.0**-24], dtype=np.float32)
    b = np.array([MIN_NORMAL], dtype=np.float32)
    assert OPS["mul"].reference(a, b)[0] == MIN_NORMAL
    assert _bits(flush.apply(OPS["mul"], [a, b]))[0] == 0


def test_maximum_selects_raw_operands_after_a_flushed_comparison():
    a = np.array([TINY, -TINY, -TINY, 1.0], dtype=np.float32)
    b = np.array([0.0, -0.0, 2 * TINY, TINY], dtype=np.float32)
    out = flush.apply(OPS["maximum"], [a, b])
    # ties (both zero once flushed) follow fk::maximum: signbit(a) ? b : a
    assert list(_bits(out)) == list(_bits(np.array([TINY, -0.0, 2 * TINY, 1.0],
                                                   dtype=np.float32)))


def test_remainder_flushes_the_fmod_result_before_the_sign_check():
    """fk::remainder is hls::fmod, then + b where the signs differ: a subnormal fmod result
    is flushed to a zero of its sign first and takes no correction, where the op's IEEE
    reference (and a flush of its operands and result alone) adds b."""
    a = np.array([-(2.0**-125 + 2.0**-140), -1.0, -(2.0**-125 + 2.0**-140), -3 * TINY],
                 dtype=np.float32)
    b = np.array([2.0**-125, 1.5 * MIN_NORMAL, -(2.0**-125), 1.0], dtype=np.float32)
    ieee = OPS["remainder"].reference(a, b)
    assert ieee[0] == np.float32(2.0**-125 - 2.0**-140)
    assert _bits(flush._flushed(OPS["remainder"], [a, b]))[0] == _bits(ieee)[0]
    out = flush.apply(OPS["remainder"], [a, b])
    # -2**-140 flushed, no correction: -0. -1 mod 1.5 MIN_NORMAL is -MIN_NORMAL (normal),
    # and the correction's sum, MIN_NORMAL / 2, is flushed by the add: +0. -2**-140 with
    # b's sign: flushed, -0. A subnormal a counts as -0: -0.
    assert list(_bits(out)) == [0x8000_0000, 0, 0x8000_0000, 0x8000_0000]


@pytest.fixture(scope="module")
def add_rung2(library, tmp_path_factory):
    p = plan(library.get("binary_ops/add"), 2, "float32")
    return p, generate(p, tmp_path_factory.mktemp("add2"))


def _subnormal_case() -> Case:
    a = np.array([TINY, -TINY, 3 * TINY, 1.0, MIN_NORMAL, 2.0, -MIN_NORMAL, 0.0],
                 dtype=np.float32)
    b = np.array([0.0, 0.0, -TINY, TINY, -TINY, 3.0, TINY, -0.0], dtype=np.float32)
    return Case("subnormal_inputs", {"a": a, "b": b}, {"alpha": 1.0})


def test_flushing_csim_differs_from_the_default_exactly_as_flushing_predicts(
        add_rung2, tmp_path):
    p, sources = add_rung2
    case = _subnormal_case()
    ieee = csim.run(p, sources, [case], tmp_path / "ieee")
    flushed = csim.run(p, sources, [case], tmp_path / "flush", flush_subnormals=True)
    assert ieee.passed, ieee.summary()
    assert flushed.passed, flushed.summary()  # against the flushing reference
    out_ieee = np.fromfile(tmp_path / "ieee" / "out0.bin", dtype=np.float32)
    out_flush = np.fromfile(tmp_path / "flush" / "out0.bin", dtype=np.float32)
    want_ieee = reference.expected_output(p.kernel, "float32", case)
    want_flush = flush.expected_output(p.kernel, "float32", case)
    assert np.array_equal(_bits(out_ieee), _bits(want_ieee))
    assert np.array_equal(_bits(out_flush), _bits(want_flush))
    differs = _bits(out_ieee) != _bits(out_flush)
    # Each sum with a subnormal operand or result changes: TINY + 0 and 3 TINY - TINY
    # give +0; -TINY + 0 is -0 + +0 once flushed, +0; MIN_NORMAL - TINY loses its
    # subnormal operand before the add and stays MIN_NORMAL (IEEE gives a subnormal),
    # likewise -MIN_NORMAL + TINY. 1 + TINY (rounds to 1 either way), 2 + 3 and 0 + -0 do
    # not change.
    assert list(np.flatnonzero(differs)) == [0, 1, 2, 4, 6]
    assert list(_bits(out_flush)[[0, 1, 2, 4, 6]]) == [0, 0, 0, 0x0080_0000, 0x8080_0000]
    torch = flushed.cases[0].torch
    assert torch is not None and not torch.passed and torch.mismatch_count == 5
    assert flushed.to_json()["cases"][0]["torch"]["differing"] == 5


def test_the_flush_define_is_part_of_the_cache_key(add_rung2):
    _, sources = add_rung2
    assert csim.compile_testbench(sources) != \
        csim.compile_testbench(sources, flush_subnormals=True)


def test_a_flushing_testbench_fails_against_the_ieee_reference(add_rung2, tmp_path):
    """The flushing build's own check can fail: given torch's expected results for
    subnormal sums, it reports a mismatch (exit 1)."""
    import subprocess

    p, sources = add_rung2
    binary = csim.compile_testbench(sources, flush_subnormals=True)
    csim.write_case(_subnormal_case(), p, tmp_path / "case.bin")  # IEEE reference
    done = subprocess.run([str(binary), str(tmp_path / "case.bin"), str(tmp_path / "o.bin")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == csim.TB_MISMATCH, done.stdout + done.stderr


@pytest.mark.parametrize("name, a, b", [
    # a * b: plain C++ multiplies, flushed by the CPU's DAZ/FTZ modes (not by hls::*)
    ("binary_ops/mul", [TINY, 1.0, 2.0**-100, 1 - 2.0**-24, 3.0],
     [1.0, -TINY, 2.0**-30, MIN_NORMAL, 2.0]),
    # fk::maximum: comparisons that see subnormals as zero, operands passed through
    ("binary_ops/maximum", [TINY, -TINY, -0.0, 1.0, 2 * TINY], [0.0, -0.0, -TINY, TINY, TINY]),
    # fk::remainder: hls::fmod's result flushed before the sign check, then a flushing add
    ("binary_ops/remainder", [-(2.0**-125 + 2.0**-140), 7.0, -1e-30, 2.0**-120, -TINY],
     [2.0**-125, -3.0, 1.0, -(2.0**-120 + 2.0**-125), 1.0]),
])
def test_native_operators_flush_in_the_flushing_csim(library, tmp_path, name, a, b):
    p = plan(library.get(name), 1, "float32")
    sources = generate(p, tmp_path / "src")
    case = Case("subnormals", {"a": np.array(a, dtype=np.float32),
                               "b": np.array(b, dtype=np.float32)}, {})
    ieee = csim.run(p, sources, [case], tmp_path / "ieee")
    flushed = csim.run(p, sources, [case], tmp_path / "flush", flush_subnormals=True)
    assert ieee.passed and flushed.passed, (ieee.summary(), flushed.summary())
    out_ieee = np.fromfile(tmp_path / "ieee" / "out0.bin", dtype=np.float32)
    out_flush = np.fromfile(tmp_path / "flush" / "out0.bin", dtype=np.float32)
    want = flush.expected_output(p.kernel, "float32", case)
    assert np.array_equal(_bits(out_flush), _bits(want))
    assert (_bits(out_ieee) != _bits(out_flush)).any()


def test_the_csim_command_shows_what_differs_from_torch(tmp_path, monkeypatch):
    import json

    from click.testing import CliRunner

    from fpgakern.cli import main

    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    done = runner.invoke(main, ["csim", "binary_ops/mul", "--opt", "1", "--dtype", "float32",
                                "--hls-flush-subnormals", "--size", "64", "--json"])
    assert done.exit_code == 0, done.output
    (result,) = json.loads(done.output)["results"]
    assert result["mode"] == "flush" and result["passed"]
    specials = next(c for c in result["cases"] if c["label"] == "special_values")
    assert specials["passed"] and specials["torch"]["differing"] > 0
    assert (tmp_path / "build/binary_ops/mul/opt1/float32/csim-flush/csim.log").exists()
    bad = runner.invoke(main, ["csim", "binary_ops/mul", "--opt", "1", "--dtype", "int8"])
    assert bad.exit_code == 2 and bad.output.count("\n") == 1, bad.output
