"""C simulation of a contraction kernel: random and special-value operands of many sizes
(square, tall, wide, K = 1, K = 0, odd, larger than a tile, batched), each result held
bit for bit to fpgakern.verify.matmul's reference (any NaN matches any NaN)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fpgakern.backends.hls.generator import HlsSources
from fpgakern.errors import ToolError
from fpgakern.ladder import Plan
from fpgakern.verify import matmul
from fpgakern.verify.csim import (
    TB_MATCH,
    CaseResult,
    CsimResult,
    compile_testbench,
    run_testbench,
)
from fpgakern.verify.matrix_cases import MatrixCase, cases, exact_epilogue, judge


def write_case(case: MatrixCase, plan: Plan, path: Path) -> np.ndarray:
    """The testbench's case file (hls_templates/contraction/testbench.cpp.j2); returns
    the reference result it holds."""
    kernel = plan.kernel
    element = plan.dtype.numpy
    scalar = np.dtype(np.float32 if plan.dtype.is_float else np.int32)
    expected = matmul.contract(kernel, plan.dtype.name, case.tensors, case.scalars)
    parts = [np.asarray(case.sizes, np.int32).tobytes()]
    parts += [np.asarray(case.scalars[s.name], scalar).tobytes() for s in kernel.scalars]
    for array in [*(case.tensors[name] for name in kernel.inputs), expected]:
        flat = np.ascontiguousarray(array, dtype=element).ravel()
        parts += [np.int64(flat.size).tobytes(), flat.tobytes()]
    path.write_bytes(b"".join(parts))
    return np.ascontiguousarray(expected, dtype=element).ravel()


def run(plan: Plan, sources: HlsSources, work_dir: Path) -> CsimResult:
    """Compile (or reuse) the testbench, run every case and judge it."""
    work_dir.mkdir(parents=True, exist_ok=True)
    try:
        binary = compile_testbench(sources)
    except ToolError as err:
        return CsimResult(False, error=str(err))
    all_cases = list(cases(plan.kernel, plan.dtype.name))
    expected = [write_case(case, plan, work_dir / f"case{i}.bin")
                for i, case in enumerate(all_cases)]
    done, failure = run_testbench(binary, len(all_cases), work_dir)
    if failure is not None:
        return failure
    results = []
    for i, case in enumerate(all_cases):
        actual = np.fromfile(work_dir / f"out{i}.bin", dtype=plan.dtype.numpy)
        label = f"{case.label} ({'x'.join(map(str, case.sizes))})"
        results.append(CaseResult(label, case.size,
                                  judge(expected[i], actual, plan.kernel, plan.dtype.name, case)))
    passed = all(r.verdict.passed for r in results)
    # The testbench compares bits: an epilogue of inexact operators may differ in bits and
    # still be within its bound, so the two must agree only on an exact epilogue.
    if exact_epilogue(plan.kernel, plan.dtype.name) and passed != (done.returncode == TB_MATCH):
        return CsimResult(False, results, error="the testbench and fpgakern's comparison "
                          f"disagree ({(done.stderr or done.stdout).strip()[:200]})")
    return CsimResult(passed, results)
