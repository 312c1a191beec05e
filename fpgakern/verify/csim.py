"""C simulation: compile the generated HLS C++ with g++ and judge it against numpy.

The kernel and its testbench compile with warnings as errors against fpgakern's open
stand-ins for the Vitis headers (``hls_templates/csim``). Two flags pin down semantics
the real HLS flow has by construction: ``-fwrapv`` (HLS integers wrap like the hardware)
and ``-ffp-contract=off`` (no fused multiply-add the expression did not ask for).
``-Wno-unknown-pragmas`` and ``-Wno-unused-label`` let g++ ignore what is there for
HLS only: ``#pragma HLS`` lines and the loop labels that name loops in HLS reports.
Compiled testbenches are built once per hash of everything that goes into them
(``fpgakern.tools.cache``).

``flush_subnormals`` models Vitis-built float hardware instead of IEEE: the testbench
compiles with :data:`FLUSH_DEFINE`, which makes the stand-in headers flush subnormal
operands and results to zero (``hls_templates/csim/hls_math.h``), and it is judged
against :mod:`fpgakern.verify.flush`'s reference; each case also reports how its results
compare with torch's (the default reference). The generated kernel is the same.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from fpgakern import paths
from fpgakern.backends.hls import HlsSources
from fpgakern.backends.hls import spectral as hls_spectral
from fpgakern.errors import ToolError, UsageError
from fpgakern.ir import fft, shapes
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.kernel import Kernel
from fpgakern.ir.ops import Accuracy
from fpgakern.ladder import Plan
from fpgakern.tools import gxx
from fpgakern.tools.cache import cached_build
from fpgakern.util.files import sha256_text
from fpgakern.util.text import plural
from fpgakern.verify import compare, flush, reference, shaped_stimulus, spectral, stimulus
from fpgakern.verify.shaped_stimulus import ShapedCase
from fpgakern.verify.stimulus import Case

# The testbench's exit status: every result matches the reference, or one differs (it
# has written every result file either way). Anything else is a failed run: 2 usage,
# 3 stream misuse (the hls_stream.h stand-in), 4 an unreadable or too large case file,
# 5 a kernel with AXI4-Stream ports broke the protocol (hls_templates/stream/testbench:
# a beat left unread or missing, TLAST not on exactly the last beat, TKEEP/TSTRB not full).
TB_MATCH = 0
TB_MISMATCH = 1
TB_STREAM_MISUSE = 3
TB_STREAM_PROTOCOL = 5

# -Og, not gxx.FLAGS' -O2: a testbench (and a sw_emu library, which takes these flags)
# compiles a third faster (0.44 s against 0.65 for rung-4 add's sw_emu library; -O1
# 0.51) and runs as fast (sw_emu adds 4M elements in about 0.05 s at each level: the time
# is in the stream model). Every kernel of the library compiles warning-free at it. The
# bits do not depend on the level: no fast-math, no contraction, wrapping integers.
OPTIMIZATION = "-Og"
CXXFLAGS = (gxx.STANDARD, OPTIMIZATION, *gxx.WARNINGS, "-Wno-unknown-pragmas",
            "-Wno-unused-label", "-fwrapv", gxx.NO_FP_CONTRACTION)
FLUSH_DEFINE = "-DFPGAKERN_CSIM_FLUSH_SUBNORMALS"
# The standard headers hls_templates/ includes (the generated kernels, testbenches and
# hosts, fpgakern_ops.h, the C simulation headers): precompiled once (gxx.prelude) for
# every testbench and sw_emu library. tests/test_tools.py holds it to hls_templates/.
STANDARD_HEADERS = ("algorithm", "array", "chrono", "cinttypes", "cmath", "complex",
                    "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "deque",
                    "exception", "initializer_list", "limits", "numeric", "string",
                    "type_traits", "vector", "xmmintrin.h")


@dataclass
class CaseResult:
    label: str
    size: int
    verdict: compare.Verdict
    # Flushing runs only: the same results judged against torch's (IEEE) reference.
    torch: compare.Verdict | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"label": self.label, "size": self.size,
                                  "passed": self.verdict.passed,
                                  "detail": self.verdict.summary()}
        if self.torch is not None:
            out["torch"] = {"matches": self.torch.passed, "differing": self.torch.mismatch_count,
                            "detail": self.torch.summary()}
        return out


@dataclass
class CsimResult:
    passed: bool
    cases: list[CaseResult] = field(default_factory=list)
    error: str | None = None

    def summary(self) -> str:
        if self.error:
            return self.error
        failed = [c for c in self.cases if not c.verdict.passed]
        if not failed:
            return f"{plural(len(self.cases), 'case')} passed"
        first = failed[0]
        return f"{len(failed)} of {len(self.cases)} cases fail; {first.label}: " \
               f"{first.verdict.summary()}"

    def to_json(self) -> dict[str, object]:
        return {"passed": self.passed, "summary": self.summary(),
                "cases": [c.to_json() for c in self.cases]}


def csim_include_dir() -> Path:
    return paths.data_dir("hls_templates") / "csim"


def compile_testbench(sources: HlsSources, *, flush_subnormals: bool = False) -> Path:
    """The testbench executable for ``sources``, compiled once per content hash (the
    flags, and so the flush define, are part of it)."""
    include = csim_include_dir()
    inputs = [sources.kernel, sources.testbench, *sources.headers,
              *sorted(include.glob("*.h"))]
    flags = (*CXXFLAGS, FLUSH_DEFINE) if flush_subnormals else CXXFLAGS
    key = sha256_text(gxx.identity(), *flags,
                      *(p.name + "\n" + p.read_text() for p in inputs))

    def build(staging: Path) -> None:
        gxx.run([*flags, *gxx.prelude(STANDARD_HEADERS, flags),
                 "-I", str(sources.kernel.parent), "-I", str(include),
                 str(sources.kernel), str(sources.testbench), "-o", str(staging / "testbench")],
                sources.kernel.name)

    return cached_build("csim", sources.kernel.stem, key[:24], "testbench", build) / "testbench"


def write_case(case: Case, plan: Plan, path: Path, *, flush_subnormals: bool = False,
               vitis_csim: bool = False) -> None:
    """The testbench's case file: int32 n, the scalars, each input's elements, then the
    reference result the testbench checks the kernel's against (and, for a float
    reduction, the float64 error bound; for a kernel whose inner inexact applications
    compare.judge follows, the block :func:`write_shaped_case` writes for a broadcast
    kernel: the int32 ulps each result may be from the reference or an alternative, the
    int32 number of alternatives and each one's results). With ``flush_subnormals`` that
    block holds the kernel's summed ulps and no alternative: the flushing reference is
    not followed. With ``vitis_csim`` the reference is torch's as Vitis C simulation
    computes it (:func:`fpgakern.verify.flush.csim_apply`: hls::sqrt flushes), judged
    as torch's is."""
    if flush_subnormals and vitis_csim:
        raise ValueError("a case has one reference: flushing or Vitis C simulation's")
    if case.size > plan.arch.max_test_elements:
        raise ValueError(f"case {case.label}: {case.size} elements; the testbench takes at "
                         f"most {plan.arch.max_test_elements} (Plan.arch.max_test_elements)")
    kernel, dtype_name = plan.kernel, plan.dtype.name
    element = plan.dtype.numpy
    parts = [np.int32(case.size).tobytes()]
    scalar = DTYPES[plan.dtype.scalar_dtype].numpy  # complex64's scalars are float32
    parts += [np.asarray(case.scalars[s.name], dtype=scalar).tobytes()
              for s in kernel.scalars]
    parts += [np.ascontiguousarray(case.tensors[name], dtype=element).tobytes()
              for name in kernel.inputs]
    apply = flush.csim_apply if vitis_csim else reference.ieee
    if flush_subnormals:
        expected = flush.expected_output(kernel, dtype_name, case)
    else:
        expected = reference.expected_output(kernel, dtype_name, case, apply)
    parts.append(np.ascontiguousarray(expected, dtype=kernel.output_dtype(dtype_name).numpy)
                 .tobytes())
    accuracy = kernel.accuracy(dtype_name)
    if accuracy.kind == "reduction":
        reduced = (flush.reduction_operand(kernel, dtype_name, case) if flush_subnormals
                   else reference.reduction_operand(kernel, dtype_name, case, apply))
        bound = compare.reduction_bound(reduced, accuracy, kernel.body_ulps(dtype_name))
        parts.append(np.float64(bound).tobytes())
    inner = compare.followed_applications(kernel, dtype_name)
    if inner and flush_subnormals:  # flush's reference is not followed: the summed bound
        parts += _follow_block(accuracy, [], kernel.output_dtype(dtype_name).numpy)
    elif inner:
        parts += _follow_block(compare.followed_accuracy(kernel, dtype_name),
                               _alternatives(expected, reference.perturbed_outputs(
                                   kernel, dtype_name, case, inner, apply)),
                               kernel.output_dtype(dtype_name).numpy)
    path.write_bytes(b"".join(parts))


