"""The host merges the compute units' partial results of a reduction with the op table's
combine op. It cannot include fpgakern_ops.h (that needs Vitis' hls_math.h), so
fpgakern_host.hpp spells the combine ops again: here each one is compiled and held to the
op table's numpy reference, bit for bit, on the special values."""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest
from runtime_support import variant

from fpgakern.backends import host
from fpgakern.ir.ops import OPS
from fpgakern.runtime import emu

FLOAT_BITS = [0x0000_0000, 0x8000_0000, 0x3F80_0000, 0xBF80_0000, 0x3FC0_0000, 0x7F80_0000,
              0xFF80_0000, 0x7FC0_0000, 0xFFC0_0000, 0x7F7F_FFFF, 0xFF7F_FFFF, 0x0000_0001,
              0x8000_0001, 0x0080_0000, 0xC020_0000]
INTS = [0, 1, -1, 7, -12345, 2**31 - 1, -(2**31), 2**30]


def combine_cases() -> list[tuple[str, str]]:
    """(combine op, dtype) of every reduction in the op table."""
    return sorted({(op.combine, d) for op in OPS.values() if op.kind == "reduce"
                   for d in op.dtypes if op.combine})


def operands(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    values = (np.array(FLOAT_BITS, np.uint32).view(np.float32) if dtype == "float32"
              else np.array(INTS, np.int32))
    a, b = np.meshgrid(values, values, indexing="ij")
    return a.ravel(), b.ravel()


def program(cases: list[tuple[str, str]]) -> str:
    lines = ['#include "fpgakern_host.hpp"', "#include <cstdio>", "#include <cstring>", "",
             "static unsigned bits(float v) { unsigned u; std::memcpy(&u, &v, 4); return u; }",
             "static unsigned bits(int32_t v) { return static_cast<unsigned>(v); }",
             "static float f(unsigned u) { float v; std::memcpy(&v, &u, 4); return v; }", "",
             "int main() {"]
    for combine, dtype in cases:
        a, b = operands(dtype)
        for x, y in zip(a, b, strict=True):
            if dtype == "float32":
                args = f"f({x.view(np.uint32):#x}u), f({y.view(np.uint32):#x}u)"
            else:
                args = f"int32_t({int(x)}LL), int32_t({int(y)}LL)"
            lines.append(f'    std::printf("%08x\\n", bits(fpgakern::host::{combine}({args})));')
    return "\n".join([*lines, "    return 0;", "}", ""])


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[tuple[str, str], list[int]]:
    compiler = os.environ.get("CXX") or shutil.which("g++")
    if compiler is None:
        pytest.skip("g++ not found")
    folder = tmp_path_factory.mktemp("combine")
    # Any reduction's host code brings the shared header.
    host.generate(variant("reduce_ops/sum", 3, "float32"), folder)
    cases = combine_cases()
    (folder / "combine.cpp").write_text(program(cases))
    exe = folder / "combine"
    subprocess.run([compiler, *emu.compile_flags((folder,)), str(folder / "combine.cpp"),
                    "-o", str(exe)], check=True)
    words = [int(w, 16) for w in subprocess.run([str(exe)], check=True, capture_output=True,
                                                text=True).stdout.split()]
    out, at = {}, 0
    for case in cases:
        count = len(operands(case[1])[0])
        out[case], at = words[at:at + count], at + count
    return out


@pytest.mark.parametrize(("combine", "dtype"), combine_cases())
def test_host_combine_is_the_op_table(outputs, combine, dtype):
    a, b = operands(dtype)
    want = OPS[combine].reference(a, b)
    got = np.array(outputs[(combine, dtype)], np.uint32)
    if dtype == "float32":
        got_f = got.view(np.float32)
        both_nan = np.isnan(got_f) & np.isnan(want)
        assert np.array_equal(got[~both_nan], want.view(np.uint32)[~both_nan])
        assert np.array_equal(np.isnan(got_f), np.isnan(want))
    else:
        assert np.array_equal(got.view(np.int32), want)
