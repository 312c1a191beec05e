"""Step ``host``: the C++ host wrapper on XRT's native API (and its command-line main)."""

from __future__ import annotations

from fpgakern.backends import host
from fpgakern.ir.kernel import NO_HOST_KINDS
from fpgakern.ladder import Plan
from fpgakern.orchestrate.step import Step, StepContext, StepOutcome
from fpgakern.util.text import plural


class Host(Step):
    name = "host"
    after = ("hls",)
    data = ("hls_templates", "!hls_templates/csim")  # host*.j2, dispatched like the kernel's

    def applies(self, plan: Plan) -> str | None:
        if plan.kernel.kind in NO_HOST_KINDS:
            return NO_HOST_KINDS[plan.kernel.kind]
        if plan.kernel.streams:  # no host drives it alone: a chain's link joins its streams
            ports = ", ".join(plan.kernel.streams)
            return (f"AXI4-Stream ports ({ports}): the kernel runs only in a linked chain of "
                    "kernels, which has no host wrapper of its own")
        return None

    def run(self, ctx: StepContext) -> StepOutcome:
        sources = host.generate(ctx.plan, ctx.work / "host")
        files = [sources.header, sources.main, sources.common]
        names = [str(p.relative_to(ctx.work)) for p in files]
        return StepOutcome(True, plural(len(names), "file"), names)