def cases_for(plan: Plan, size: int) -> list[Case | ShapedCase]:
    """The C-simulation cases of the plan's kernel: whole tensors with their shapes for a
    shaped kind (shaped_stimulus), else ``size``-element flat cases (stimulus)."""
    if plan.kernel.transform is not None:  # rows of several lengths (verify.spectral)
        return list(spectral.cases(plan.kernel, plan.dtype))
    if plan.kernel.staged(plan.dtype.name) is not None:
        return list(shaped_stimulus.cases(plan.kernel, plan.dtype))
    return list(stimulus.cases(plan.kernel, plan.dtype, size=size, lanes=max(plan.arch.lanes, 16)))


def write_any_case(case: Case | ShapedCase, plan: Plan, path: Path, *,
                   flush_subnormals: bool = False, vitis_csim: bool = False) -> None:
    """A flat or a shaped case's file (``flush_subnormals``, ``vitis_csim``: the reference,
    as :func:`write_case` takes them). Shaped cases have no flushing reference: with
    ``flush_subnormals`` they are written against torch's. Transforms use no op that
    Vitis C simulation flushes."""
    if isinstance(case, ShapedCase):
        write_shaped_case(case, plan, path, vitis_csim=vitis_csim)
    elif plan.kernel.transform is not None:  # hls_templates/transform/testbench.cpp.j2
        x = case.tensors[plan.kernel.inputs[0]]
        path.write_bytes(hls_spectral.testbench_case(
            plan.kernel.transform, x, spectral.transform_length(plan.kernel, case),
            np.float32(case.scalars["scale"])))
    else:
        write_case(case, plan, path, flush_subnormals=flush_subnormals, vitis_csim=vitis_csim)


