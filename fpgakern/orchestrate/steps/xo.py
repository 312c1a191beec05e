"""Step ``xo``: the Vitis kernel object, with the RTL kernel (when there is one) as its IP
and the HLS C++ as its CPU-emulation model."""

from __future__ import annotations

from pathlib import Path

from fpgakern.backends.hls.generator import sources_in
from fpgakern.ir.kernel import NO_XO_KINDS
from fpgakern.ladder import Plan
from fpgakern.orchestrate.step import Step, StepContext, StepOutcome
from fpgakern.orchestrate.steps.rtl import rtl_files


class Xo(Step):
    name = "xo"
    after = ("hls",)
    uses = ("rtl",)
    # It imports the HLS generator for the names of the files, whose content the hls
    # task's key covers: no template of its own.
    data = ("!hls_templates",)

    def applies(self, plan: Plan) -> str | None:
        return NO_XO_KINDS.get(plan.kernel.kind)

    def fingerprint(self, plan: Plan) -> list[str]:
        from fpgakern.link import repro

        # The zip entries' time comes from SOURCE_DATE_EPOCH (or the release date).
        return [f"time={repro.build_time()}"]

    def run(self, ctx: StepContext) -> StepOutcome:
        from fpgakern.link.xo import write_xo  # the linker's packages: only when it runs

        hls = sources_in(ctx.plan, ctx.work)
        rtl = [Path(f) for f in rtl_files(ctx)] if "rtl" in ctx.upstream else []
        target = ctx.work / f"{ctx.plan.top}.xo"
        write_xo(ctx.plan, target, list(hls.kernel_sources), rtl)
        flows = "RTL kernel + CPU model" if rtl else "CPU model only (no RTL yet)"
        return StepOutcome(True, f"{target.name}: {flows}", [target.name],
                           {"bytes": target.stat().st_size})
