"""Step ``hls``: the Vitis HLS C++ kernel, its csim testbench and (rung 3) link config."""

from __future__ import annotations

from fpgakern.backends import hls
from fpgakern.link import platforms
from fpgakern.orchestrate.step import Step, StepContext, StepOutcome
from fpgakern.util.text import plural


class Hls(Step):
    name = "hls"
    # The templates and headers, not the csim stand-ins for the Vitis headers: the kernel
    # includes those, but only the csim step compiles them.
    data = ("hls_templates", "!hls_templates/csim")

    def run(self, ctx: StepContext) -> StepOutcome:
        # Rung 3's link.cfg is written for the default platform, the one the build links
        # its library for (`fpgakern link --platform` re-places CUs on another card).
        sources = hls.generate(ctx.plan, ctx.work, platforms.load(platforms.DEFAULT))
        files = [sources.kernel, sources.testbench, *sources.headers]
        if sources.link_config:
            files.append(sources.link_config)
        names = [str(p.relative_to(ctx.work)) for p in files]
        return StepOutcome(True, plural(len(names), "file"), names)
