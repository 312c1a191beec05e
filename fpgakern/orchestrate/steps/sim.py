"""Step ``sim``: the RTL kernel in Verilator through cocotb, against numpy, with cycles.

It simulates the variant's ``rtl/`` folder as the ``rtl`` step wrote it (``filelist.f``
order), so the verdict is about the files a user takes away, not a fresh generation.
The fast memory model (64-cycle read latency) runs the standard cases (random data,
special values, size 1, a lane tail) plus the main case of SIZE elements, whose cycle
count gives the variant's elements per cycle for the ladder chart. A rung with no pipelined
compute rate (the naive rung: each element waits out its reads and write, about 150 cycles
on this memory model) runs a main case of NAIVE_SIZE: its cycles per element are the same
for any size, and 16384 of them took 2.5-3.5 million simulated cycles, a third of each
kernel's share of a full-library build.
"""

from __future__ import annotations

import json
from pathlib import Path

from fpgakern.ladder import Plan
from fpgakern.orchestrate.step import Step, StepContext, StepOutcome
from fpgakern.orchestrate.steps.rtl import rtl_files
from fpgakern.tools import gxx, verilator

SIZE = 16384
NAIVE_SIZE = 1024


def main_case_size(plan: Plan) -> int:
    """Elements of the main case: SIZE, or NAIVE_SIZE where the plan states no pipelined
    compute rate (its elements per cycle do not depend on the size)."""
    return SIZE if plan.performance.compute_elements_per_cycle is not None else NAIVE_SIZE


class Sim(Step):
    name = "sim"
    after = ("rtl",)

    def applies(self, plan: Plan) -> str | None:
        return verilator.missing()

    def fingerprint(self, plan: Plan) -> list[str]:
        # Its code, sim/ (testbenches, memory model) and the RTL library are in the key
        # already (Step.key_inputs); the simulator's and the C++ compiler's versions
        # (Verilator compiles the model with it) are not.
        return [verilator.version(), gxx.identity(), str(main_case_size(plan))]

    def run(self, ctx: StepContext) -> StepOutcome:
        from fpgakern.verify import rtlsim  # cocotb and the simulator: only when it runs

        plan = ctx.plan
        folder = ctx.work / "sim"
        folder.mkdir(parents=True, exist_ok=True)  # a skipped simulation still gets its file
        # (A register kernel's and a contraction's simulations are their own: rtlsim.)
        result = rtlsim.simulate(plan, size=main_case_size(plan), memory="fast",
                                 run_dir=folder, rtl_files=[Path(f) for f in rtl_files(ctx)])
        # The file holds what the simulation proved; the speed of this run (which varies
        # from run to run) goes only into the task's record.
        verdict = {k: v for k, v in result.to_json().items() if k != "sim_cycles_per_second"}
        (folder / "result.json").write_text(json.dumps(verdict, indent=2) + "\n")
        files = ["sim/result.json"] + (["sim/sim.log"] if (folder / "sim.log").exists() else [])
        data = {key: value for key, value in result.to_json().items()
                if key in ("cycles", "elements_per_cycle", "ideal_elements_per_cycle",
                           "sim_cycles_per_second", "size")}
        if result.skipped:
            return StepOutcome(False, f"skipped by the simulator: {result.skipped}", files, data)
        rate = result.elements_per_cycle
        detail = result.message if not result.passed else (
            f"{result.cycles} cycles, {rate:.3f} elements/cycle" if rate else result.message)
        return StepOutcome(bool(result.passed), detail, files, data)
