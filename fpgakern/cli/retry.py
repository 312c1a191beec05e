"""``fpgakern retry``: build again only the variants that failed in the last build."""

from __future__ import annotations

import json
from pathlib import Path

import click

from fpgakern import paths
from fpgakern.cli._build_options import execution_options
from fpgakern.cli._common import json_option, load_library, specs_option
from fpgakern.errors import UsageError, display_path
from fpgakern.ladder import Plan, Variant
from fpgakern.report.results import RESULTS, reports_dir


@click.command("retry")
@click.option("--out", "out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Build tree (default: build/ beside kernel_specs/).")
@execution_options
@specs_option
@json_option
def command(out: Path | None, jobs: int | None, executor: str, scheduler: str | None,
            until: str | None, specs: Path | None, as_json: bool) -> None:
    """Rebuild the variants whose tasks failed (or were blocked) in the latest build.

    Tasks that passed are cached, so only what failed runs again.
    """
    from fpgakern.cli.build import execute, finish

    library = load_library(specs)
    root = out or paths.build_dir(library.root.parent)
    latest = reports_dir(root) / "latest" / RESULTS
    try:
        last = json.loads(latest.read_text())
    except (OSError, ValueError):
        raise UsageError(f"no previous build in {display_path(root)} to retry") from None
    failed = [v for v in last.get("variants", []) if not v.get("passed", True)]
    if not failed:
        click.echo("nothing to retry: the latest build passed")
        return
    variants = [Variant.from_json(v) for v in failed]
    plans = [Plan(library.get(v.kernel), v) for v in variants]
    report = execute(plans, root, executor, jobs, scheduler, until, as_json, "fpgakern retry")
    finish(report, as_json)
