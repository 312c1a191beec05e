"""Options and helpers shared by several commands."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from fpgakern.ladder import LAST_RUNG, RUNGS
from fpgakern.spec.library import Library

F = TypeVar("F", bound=Callable[..., Any])

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

# --opt N: a rung of the ladder, "0 naive .. 4 vectorized" in help texts.
RUNG = click.IntRange(0, LAST_RUNG)
RUNG_RANGE = f"{RUNGS[0].index} {RUNGS[0].name} .. {RUNGS[-1].index} {RUNGS[-1].name}"


def load_library(specs: Path | None) -> Library:
    """``--specs DIR`` alone, or by default the project's kernels beside the bundled
    library."""
    return Library(specs) if specs is not None else Library.for_project()


def specs_option(func: F) -> F:
    return click.option(
        "--specs",
        type=click.Path(path_type=Path, file_okay=False),
        default=None,
        help="Read kernels from this folder alone (default: the project's kernel_specs/ "
             "beside fpgakern's bundled library).",
    )(func)


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print results as JSON.")(func)


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False))
