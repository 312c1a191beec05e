"""Step ``csim``: compile the HLS C++ with g++ and judge it against numpy."""

from __future__ import annotations

import json

from fpgakern.backends.hls.generator import sources_in
from fpgakern.ladder import Plan
from fpgakern.orchestrate.step import Step, StepContext, StepOutcome
from fpgakern.tools import gxx
from fpgakern.verify import csim, matrix_csim, registers_csim

CASE_SIZE = 1000


class Csim(Step):
    name = "csim"
    after = ("hls",)
    # The stand-ins for the Vitis headers it compiles against; the kernel's own sources
    # (templates rendered, fpgakern_ops.h) come from the hls task, whose key it includes.
    data = ("hls_templates/csim",)

    def fingerprint(self, plan: Plan) -> list[str]:
        # The flags and sizes are in the hashed code too; the compiler is not.
        return [gxx.identity(), *csim.CXXFLAGS, str(CASE_SIZE)]

    def run(self, ctx: StepContext) -> StepOutcome:
        plan = ctx.plan
        if plan.kernel.kind == "contraction":  # matrices of many sizes (verify.matrix_csim)
            result = matrix_csim.run(plan, sources_in(plan, ctx.work), ctx.work / "csim")
        elif plan.kernel.kind == "registers":  # scalar cases (verify.registers)
            result = registers_csim.csim(plan, sources_in(plan, ctx.work), ctx.work / "csim")
        else:
            cases = csim.cases_for(plan, CASE_SIZE)  # a shaped kind's: whole shaped tensors
            result = csim.run(plan, sources_in(plan, ctx.work), cases, ctx.work / "csim")
        report = ctx.work / "csim" / "report.json"
        report.write_text(json.dumps(result.to_json(), indent=2) + "\n")
        return StepOutcome(result.passed, result.summary(), ["csim/report.json"],
                           {"cases": len(result.cases)})
