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
from fpgakern.ir import ops
from fpgakern.ladder import plan
from fpgakern.spec.library import Library
from fpgakern.verify import compare, csim, matrix_csim, reference, shaped_stimulus, stimulus
from fpgakern.verify.stimulus import Case

F32 = np.float32


# The default run compiles the representative variants (every operator in every dtype,
# every rung of every kind: tests/variant_selection.py); -m slow compiles the rest.
@pytest.mark.parametrize(("name", "rung", "dtype"),
                         variant_params(Library(paths.SOURCE_ROOT / "kernel_specs")))
def test_csim_matches_reference(library, tmp_path, name, rung, dtype):
    p = plan(library.get(name), rung, dtype)
    sources = generate(p, tmp_path)
    if p.kernel.kind == "contraction":  # matrices of many sizes, bit for bit
        result = matrix_csim.run(p, sources, tmp_path / "csim")
        assert result.passed, result.summary()
        labels = {c.label.split(" (")[0] for c in result.cases}
        assert {"odd 197x200x301", "K=0", "K=1", "special values"} <= labels
        return
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


# -- an elementwise kernel's inner inexact op, followed (compare.judge) ------------------

# relu(a * sigmoid(a) + b): where b cancels a * sigmoid(a), one ulp of sigmoid
# (fk::sigmoid's need not be the reference's) is many ulps of the result.
SILU_PLUS = ("kernel: silu_plus\ndoc: relu of silu plus b.\ninputs: [a, b]\noutputs: [out]\n"
             "dtypes: [float32]\nexpression: relu(a * sigmoid(a) + b)\n")
EXP_TWICE = ("kernel: exp_twice\ndoc: exp of twice x.\ninputs: [x]\noutputs: [out]\n"
             "dtypes: [float32]\nexpression: exp(x * 2)\n")


@pytest.fixture(scope="module")
def my_ops(tmp_path_factory) -> Library:
    root = tmp_path_factory.mktemp("specs")
    (root / "my_ops").mkdir()
    (root / "my_ops" / "silu_plus.yaml").write_text(SILU_PLUS)
    (root / "my_ops" / "exp_twice.yaml").write_text(EXP_TWICE)
    return Library(root)


def _cancelling_case() -> Case:
    """b cancels a * sigmoid(a) (the reference's) down to a few millionths."""
    a = np.array([0.75, 1.5, 3.0, 2.25, 0.5, 4.0, 0.3, 1.1, 5.5, 0.9, 2.6], F32)
    left = np.array([1e-6, 3e-6, 2e-5, 1e-6, 4e-6, 7e-6, 2e-6, 5e-6, 1e-5, 3e-6, 6e-6], F32)
    b = -(a * ops.op("sigmoid").reference(a) - left)
    return Case("cancelling", {"a": a, "b": b.astype(F32)}, {})


def _with_sigmoid_moved(sources: HlsSources, case: Case, ulps: list[int]) -> None:
    """Make the kernel's sigmoid the reference's moved ``ulps[i]`` at the case's a[i]."""
    a = case.tensors["a"]
    moved = reference.step_ulps(ops.op("sigmoid").reference(a), np.asarray(ulps))
    table = "".join(f"    if (a == {float(x).hex()}f) return {float(s).hex()}f;\n"
                    for x, s in zip(a, moved, strict=True))
    text = sources.kernel.read_text()
    assert text.count("fk::sigmoid(a)") == 1
    text = text.replace("fk::sigmoid(a)", "chosen_sigmoid(a)").replace(
        "// One result from one element",
        f"static float chosen_sigmoid(float a) {{\n{table}    return fk::sigmoid(a);\n}}\n\n"
        "// One result from one element")
    sources.kernel.write_text(text)


