"""Running one task anywhere: a local process or a Dask worker on another machine.

A job carries everything the task needs (the spec files, the upstream outputs) and the
result carries everything it made, so workers share no file system with the build tree.
"""

from __future__ import annotations

import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from fpgakern.errors import FpgakernError
from fpgakern.ladder import Plan, Variant
from fpgakern.orchestrate.step import StepContext, StepOutcome
from fpgakern.orchestrate.steps import steps
from fpgakern.spec.library import Library


@dataclass
class StepJob:
    variant: Variant
    step: str
    specs: dict[str, str]  # paths below kernel_specs/ -> text: the spec and its category
    inputs: dict[str, bytes] = field(default_factory=dict)  # upstream outputs
    upstream: dict[str, StepOutcome] = field(default_factory=dict)


@dataclass
class JobResult:
    outcome: StepOutcome
    files: dict[str, bytes]


def run_job(job: StepJob) -> JobResult:
    """Run one task in a scratch folder and return its outcome and output files."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fpgakern-task-") as scratch:
        root = Path(scratch)
        for name, text in job.specs.items():
            target = root / "kernel_specs" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        work = root / "variant"
        for name, data in job.inputs.items():
            target = work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        work.mkdir(parents=True, exist_ok=True)
        try:
            plan = Plan(Library(root / "kernel_specs").get(job.variant.kernel), job.variant)
            outcome = steps()[job.step].run(StepContext(plan, work, job.upstream))
            files = {name: (work / name).read_bytes() for name in outcome.files}
        except FpgakernError as err:
            outcome, files = StepOutcome(False, str(err)), {}
        except Exception as err:  # a bug in a step must not stop the other tasks
            outcome = StepOutcome(False, f"internal error: {type(err).__name__}: {err}",
                                  data={"traceback": traceback.format_exc()})
            files = {}
    outcome.seconds = time.monotonic() - started
    return JobResult(outcome, files)
