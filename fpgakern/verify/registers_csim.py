"""A register kernel's C simulation: its testbench on every case of
fpgakern.verify.registers, each result judged against the reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fpgakern.backends.hls.generator import HlsSources
from fpgakern.errors import ToolError
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ladder import Plan
from fpgakern.verify.csim import TB_MATCH, CaseResult, CsimResult, compile_testbench, run_testbench
from fpgakern.verify.registers import judge, write_case


def csim(plan: Plan, sources: HlsSources, work_dir: Path) -> CsimResult:
    """Compile the testbench, run every case (one case file), judge each result."""
    kernel, dtype_name = plan.kernel, plan.dtype.name
    work_dir.mkdir(parents=True, exist_ok=True)
    try:
        binary = compile_testbench(sources)
    except ToolError as err:
        return CsimResult(False, error=str(err))
    want = write_case(plan, work_dir / "case0.bin")
    count = len(next(iter(want.values())))
    done, failure = run_testbench(binary, 1, work_dir)
    if failure is not None:
        return failure
    results = np.fromfile(work_dir / "out0.bin", dtype=DTYPES[dtype_name].numpy)
    got = {name: results[i::len(kernel.outputs)] for i, name in enumerate(kernel.outputs)}
    verdict = judge(kernel, dtype_name, want, got)
    result = CsimResult(verdict.passed, [CaseResult(f"{count} scalar cases", count, verdict)])
    if verdict.passed != (done.returncode == TB_MATCH):
        return CsimResult(False, result.cases, error="the testbench and fpgakern's comparison "
                          f"disagree ({done.stdout.strip()[-200:]})")
    return result
