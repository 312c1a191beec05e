"""C simulation of the starter kernels x rungs x dtypes against the numpy reference."""

from __future__ import annotations

import struct
import subprocess

import numpy as np
import pytest
from variant_selection import variant_params

from fpgakern import paths
from fpgakern.backends.hls import generate
from fpgakern.backends.hls.generator import HlsSources
from fpgakern.ladder import plan
from fpgakern.spec.library import Library
from fpgakern.verify import csim, shaped_stimulus, stimulus


# The default run compiles the representative variants (every operator in every dtype,
# every rung of every kind: tests/variant_selection.py); -m slow compiles the rest.
@pytest.mark.parametrize(("name", "rung", "dtype"),
                         variant_params(Library(paths.SOURCE_ROOT / "kernel_specs")))
def test_csim_matches_reference(library, tmp_path, name, rung, dtype):
    p = plan(library.get(name), rung, dtype)
    sources = generate(p, tmp_path)
    if p.kernel.transform is not None:  # rows of several lengths, norms, specials
        cases = csim.cases_for(p, 700)
        assert {"random", "n_8", "norm_ortho", "special", "no_rows"} <= {c.label for c in cases}
    elif p.kernel.staged(dtype) is not None:  # broadcast, row kinds: whole shaped tensors
        cases = shaped_stimulus.cases(p.kernel, p.dtype)
        assert "specials" in {c.label for c in cases}
    else:
        cases = stimulus.cases(p.kernel, p.dtype, size=700, lanes=16)
        labels = {c.label for c in cases}
        assert {"random", "size_1", "odd_tail"} <= labels
    result = csim.run(p, sources, cases, tmp_path / "csim")
    assert result.passed, result.summary()


def test_csim_catches_a_wrong_kernel(library, tmp_path):
    """A kernel that computes the wrong thing must fail: the check can fail. Here add
    rounds alpha * b before the sum (torch and the op table's fma round once)."""
    p = plan(library.get("binary_ops/add"), 2, "float32")
    sources = generate(p, tmp_path)
    kernel = sources.kernel.read_text()
    assert "fk::fma(alpha, b, a)" in kernel
    sources.kernel.write_text(kernel.replace("fk::fma(alpha, b, a)", "(a + (alpha * b))"))
    result = csim.run(p, sources, stimulus.cases(p.kernel, p.dtype, size=400), tmp_path / "c")
    assert not result.passed
    assert "values differ" in result.summary() and "0x" in result.summary()


def test_csim_catches_leftover_stream_data(library, tmp_path):
    p = plan(library.get("unary_ops/neg"), 2, "float32")
    sources = generate(p, tmp_path)
    text = sources.kernel.read_text().replace("load(x, x_stream, words);",
                                              "load(x, x_stream, words + 1);")
    sources.kernel.write_text(text)
    result = csim.run(p, sources, stimulus.cases(p.kernel, p.dtype, size=10), tmp_path / "c")
    assert not result.passed and "stream" in result.summary()


def test_compile_error_is_reported_not_raised(library, tmp_path):
    p = plan(library.get("unary_ops/neg"), 0, "float32")
    sources = generate(p, tmp_path)
    sources.kernel.write_text(sources.kernel.read_text() + "\nint unused_variable_warning() "
                              "{ int x; return 0; }\n")
    result = csim.run(p, sources, stimulus.cases(p.kernel, p.dtype, size=4), tmp_path / "c")
    assert not result.passed and result.error and "g++ failed" in result.error


def test_testbench_rejects_truncated_case(library, tmp_path):
    p = plan(library.get("binary_ops/add"), 0, "float32")
    sources: HlsSources = generate(p, tmp_path)
    binary = csim.compile_testbench(sources)
    case = tmp_path / "case.bin"
    case.write_bytes(struct.pack("<if", 10, 1.0) + np.zeros(3, np.float32).tobytes())
    done = subprocess.run([binary, case, tmp_path / "out.bin"], capture_output=True, text=True)
    assert done.returncode == 4 and "truncated" in done.stderr
