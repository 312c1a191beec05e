"""One build under the tree's lock: schedule the tasks, link the library when asked, then
hand what happened to the caller's ``record`` (the reports, a layer above)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from fpgakern.ladder import Plan
from fpgakern.orchestrate.executors import Executor
from fpgakern.orchestrate.library import DEFAULT_PLATFORM, LibraryLink, link_library
from fpgakern.orchestrate.scheduler import Scheduler, select_steps, tree_lock
from fpgakern.orchestrate.task import BuildResult, Observer

Recorded = TypeVar("Recorded")


def run_build(
    plans: list[Plan],
    root: Path,
    executor: Executor,
    *,
    record: Callable[[BuildResult, LibraryLink | None], Recorded],
    until: str | tuple[str, ...] | None = None,
    observer: Observer | None = None,
    on_wait: Callable[[], None] | None = None,
    platform: str = DEFAULT_PLATFORM,
    library: bool = False,
) -> Recorded:
    """Build ``plans`` into ``root`` holding the tree's lock, link the library when asked
    (``--until link``, or the whole library), and return ``record(result, library link)``.

    ``record`` runs under the lock too: two builds of one tree write their reports and
    history entries in turn, each after its own build.
    """
    link = library or until == "link"
    step_list = select_steps(None if until == "link" else until)
    with tree_lock(root, on_wait):
        result = Scheduler(root, plans, step_list, executor, observer).run()
        linked = link_library(result, platform) if link else None
        return record(result, linked)
