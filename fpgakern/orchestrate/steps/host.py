"""Step ``host``: the C++ host wrapper on XRT's native API (and its command-line main)."""

from __future__ import annotations

from fpgakern.backends import host
from fpgakern.orchestrate.step import Step, StepContext, StepOutcome
from fpgakern.util.text import plural


class Host(Step):
    name = "host"
    after = ("hls",)
    data = ("hls_templates", "!hls_templates/csim")  # host*.j2, dispatched like the kernel's

    def run(self, ctx: StepContext) -> StepOutcome:
        sources = host.generate(ctx.plan, ctx.work / "host")
        files = [sources.header, sources.main, sources.common]
        names = [str(p.relative_to(ctx.work)) for p in files]
        return StepOutcome(True, plural(len(names), "file"), names)