@pytest.mark.parametrize("rung", [0, 2, 4])
def test_csim_follows_an_elementwise_kernels_inner_sigmoid(my_ops, tmp_path, rung):
    """The standard cases (the random one gave 0x3dfc59d6 for 0x3dfc59da: fk::sigmoid an
    ulp from the reference's, 4 ulps of the result) and a case where b cancels a *
    sigmoid(a), with sigmoid 1 or 2 ulps off the reference: the testbench and
    compare.judge both take the result within the root's bound of the reference with
    sigmoid moved within its own."""
    p = plan(my_ops.get("my_ops/silu_plus"), rung, "float32")
    result = csim.run(p, generate(p, tmp_path), csim.cases_for(p, 1000), tmp_path / "c")
    assert result.passed, result.summary()
    sources = generate(p, tmp_path / "moved")
    case = _cancelling_case()
    _with_sigmoid_moved(sources, case, [1, -2, 0, 2, -1, 1, -1, 2, 0, 1, -2])
    result = csim.run(p, sources, [case], tmp_path / "moved" / "c")
    assert result.passed, result.summary()
    verdict = result.cases[0].verdict
    assert verdict.accuracy == "exact after sigmoid within their bounds"
    actual = np.fromfile(tmp_path / "moved" / "c" / "out0.bin", F32)
    exact = reference.expected_output(p.kernel, "float32", case)
    # Past the summed bound (2 ulps) the testbench used to hold it to.
    assert compare.ulp_distance(exact, actual).max() > 2


@pytest.mark.parametrize("rung", [0, 4])
def test_csim_catches_an_inner_sigmoid_off_past_its_bound(my_ops, tmp_path, rung):
    """sigmoid 3 ulps off the reference at two elements (its bound is 2; a is 0.5 and 4
    there, so the products keep the 3 ulps): both checks fail them alike (csim.run
    reports a disagreement as an error)."""
    p = plan(my_ops.get("my_ops/silu_plus"), rung, "float32")
    sources = generate(p, tmp_path)
    case = _cancelling_case()
    _with_sigmoid_moved(sources, case, [1, 0, 0, 0, -3, 3, 0, 0, 0, 2, 0])
    result = csim.run(p, sources, [case], tmp_path / "c")
    assert not result.passed and result.error is None, result.summary()
    assert result.cases[0].verdict.mismatch_count == 2
    assert "2 of 11 values differ" in result.summary()
    log = (tmp_path / "c" / "csim.log").read_text()
    assert "2 of 11 values differ from the reference (each within the case's ulps" in log


def test_case_files_carry_alternatives_only_where_the_judge_follows(my_ops, tmp_path):
    """silu_plus's case file ends with the root's ulps (relu's: 0), the number of
    distinct alternatives and their results; with flushed subnormals, the summed ulps
    and none; exp(x * 2) has no inner inexact op, so its file is as it was."""
    p = plan(my_ops.get("my_ops/silu_plus"), 0, "float32")
    assert compare.followed_accuracy(p.kernel, "float32") == ops.EXACT
    case = _cancelling_case()
    n = case.size
    csim.write_case(case, p, tmp_path / "case.bin")
    data = (tmp_path / "case.bin").read_bytes()
    head = 4 + 3 * 4 * n  # n, a, b, the reference's results
    ulps, count = np.frombuffer(data[head:head + 8], np.int32)
    assert ulps == 0 and 1 <= count <= 4  # sigmoid moved -2, -1, 1, 2: the distinct ones
    assert len(data) == head + 8 + count * 4 * n
    alternatives = np.frombuffer(data[head + 8:], F32).reshape(count, n)
    assert not any(np.array_equal(alternatives[i], alternatives[j])
                   for i in range(count) for j in range(i))
    csim.write_case(case, p, tmp_path / "flush.bin", flush_subnormals=True)
    flushed = (tmp_path / "flush.bin").read_bytes()
    assert list(np.frombuffer(flushed[head:], np.int32)) == [2, 0]  # the summed 2, none
    q = plan(my_ops.get("my_ops/exp_twice"), 0, "float32")
    assert compare.followed_applications(q.kernel, "float32") == []
    x = Case("plain", {"x": np.array([0.5, -1.0, 2.0], F32)}, {})
    csim.write_case(x, q, tmp_path / "exp.bin")
    assert len((tmp_path / "exp.bin").read_bytes()) == 4 + 2 * 4 * 3
