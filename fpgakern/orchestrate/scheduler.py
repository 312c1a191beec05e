"""The build: every selected variant's tasks, run in dependency order, cached by content.

The scheduler keeps the build tree: it decides which tasks are fresh, ships the others to
an executor with the files they need, writes what comes back (atomically, record last),
and tells an observer about every task as it starts and ends. One build holds the tree's
lock, so two ``fpgakern build`` processes on one tree take turns instead of interleaving.
"""

from __future__ import annotations

import fcntl
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fpgakern.errors import UsageError
from fpgakern.ladder import Plan, Variant
from fpgakern.orchestrate import cache, manifest
from fpgakern.orchestrate.executors import Executor
from fpgakern.orchestrate.step import Step, StepOutcome
from fpgakern.orchestrate.steps import steps
from fpgakern.orchestrate.task import (
    BLOCKED,
    CACHED,
    FAILED,
    FINAL,
    GOOD,
    PASSED,
    RUNNING,
    SKIPPED,
    WAITING,
    BuildResult,
    Observer,
    Task,
)
from fpgakern.orchestrate.worker import StepJob
from fpgakern.spec import yamlpos


def select_steps(until: str | tuple[str, ...] | None) -> list[Step]:
    """The steps to run: all of them, or those needed up to and including ``until`` (a
    step, or several: each with what it needs)."""
    everything = steps()
    if until is None:
        return list(everything.values())
    wanted = (until,) if isinstance(until, str) else until
    for name in wanted:
        if name not in everything:
            known = ", ".join([*everything, "link"])
            raise UsageError(f"unknown step {name!r} for --until (steps: {known})")
    needed: dict[str, Step] = {}

    def need(name: str) -> None:
        for dependency in everything[name].after:
            need(dependency)
        needed[name] = everything[name]

    for name in wanted:
        need(name)
    return [s for s in everything.values() if s.name in needed]


def spec_texts(plan: Plan) -> dict[str, str]:
    """The spec files a variant is built from, keyed by their path below kernel_specs/."""
    # Read as loading read them (regular files of bounded size): a spec swapped for a
    # FIFO or a huge file after validation is an error, not a hang.
    source = plan.kernel.source
    texts = {f"{plan.kernel.category}/{source.name}": yamlpos.read_text(source)}
    category = source.parent / "_category.yaml"
    if category.exists():
        texts[f"{plan.kernel.category}/{category.name}"] = yamlpos.read_text(category)
    return texts


@contextmanager
def tree_lock(root: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the build tree's lock; wait (telling ``on_wait``) while another build has it."""
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".fpgakern.lock").open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait:
                on_wait()
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class TaskGraph:
    """Every task of the selected variants, with its key, before anything runs."""

    def __init__(self, root: Path, plans: list[Plan], step_list: list[Step]) -> None:
        self.root = root
        self.tasks: list[Task] = []
        self.by_variant: dict[Variant, dict[str, Task]] = {}
        self.specs: dict[Variant, dict[str, str]] = {}
        for plan in plans:
            variant = plan.variant
            if variant in self.by_variant:
                continue
            self.specs[variant] = spec_texts(plan)
            chain: dict[str, Task] = {}
            for step in step_list:
                task = Task(plan, step, plan.variant_dir(root))
                chain[step.name] = task
                self.tasks.append(task)
            self.by_variant[variant] = chain
        self._plan_keys()

    def _plan_keys(self) -> None:
        """Compute every key and settle skipped tasks before anything runs."""
        for variant, chain in self.by_variant.items():
            for task in chain.values():
                required = [chain[d] for d in task.step.after if d in chain]
                skipped = next((u for u in required if u.status == SKIPPED), None)
                reason = skipped.reason if skipped else task.step.applies(task.plan)
                if reason:
                    task.status, task.reason = SKIPPED, reason
                    continue
                task.key = cache.task_key(task.step, variant, self.specs[variant],
                                          task.step.key_inputs(task.plan),
                                          [u.key for u in self._upstream(task)])

    def _upstream(self, task: Task) -> list[Task]:
        """The tasks this one waits for: its required steps and the used ones that run."""
        chain = self.by_variant[task.variant]
        used = [chain[d] for d in task.step.uses if d in chain and chain[d].status != SKIPPED]
        return [chain[d] for d in task.step.after if d in chain] + used


def task_keys(
    plans: list[Plan], step_list: list[Step] | None = None
) -> dict[tuple[Variant, str], str]:
    """Every task's cache key, as a build of ``plans`` computes it, running nothing and
    reading no build tree: (variant, step) -> key, without the tasks that are skipped."""
    graph = TaskGraph(Path(), plans, list(steps().values()) if step_list is None else step_list)
    return {(task.variant, task.step.name): task.key for task in graph.tasks if task.key}


