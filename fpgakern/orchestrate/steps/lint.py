"""Step ``lint``: ``verilator --lint-only -Wall`` over the variant's complete RTL."""

from __future__ import annotations

from pathlib import Path

from fpgakern.backends.rtl.generate import RtlSources
from fpgakern.backends.rtl.lint import lint
from fpgakern.interface import interface
from fpgakern.ladder import Plan
from fpgakern.orchestrate.step import Step, StepContext, StepOutcome
from fpgakern.orchestrate.steps.rtl import rtl_files
from fpgakern.tools import verilator


class Lint(Step):
    name = "lint"
    after = ("rtl",)

    def applies(self, plan: Plan) -> str | None:
        return verilator.missing()

    def fingerprint(self, plan: Plan) -> list[str]:
        return [verilator.version()]

    def run(self, ctx: StepContext) -> StepOutcome:
        data = ctx.upstream["rtl"].data
        sources = RtlSources(ctx.plan.top, [Path(f) for f in rtl_files(ctx)],
                             interface(ctx.plan), data["latency"], data["lanes"])
        result = lint(sources)
        (ctx.work / "rtl" / "lint.log").write_text(result.output + "\n")
        detail = "clean under -Wall" if result.ok else result.output.splitlines()[0]
        return StepOutcome(result.ok, detail, ["rtl/lint.log"])
