"""One build from selection to reports: schedule the tasks, then write what happened."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fpgakern.ladder import Plan
from fpgakern.orchestrate.executors import Executor
from fpgakern.orchestrate.library import DEFAULT_PLATFORM, LibraryLink, link_library
from fpgakern.orchestrate.scheduler import BuildResult, Observer, Scheduler, select_steps, tree_lock
from fpgakern.report import history, html, results


@dataclass
class BuildReport:
    result: BuildResult
    folder: Path  # reports/<timestamp>
    data: dict[str, object]
    regressions: list[history.Regression]
    library: LibraryLink | None = None


def run_build(
    plans: list[Plan],
    root: Path,
    executor: Executor,
    *,
    until: str | None = None,
    observer: Observer | None = None,
    command: str = "fpgakern build",
    on_wait: object = None,
    platform: str = DEFAULT_PLATFORM,
    library: bool = False,
) -> BuildReport:
    """Build ``plans`` into ``root`` holding the tree's lock, link the library when asked
    (``--until link``, or the whole library), then write the reports and the history
    entry, and compare with the previous build."""
    link = library or until == "link"
    step_list = select_steps(None if until == "link" else until)
    with tree_lock(root, on_wait if callable(on_wait) else None):
        result = Scheduler(root, plans, step_list, executor, observer).run()
        linked = link_library(result, platform) if link else None
        folder = results.new_report_dir(root)
        data = results.write(result, folder, command, linked)
        run = history.record(root, data)
        found = history.regressions(root, run)
        html.write(folder, data, found, root)
        results.point_latest(root, folder)
    return BuildReport(result, folder, data, found, linked)
