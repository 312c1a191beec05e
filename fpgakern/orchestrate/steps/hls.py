"""Step ``hls``: the Vitis HLS C++ kernel, its csim testbench and its link config."""

from __future__ import annotations

from fpgakern.backends import hls
from fpgakern.orchestrate.step import Step, StepContext, StepOutcome
from fpgakern.util.text import plural


class Hls(Step):
    name = "hls"
    # The templates and headers, not the csim stand-ins for the Vitis headers: the kernel
    # includes those, but only the csim step compiles them.
    data = ("hls_templates", "!hls_templates/csim")

    def run(self, ctx: StepContext) -> StepOutcome:
        # The link config is written for the platform the build places the variant on
        # (`fpgakern build --platform`; `fpgakern link --platform` places it again).
        sources = hls.generate(ctx.plan, ctx.work)
        files = [sources.kernel, sources.testbench, *sources.headers]
        if sources.link_config:
            files.append(sources.link_config)
        names = [str(p.relative_to(ctx.work)) for p in files]
        detail = plural(len(names), "file")
        placement = ctx.plan.placement
        fit = placement.fit
        if fit is not None:
            # The resource estimate (docs/link.md, "Resources"): its summary in the build's
            # output; the manifest holds the whole of it.
            detail += f"; estimated {plural(placement.compute_units, 'CU')}: {fit.summary()}"
            if not fit.fits:
                where = placement.memory.platform if placement.memory else "the platform"
                return StepOutcome(False, f"does not fit {where}: {'; '.join(fit.problems)}",
                                   names)
        return StepOutcome(True, detail, names)
