"""A task (one step of one variant), its states, and what a build of tasks gave.

The data the scheduler fills in and the manifest, the library link and the reports
read: it lives apart from the scheduler so that its readers need none of the machinery.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fpgakern.ladder import Plan, Variant
from fpgakern.orchestrate.cache import Record
from fpgakern.orchestrate.step import Step, StepOutcome

# Task states. A task ends cached, passed, failed, skipped (the step does not apply) or
# blocked (a task it comes after did not pass).
WAITING, RUNNING = "waiting", "running"
CACHED, PASSED, FAILED, SKIPPED, BLOCKED = "cached", "passed", "failed", "skipped", "blocked"
FINAL = {CACHED, PASSED, FAILED, SKIPPED, BLOCKED}
GOOD = {CACHED, PASSED}


@dataclass
class Task:
    plan: Plan
    step: Step
    folder: Path
    key: str = ""
    status: str = WAITING
    outcome: StepOutcome | None = None
    reason: str = ""  # why skipped or blocked
    # The task's record in the build tree: the one is_fresh trusted, or the one commit
    # wrote (the manifest reads it instead of loading every record again).
    record: Record | None = None

    @property
    def variant(self) -> Variant:
        return self.plan.variant

    @property
    def name(self) -> str:
        return f"{self.variant} {self.step.name}"


@dataclass
class BuildResult:
    root: Path
    tasks: list[Task]
    seconds: float
    executor: str
    variants: dict[Variant, list[Task]] = field(default_factory=dict)

    @property
    def failed(self) -> list[Task]:
        return [t for t in self.tasks if t.status in (FAILED, BLOCKED)]

    @property
    def passed(self) -> bool:
        return not self.failed

    def count(self, status: str) -> int:
        return sum(t.status == status for t in self.tasks)


# Told about every task as it starts and ends (the console view is one).
Observer = Callable[[Task], None]
