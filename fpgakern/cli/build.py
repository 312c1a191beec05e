"""``fpgakern build``: generate, verify and package kernel variants, cached by content."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.text import Text

from fpgakern import paths
from fpgakern.cli._build_options import execution_options
from fpgakern.cli._common import (
    RUNG,
    RUNG_RANGE,
    console,
    err_console,
    json_option,
    load_library,
    print_json,
    specs_option,
)
from fpgakern.cli._select import parse_rungs, plans_for, refuse_unfit
from fpgakern.errors import display_path
from fpgakern.ladder import Plan
from fpgakern.link import platforms
from fpgakern.orchestrate.build import run_build
from fpgakern.orchestrate.executors import make_executor
from fpgakern.orchestrate.library import DEFAULT_PLATFORM
from fpgakern.orchestrate.scheduler import select_steps
from fpgakern.report import console as view
from fpgakern.report.record import BuildReport, recorder

SUMMARY_ROWS = 20

EPILOG = """\b
Examples:
  fpgakern build binary_ops/add --opt 4        # every dtype of add at rung 4
  fpgakern build binary_ops/add --dtype int32  # every rung of add, int32 only
  fpgakern build 'unary_ops/*' --rungs 2,4
  fpgakern build --category reduce_ops --until csim
  fpgakern build --all                         # the whole library (the nightly build)
  fpgakern build --all --executor dask         # on a local Dask cluster
"""


@click.command("build", epilog=EPILOG)
@click.argument("kernels", nargs=-1)
@click.option("--all", "all_kernels", is_flag=True, help="Build every kernel of the library.")
@click.option("--category", "categories", multiple=True,
              help="Build every kernel of this category (repeatable).")
@click.option("--opt", "opt", type=RUNG, multiple=True,
              help=f"Rung to build ({RUNG_RANGE}); repeatable.")
@click.option("--rungs", default=None, metavar="LIST",
              help="Rungs as a list, e.g. 2,4 (default: every rung the spec declares).")
@click.option("--dtype", default=None, help="Build only this dtype (default: all declared).")
@click.option("--out", "out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Output tree (default: build/ beside kernel_specs/).")
@click.option("--platform", default=DEFAULT_PLATFORM, show_default=True,
              help="Platform every variant is built for (link configs, m_axi settings, "
                   "rung 5's CU count, the resource check) and the library .xclbin that "
                   "--all (or --until link) links.")
@execution_options
@specs_option
@json_option
def command(kernels: tuple[str, ...], all_kernels: bool, categories: tuple[str, ...],
            opt: tuple[int, ...], rungs: str | None, dtype: str | None, out: Path | None,
            platform: str, jobs: int | None, executor: str, scheduler: str | None,
            until: str | None, specs: Path | None, as_json: bool) -> None:
    """Build each selected kernel variant (kernel x rung x dtype) through the pipeline.

    Each task (HLS C++, csim, RTL, lint, simulation, .xo, host code) is keyed by a hash
    of its inputs and skipped when nothing changed. Output goes to
    OUT/<category>/<kernel>/opt<N>/<dtype>/ with a manifest.json; reports go to
    OUT/reports/latest/. A failure does not stop the other variants; the exit code is 1
    if anything failed.
    """
    library = load_library(specs)
    selected_rungs = tuple(opt) + parse_rungs(rungs)
    plans = plans_for(library, kernels, all_kernels=all_kernels, categories=categories,
                      rungs=selected_rungs or None, dtype=dtype,
                      memory=platforms.load(platform).memory_system())
    refuse_unfit(plans)
    root = out or paths.build_dir(library.root.parent)
    report = execute(plans, root, executor, jobs, scheduler, until, as_json,
                     "fpgakern " + " ".join(sys.argv[1:]), platform=platform,
                     library=all_kernels and until is None)
    finish(report, as_json)


def execute(plans: list[Plan], root: Path, executor_name: str, jobs: int | None,
            scheduler: str | None, until: str | None, as_json: bool,
            command_line: str, *, platform: str = DEFAULT_PLATFORM,
            library: bool = False) -> BuildReport:
    total = len(plans) * len(select_steps(None if until == "link" else until))
    executor = make_executor(executor_name, jobs, scheduler)
    try:
        with view.BuildView(err_console, total, quiet=as_json) as observer:
            return run_build(plans, root, executor, record=recorder(command_line),
                             until=until, observer=observer, platform=platform,
                             library=library,
                             on_wait=lambda: err_console.print(
                                 "waiting for another build of this tree to finish..."))
    finally:
        executor.close()


def finish(report: BuildReport, as_json: bool) -> None:
    result = report.result
    if as_json:
        print_json(report.data)
    else:
        if len(result.variants) <= SUMMARY_ROWS:  # bigger builds: see fpgakern report
            view.print_summary(console, result)
        # soft_wrap from here on: lines carry paths and messages a reader copies or greps,
        # so the console's width must neither cut nor break them.
        if len(result.variants) <= 4:
            for line in view.artifact_lines(result):
                console.print(line, soft_wrap=True)
        for line in view.failure_lines(result):
            console.print(line, soft_wrap=True)
        if report.library is not None:
            for line in view.library_lines(report.library):
                console.print(line, soft_wrap=True)
        for regression in report.regressions:
            console.print(Text.assemble(("regression", "red"), f" {regression}"),
                          soft_wrap=True)
        console.print(view.summary_line(result), soft_wrap=True)
        console.print(Text(f"reports: {display_path(report.folder)}"), soft_wrap=True)
    if not result.passed:
        raise SystemExit(1)