def write_shaped_case(case: ShapedCase, plan: Plan, path: Path, *,
                      vitis_csim: bool = False) -> None:
    """A shaped kernel's case file (hls_templates/common/shaped_testbench.cpp.j2): int32
    n, inner, channels (broadcast) or rows, cols and the judged row length (the row
    kinds), the scalars, each full input, each per-channel input (unpadded), the
    reference's results, then for a rows accuracy the ulps of the row's largest it allows
    on these rows (float64; compare.row_ulps_for), for a broadcast kernel's ulp accuracy
    the ulps each result may be from the reference or an alternative (int32;
    compare.shaped_accuracy), the number of alternatives (int32) and each one's results:
    the reference with the inner inexact applications compare.judge_shaped follows moved
    within their bounds (those that differ from the reference and each other). With
    ``vitis_csim``, torch's reference as Vitis C simulation computes it (write_case)."""
    kernel = plan.kernel
    layout = kernel.layout
    assert layout is not None
    element = plan.dtype.numpy
    size_values = shapes.sizes(kernel.kind, layout, case.main_shape)
    apply = flush.csim_apply if vitis_csim else reference.ieee
    expected = reference.shaped_expected(kernel, plan.dtype.name, case.tensors, case.scalars,
                                         apply=apply)
    if kernel.kind == "broadcast":
        header = [size_values["n"], size_values["inner"], size_values["channels"]]
        padded = size_values["n"]
    else:
        header = [size_values["rows"], size_values["cols"],
                  expected.shape[-1] if expected.ndim else 1]
        padded = size_values["rows"] * -(-size_values["cols"] // plan.arch.lanes) * plan.arch.lanes
    if padded > plan.arch.max_test_elements:
        raise ValueError(f"case {case.label}: {padded} elements with padding; the testbench "
                         f"takes at most {plan.arch.max_test_elements} "
                         "(Plan.arch.max_test_elements)")
    parts = [np.asarray(header, dtype=np.int32).tobytes()]
    scalar = DTYPES[plan.dtype.scalar_dtype].numpy  # complex64's scalars are float32
    parts += [np.asarray(case.scalars[s.name], dtype=scalar).tobytes()
              for s in kernel.scalars]
    parts += [np.ascontiguousarray(case.tensors[name], dtype=element).tobytes()
              for name in (*layout.full_inputs, *layout.channel_inputs)]
    parts.append(np.ascontiguousarray(expected, dtype=element).tobytes())
    accuracy = kernel.accuracy(plan.dtype.name)
    if accuracy.kind == "rows":
        row_ulps = compare.row_ulps_for(accuracy, size_values["cols"])
        parts.append(np.float64(row_ulps).tobytes())
    if kernel.kind == "broadcast" and accuracy.kind == "ulp":
        inner = compare.followed_applications(kernel, plan.dtype.name)
        parts += _follow_block(compare.followed_accuracy(kernel, plan.dtype.name),
                               _alternatives(expected, reference.perturbed_shaped_outputs(
                                   kernel, plan.dtype.name, case.tensors, case.scalars,
                                   inner, apply)), element)
    path.write_bytes(b"".join(parts))


def _follow_block(accuracy: Accuracy, alternatives: list[np.ndarray],
                  element: npt.DTypeLike) -> list[bytes]:
    """What a case file ends with where the judge follows inner inexact applications
    (hls_templates/common/macros.j2, read_alternatives): int32 ulps each result may be
    from the reference or an alternative, int32 number of alternatives, each one's
    results."""
    return [np.asarray([accuracy.ulps, len(alternatives)], dtype=np.int32).tobytes(),
            *(np.ascontiguousarray(a, dtype=element).tobytes() for a in alternatives)]


def _alternatives(expected: np.ndarray, outputs: Iterator[np.ndarray]) -> list[np.ndarray]:
    """The distinct results among ``outputs`` (the reference with the applications
    compare.judge or judge_shaped follows moved within their bounds) other than
    ``expected`` (bit patterns compared)."""
    seen = {np.ascontiguousarray(expected).tobytes()}
    found = []
    for alternative in outputs:
        key = np.ascontiguousarray(alternative).tobytes()
        if key not in seen:
            seen.add(key)
            found.append(alternative)
    return found


def _judge_shaped(plan: Plan, case: ShapedCase, actual: np.ndarray) -> compare.Verdict:
    layout = plan.kernel.layout
    assert layout is not None
    shape = shapes.operand_shape(plan.kernel.output, layout, case.main_shape)
    if actual.size != int(np.prod(shape)):
        return compare.Verdict(False, int(np.prod(shape)), "output size", mismatch_count=1)
    return compare.judge_shaped(plan.kernel, plan.dtype.name, case.tensors, case.scalars,
                                actual.reshape(shape))


class Oracle(Protocol):
    """What the results are judged against: the module reference, or flush."""

    def expected_output(self, kernel: Kernel, dtype_name: str, case: Case) -> np.ndarray: ...

    def reduction_operand(self, kernel: Kernel, dtype_name: str, case: Case) -> np.ndarray: ...


def _judge(plan: Plan, case: Case, actual: np.ndarray, oracle: Oracle) -> compare.Verdict:
    """``actual`` against ``oracle``'s expected output: against the reference as
    compare.judge judges it (inner inexact applications followed, as the testbench does
    with the case's alternatives), against flush's under the kernel's accuracy."""
    dtype_name = plan.dtype.name
    accuracy = compare.accuracy_of(plan.kernel, dtype_name)
    expected = oracle.expected_output(plan.kernel, dtype_name, case)
    if actual.shape != expected.shape:
        return compare.Verdict(False, expected.size, str(accuracy), mismatch_count=1)
    if oracle is reference:
        return compare.judge(plan.kernel, dtype_name, case, actual)
    reduced = (oracle.reduction_operand(plan.kernel, dtype_name, case)
               if plan.kernel.is_reduction else None)
    return compare.compare(expected, actual, accuracy, reduced)


def testbench_failure(status: int, output: str) -> str:
    """Why a testbench run that neither matched nor mismatched failed, from its exit
    status and what it printed (the first line: the first thing that went wrong)."""
    lines = output.strip().splitlines()
    reason = lines[0] if lines else f"exit code {status}"
    if status == TB_STREAM_PROTOCOL:
        return f"AXI4-Stream protocol broken: {reason}"
    if status == TB_STREAM_MISUSE:
        return f"testbench failed (stream misuse): {reason}"
    return f"testbench failed: {reason}"



def run_testbench(binary: Path, count: int, work_dir: Path
                  ) -> tuple[subprocess.CompletedProcess[str], CsimResult | None]:
    """Run a compiled testbench on ``work_dir``'s ``case{i}.bin`` (``i < count``), writing
    ``out{i}.bin`` and ``csim.log``. Returns the run and a failed result when it did not
    get to compare (a crash, a bad file), else None: read the outputs."""
    argv = [str(binary)]
    for i in range(count):
        argv += [str(work_dir / f"case{i}.bin"), str(work_dir / f"out{i}.bin")]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    (work_dir / "csim.log").write_text(done.stdout + done.stderr)
    if done.returncode not in (TB_MATCH, TB_MISMATCH):
        return done, CsimResult(False, error=testbench_failure(done.returncode,
                                                               done.stderr or done.stdout))
    return done, None

def run(plan: Plan, sources: HlsSources, cases: Sequence[Case | ShapedCase], work_dir: Path,
        *, flush_subnormals: bool = False) -> CsimResult:
    """Compile (or reuse) the testbench, run every case, compare with the reference
    (with ``flush_subnormals``, the flushing one; see the module docstring). A shaped
    kernel takes ShapedCases (shaped_stimulus.cases), judged by compare.judge_shaped.

    ``work_dir`` exists on return whatever the verdict, so that a caller can write its
    report there even when g++ rejected the kernel."""
    shaped = plan.kernel.staged(plan.dtype.name) is not None
    if shaped and flush_subnormals:
        raise UsageError(f"{plan.kernel.qualname} ({plan.kernel.kind}): C simulation with "
                         "flushed subnormals covers unshaped kernels only")
    if plan.dtype.is_complex and flush_subnormals:
        raise UsageError(f"{plan.kernel.qualname}: C simulation with flushed subnormals "
                         f"covers float32 and int32 only, not {plan.dtype.name} (issue 16)")
    if any(isinstance(case, ShapedCase) != shaped for case in cases):
        raise UsageError(f"{plan.kernel.qualname} ({plan.kernel.kind}): C simulation takes "
                         f"{'shaped' if shaped else 'flat'} cases (verify."
                         f"{'shaped_stimulus' if shaped else 'stimulus'}.cases)")
    work_dir.mkdir(parents=True, exist_ok=True)
    try:
        binary = compile_testbench(sources, flush_subnormals=flush_subnormals)
    except ToolError as err:
        return CsimResult(False, error=str(err))
    for i, case in enumerate(cases):
        write_any_case(case, plan, work_dir / f"case{i}.bin", flush_subnormals=flush_subnormals)
    done, failure = run_testbench(binary, len(cases), work_dir)
    if failure is not None:
        return failure
    out_dtype = plan.kernel.output_dtype(plan.dtype.name).numpy
    oracle: Oracle = flush if flush_subnormals else reference
    results = []
    for i, case in enumerate(cases):
        actual = np.fromfile(work_dir / f"out{i}.bin", dtype=out_dtype)
        if plan.kernel.transform is not None and isinstance(case, Case):  # rows of results
            n = spectral.transform_length(plan.kernel, case)
            rows = case.tensors[plan.kernel.inputs[0]].shape[0]
            out_cols = fft.output_length(plan.kernel.transform, n)
            if actual.size == rows * out_cols:
                actual = actual.reshape(rows, out_cols)
        if isinstance(case, ShapedCase):
            results.append(CaseResult(case.label, case.size, _judge_shaped(plan, case, actual)))
            continue
        results.append(CaseResult(
            case.label, case.size, _judge(plan, case, actual, oracle),
            _judge(plan, case, actual, reference) if flush_subnormals else None))
    passed = all(r.verdict.passed for r in results)
    if passed != (done.returncode == TB_MATCH):
        # The testbench checks the results itself (as Vitis cosim needs); its verdict
        # and fpgakern's must agree, or one of the two checks is wrong.
        said = "a mismatch" if done.returncode == TB_MISMATCH else "a match"
        return CsimResult(False, results, error=f"the testbench reports {said}, fpgakern's "
                          f"comparison does not ({(done.stderr or done.stdout).strip()[:200]})")
    return CsimResult(passed, results)
