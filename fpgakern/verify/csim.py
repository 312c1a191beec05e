"""C simulation: compile the generated HLS C++ with g++ and judge it against numpy.

The kernel and its testbench compile with warnings as errors against fpgakern's open
stand-ins for the Vitis headers (``hls_templates/csim``). Two flags pin down semantics
the real HLS flow has by construction: ``-fwrapv`` (HLS integers wrap like the hardware)
and ``-ffp-contract=off`` (no fused multiply-add the expression did not ask for).
``-Wno-unknown-pragmas`` and ``-Wno-unused-label`` let g++ ignore what is there for
HLS only: ``#pragma HLS`` lines and the loop labels that name loops in HLS reports.
Compiled testbenches are built once per hash of everything that goes into them
(``fpgakern.tools.cache``).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fpgakern import paths
from fpgakern.backends.hls import HlsSources
from fpgakern.errors import ToolError
from fpgakern.ladder import Plan
from fpgakern.tools import gxx
from fpgakern.tools.cache import cached_build
from fpgakern.util.files import sha256_text
from fpgakern.util.text import plural
from fpgakern.verify import compare, reference
from fpgakern.verify.stimulus import Case

# The testbench's exit status: every result matches the reference, or one differs (it
# has written every result file either way). Anything else is a failed run: 2 usage,
# 3 stream misuse (the hls_stream.h stand-in), 4 an unreadable or too large case file.
TB_MATCH = 0
TB_MISMATCH = 1

CXXFLAGS = (*gxx.FLAGS, "-Wno-unknown-pragmas", "-Wno-unused-label", "-fwrapv",
            "-ffp-contract=off")


@dataclass
class CaseResult:
    label: str
    size: int
    verdict: compare.Verdict

    def to_json(self) -> dict[str, object]:
        return {"label": self.label, "size": self.size, "passed": self.verdict.passed,
                "detail": self.verdict.summary()}


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


def compile_testbench(sources: HlsSources) -> Path:
    """The testbench executable for ``sources``, compiled once per content hash."""
    include = csim_include_dir()
    inputs = [sources.kernel, sources.testbench, *sources.headers,
              *sorted(include.glob("*.h"))]
    key = sha256_text(gxx.identity(), *CXXFLAGS,
                      *(p.name + "\n" + p.read_text() for p in inputs))

    def build(staging: Path) -> None:
        gxx.run([*CXXFLAGS, "-I", str(sources.kernel.parent), "-I", str(include),
                 str(sources.kernel), str(sources.testbench), "-o", str(staging / "testbench")],
                sources.kernel.name)

    return cached_build("csim", sources.kernel.stem, key[:24], "testbench", build) / "testbench"


def write_case(case: Case, plan: Plan, path: Path) -> None:
    """The testbench's case file: int32 n, the scalars, each input's elements, then the
    reference result the testbench checks the kernel's against (and, for a float
    reduction, the float64 error bound)."""
    if case.size > plan.max_test_elements:
        raise ValueError(f"case {case.label}: {case.size} elements; the testbench takes at "
                         f"most {plan.max_test_elements} (Plan.max_test_elements)")
    kernel, dtype_name = plan.kernel, plan.dtype.name
    element = plan.dtype.numpy
    parts = [np.int32(case.size).tobytes()]
    parts += [np.asarray(case.scalars[s.name], dtype=element).tobytes()
              for s in kernel.scalars]
    parts += [np.ascontiguousarray(case.tensors[name], dtype=element).tobytes()
              for name in kernel.inputs]
    expected = reference.expected_output(kernel, dtype_name, case)
    parts.append(np.ascontiguousarray(expected, dtype=kernel.output_dtype(dtype_name).numpy)
                 .tobytes())
    if kernel.accuracy(dtype_name).kind == "reduction":
        reduced = reference.reduction_operand(kernel, dtype_name, case)
        parts.append(np.float64(compare.reduction_bound(reduced)).tobytes())
    path.write_bytes(b"".join(parts))


def run(plan: Plan, sources: HlsSources, cases: list[Case], work_dir: Path) -> CsimResult:
    """Compile (or reuse) the testbench, run every case, compare with the reference.

    ``work_dir`` exists on return whatever the verdict, so that a caller can write its
    report there even when g++ rejected the kernel."""
    work_dir.mkdir(parents=True, exist_ok=True)
    try:
        binary = compile_testbench(sources)
    except ToolError as err:
        return CsimResult(False, error=str(err))
    argv = [str(binary)]
    for i, case in enumerate(cases):
        write_case(case, plan, work_dir / f"case{i}.bin")
        argv += [str(work_dir / f"case{i}.bin"), str(work_dir / f"out{i}.bin")]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    (work_dir / "csim.log").write_text(done.stdout + done.stderr)
    if done.returncode not in (TB_MATCH, TB_MISMATCH):
        lines = (done.stderr or done.stdout).strip().splitlines()
        reason = lines[0] if lines else f"exit code {done.returncode}"
        return CsimResult(False, error=f"testbench failed: {reason}")
    dtype_name = plan.dtype.name
    accuracy = compare.accuracy_of(plan.kernel, dtype_name)
    out_dtype = plan.kernel.output_dtype(dtype_name).numpy
    results = []
    for i, case in enumerate(cases):
        actual = np.fromfile(work_dir / f"out{i}.bin", dtype=out_dtype)
        expected = reference.expected_output(plan.kernel, dtype_name, case)
        reduced = (reference.reduction_operand(plan.kernel, dtype_name, case)
                   if plan.kernel.is_reduction else None)
        if actual.shape != expected.shape:
            verdict = compare.Verdict(False, expected.size, str(accuracy), mismatch_count=1)
            verdict.mismatches = []
        else:
            verdict = compare.compare(expected, actual, accuracy, reduced)
        results.append(CaseResult(case.label, case.size, verdict))
    passed = all(r.verdict.passed for r in results)
    if passed != (done.returncode == TB_MATCH):
        # The testbench checks the results itself (as Vitis cosim needs); its verdict
        # and fpgakern's must agree, or one of the two checks is wrong.
        said = "a mismatch" if done.returncode == TB_MISMATCH else "a match"
        return CsimResult(False, results, error=f"the testbench reports {said}, fpgakern's "
                          f"comparison does not ({(done.stderr or done.stdout).strip()[:200]})")
    return CsimResult(passed, results)
