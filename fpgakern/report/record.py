"""What a build leaves behind, written in one go: the reports folder (run_results.json,
JUnit, HTML), the history entry, and the regressions against the previous build."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fpgakern.orchestrate.library import LibraryLink
from fpgakern.orchestrate.task import BuildResult
from fpgakern.report import history, html, results


@dataclass
class BuildReport:
    result: BuildResult
    folder: Path  # reports/<timestamp>
    data: dict[str, object]
    regressions: list[history.Regression]
    library: LibraryLink | None = None


def recorder(command: str) -> Callable[[BuildResult, LibraryLink | None], BuildReport]:
    """The ``record`` of ``orchestrate.build.run_build`` for a build run by ``command``
    (the command line the reports name)."""
    def record(result: BuildResult, linked: LibraryLink | None) -> BuildReport:
        root = result.root
        folder = results.new_report_dir(root)
        data = results.write(result, folder, command, linked)
        run = history.record(root, data)
        found = history.regressions(root, run)
        html.write(folder, data, found, root)
        results.point_latest(root, folder)
        return BuildReport(result, folder, data, found, linked)

    return record
