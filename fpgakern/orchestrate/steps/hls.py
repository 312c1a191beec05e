"""Step ``hls``: the Vitis HLS C++ kernel, its csim testbench and (rung 3) link config."""

from __future__ import annotations

from fpgakern.backends import hls
from fpgakern.ladder import Plan
from fpgakern.orchestrate.step import Step, StepContext, StepOutcome, tree_digest


class Hls(Step):
    name = "hls"

    def fingerprint(self, plan: Plan) -> list[str]:
        return [tree_digest("hls_templates", "backends/hls", "backends/templates.py")]

    def run(self, ctx: StepContext) -> StepOutcome:
        sources = hls.generate(ctx.plan, ctx.work)
        files = [sources.kernel, sources.testbench, *sources.headers]
        if sources.link_config:
            files.append(sources.link_config)
        names = [str(p.relative_to(ctx.work)) for p in files]
        return StepOutcome(True, f"{len(names)} files", names)
