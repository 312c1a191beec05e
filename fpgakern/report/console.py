"""The console view of a build: a live rich display on a terminal, plain lines elsewhere."""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from fpgakern.orchestrate.library import LibraryLink
from fpgakern.orchestrate.scheduler import (
    BLOCKED,
    CACHED,
    FAILED,
    FINAL,
    PASSED,
    RUNNING,
    SKIPPED,
    BuildResult,
    Task,
)

STYLE = {PASSED: "green", CACHED: "cyan", FAILED: "red", BLOCKED: "red", SKIPPED: "yellow",
         RUNNING: "blue"}


class BuildView:
    """Observer of a build's tasks. Use as a context manager around ``Scheduler.run``."""

    def __init__(self, console: Console, total: int, quiet: bool = False) -> None:
        self.console = console
        self.total = total
        self.quiet = quiet
        self.live_mode = console.is_terminal and not quiet
        self.running: dict[str, float] = {}
        self.failures: list[Task] = []
        self.progress = Progress(
            TextColumn("[bold]build"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
            TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
            console=console,
        )
        self.bar = self.progress.add_task("tasks", total=total)
        self.live: Live | None = None

    def __enter__(self) -> BuildView:
        if self.live_mode:
            self.live = Live(self._render(), console=self.console, refresh_per_second=4,
                             transient=True)
            self.live.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.live is not None:
            self.live.__exit__(kind, error, trace)

    def __call__(self, task: Task) -> None:
        if task.status == RUNNING:
            self.running[task.name] = time.monotonic()
        else:
            self.running.pop(task.name, None)
        if task.status in FINAL:
            self.progress.advance(self.bar)
            if task.status == FAILED:
                self.failures.append(task)
            if not self.live_mode and not self.quiet and task.status in (PASSED, FAILED):
                self.console.print(_line(task), highlight=False)
        if self.live is not None:
            self.live.update(self._render())

    def _render(self) -> Group:
        table = Table.grid(padding=(0, 1))
        now = time.monotonic()
        for name, since in list(self.running.items())[:8]:
            table.add_row(Text("running", style="blue"), name, f"{now - since:5.1f}s")
        more = len(self.running) - 8
        if more > 0:
            table.add_row("", f"... and {more} more", "")
        for task in self.failures[-5:]:
            table.add_row(Text("FAILED", style="red"), task.name, _detail(task))
        return Group(self.progress, table)


def _detail(task: Task) -> str:
    if task.outcome is not None:
        return task.outcome.detail
    return task.reason


def _line(task: Task) -> Text:
    seconds = f" ({task.outcome.seconds:.1f}s)" if task.outcome else ""
    text = Text(f"{task.status:>7} ", style=STYLE.get(task.status, ""))
    text.append(f"{task.name}{seconds}: {_detail(task)}")
    return text


def summary_table(result: BuildResult) -> Table:
    """One row per variant: each step's status."""
    step_names = list(dict.fromkeys(t.step.name for t in result.tasks))
    table = Table(title=f"Build of {len(result.variants)} variants", title_justify="left")
    table.add_column("kernel")
    table.add_column("rung")
    table.add_column("dtype")
    for name in step_names:
        table.add_column(name)
    for variant, tasks in result.variants.items():
        by_step = {t.step.name: t for t in tasks}
        cells = []
        for name in step_names:
            task = by_step.get(name)
            cells.append(Text(task.status, style=STYLE.get(task.status, "")) if task else "")
        table.add_row(variant.kernel, str(variant.rung), variant.dtype, *cells)
    return table


def summary_line(result: BuildResult) -> Text:
    counts = [(s, result.count(s)) for s in (PASSED, CACHED, FAILED, BLOCKED, SKIPPED)]
    parts = ", ".join(f"{n} {s}" for s, n in counts if n)
    style = "red" if result.failed else "green"
    return Text(f"{len(result.tasks)} tasks in {result.seconds:.1f}s ({result.executor}): "
                f"{parts}", style=style)


def failure_lines(result: BuildResult) -> list[Text]:
    out = []
    for task in result.tasks:
        if task.status == FAILED:
            out.append(Text(f"FAILED {task.name}: {_detail(task)}", style="red"))
    return out


def artifact_lines(result: BuildResult) -> list[str]:
    """Each variant's folder and the files its tasks wrote, for small builds."""
    from fpgakern.errors import display_path

    lines = []
    for variant, tasks in result.variants.items():
        folder = tasks[0].folder
        lines.append(f"{variant}: {display_path(folder)}/")
        for task in tasks:
            if task.outcome is None:
                continue
            names = task.outcome.files
            folders = {n.split("/")[0] + "/" for n in names if "/" in n}
            files = (", ".join(names) if len(names) <= 4
                     else f"{', '.join(sorted(folders))} ({len(names)} files)") or "-"
            lines.append(f"  {task.step.name:5} {task.status:7} {files}  [{task.outcome.detail}]")
        lines.append("  manifest.json")
    return lines


def library_lines(library: LibraryLink) -> list[Text]:
    from fpgakern.errors import display_path

    lines = [Text(f"library: {line}", style="yellow") for line in library.left_out]
    if library.error:
        lines.append(Text(f"library link failed: {library.error}", style="red"))
    elif library.path is not None:
        lines.append(Text(f"library: {display_path(library.path)} with "
                          f"{len(library.included)} kernels", style="green"))
    return lines