class Scheduler(TaskGraph):
    def __init__(self, root: Path, plans: list[Plan], step_list: list[Step],
                 executor: Executor, observer: Observer | None = None) -> None:
        super().__init__(root, plans, step_list)
        self.executor = executor
        self.observer = observer or (lambda task: None)

    def _ready(self, task: Task) -> bool:
        return task.status == WAITING and all(u.status in GOOD for u in self._upstream(task))

    def _block_downstream(self) -> None:
        changed = True
        while changed:
            changed = False
            for task in self.tasks:
                if task.status != WAITING:
                    continue
                bad = next((u for u in self._upstream(task)
                            if u.status in (FAILED, BLOCKED)), None)
                if bad:
                    task.status, task.reason = BLOCKED, f"{bad.step.name} did not pass"
                    self.observer(task)
                    changed = True

    def _job(self, task: Task) -> StepJob:
        inputs: dict[str, bytes] = {}
        outcomes: dict[str, StepOutcome] = {}
        pending = list(self._upstream(task))
        seen: set[str] = set()
        while pending:  # every ancestor's files: a step may read any of them
            up = pending.pop()
            if up.step.name in seen or up.outcome is None:
                continue
            seen.add(up.step.name)
            outcomes[up.step.name] = up.outcome
            for name in up.outcome.files:
                inputs[name] = (up.folder / name).read_bytes()
            pending.extend(self._upstream(up))
        return StepJob(task.variant, task.step.name, self.specs[task.variant], inputs,
                       outcomes)

    def run(self) -> BuildResult:
        started = time.monotonic()
        running: dict[Any, Task] = {}
        try:
            while True:
                for task in self.tasks:
                    if not self._ready(task):
                        continue
                    record = cache.is_fresh(task.folder, task.step.name, task.key)
                    if record is not None:
                        task.status, task.outcome, task.record = CACHED, record.outcome(), record
                        self.observer(task)
                        self._variant_done(task)
                        continue
                    task.status = RUNNING
                    self.observer(task)
                    running[self.executor.submit(self._job(task))] = task
                if not running:
                    if any(self._ready(t) for t in self.tasks):
                        continue
                    break
                for future in self.executor.wait_any(running):
                    self._finish(running.pop(future), future)
        finally:
            for task in running.values():  # interrupted: nothing half-done is recorded
                task.status, task.reason = BLOCKED, "interrupted"
        result = BuildResult(self.root, self.tasks, time.monotonic() - started,
                             self.executor.description)
        result.variants = {v: list(chain.values()) for v, chain in self.by_variant.items()}
        return result

    def _finish(self, task: Task, future: Any) -> None:
        try:
            job = self.executor.result(future)
            outcome, files = job.outcome, job.files
        except Exception as err:  # a lost worker, a broken pool: the task failed
            outcome, files = StepOutcome(False, f"executor error: {err}"), {}
        cache.write_outputs(task.folder, files)
        task.record = cache.commit(task.folder, task.step.name, task.key, outcome)
        task.outcome = outcome
        task.status = PASSED if outcome.passed else FAILED
        self.observer(task)
        if not outcome.passed:
            self._block_downstream()
        self._variant_done(task)

    def _variant_done(self, task: Task) -> None:
        chain = self.by_variant[task.variant]
        if all(t.status in FINAL for t in chain.values()):
            manifest.write(task.plan, task.folder, list(chain.values()),
                           self._earlier_results(task.plan, chain))

    def _earlier_results(self, plan: Plan, chain: dict[str, Task]) -> dict[str, cache.Record]:
        """The records of the steps this build did not select (``--until``) that are still
        current: a build up to csim after a full one keeps the sim verdict in the manifest,
        and a build up to host keeps the csim verdict the runtime asks for."""
        others = [s for s in steps().values() if s.name not in chain]
        if not others:
            return {}
        whole = TaskGraph(self.root, [plan], list(steps().values()))
        folder = plan.variant_dir(self.root)
        found = {}
        for other in whole.tasks:
            if other.step.name in chain or not other.key:
                continue
            record = cache.load_record(folder, other.step.name)
            if record is None or record.key != other.key:
                continue  # never ran, or ran on inputs that have changed since
            if record.passed and not cache.is_fresh(folder, other.step.name, other.key):
                continue  # its outputs were altered or removed since
            found[other.step.name] = record
        return found
