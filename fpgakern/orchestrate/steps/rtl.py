"""Step ``rtl``: the SystemVerilog kernel, with every module it needs beside it.

The support and operator modules are copied next to the generated ones, with a
``filelist.f`` in compile order, so a variant's ``rtl/`` folder is complete on its own:
hand it to a simulator, Yosys or Vivado as it is.
"""

from __future__ import annotations

import shutil

from fpgakern.backends.rtl.generate import check_supported, datapath_of, generate, reduction_of
from fpgakern.errors import FpgakernError
from fpgakern.ladder import Plan
from fpgakern.orchestrate.step import Step, StepContext, StepOutcome
from fpgakern.util.text import plural

FILELIST = "filelist.f"


class Rtl(Step):
    name = "rtl"

    def applies(self, plan: Plan) -> str | None:
        try:
            check_supported(plan)
            if plan.kernel.kind != "transform":  # no expression to schedule
                datapath_of(plan)
                reduction_of(plan)
        except FpgakernError as err:
            return str(err)
        return None

    def run(self, ctx: StepContext) -> StepOutcome:
        folder = ctx.work / "rtl"
        sources = generate(ctx.plan, folder)
        names = []
        for path in sources.files:
            if path.parent != folder:
                shutil.copyfile(path, folder / path.name)
            names.append(path.name)
        (folder / FILELIST).write_text("".join(f"{name}\n" for name in names))
        files = [f"rtl/{name}" for name in [*names, FILELIST]]
        return StepOutcome(True,
                           f"{plural(len(names), 'file')}, pipeline latency {sources.latency}",
                           files,
                           {"latency": sources.latency, "lanes": sources.lanes,
                            "top": sources.top})


def rtl_files(ctx: StepContext) -> list[str]:
    """The variant's RTL sources in compile order, as the rtl step listed them."""
    folder = ctx.work / "rtl"
    return [str(folder / line) for line in (folder / FILELIST).read_text().split()]
