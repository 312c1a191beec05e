"""Options shared by ``build`` and ``retry``: where, how and how far to build."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from fpgakern.orchestrate.executors import EXECUTORS

F = TypeVar("F", bound=Callable[..., Any])


def execution_options(func: F) -> F:
    for option in reversed([
        click.option("--jobs", "-j", type=click.IntRange(1), default=None,
                     help="Parallel tasks (default: the core count; Dask: LocalCluster "
                          "workers)."),
        click.option("--executor", type=click.Choice(EXECUTORS), default="local",
                     show_default=True, help="Run tasks in a local process pool or on Dask."),
        click.option("--scheduler", default=None, metavar="ADDRESS",
                     help="Dask scheduler, e.g. tcp://host:8786 (default: a LocalCluster)."),
        click.option("--until", default=None, metavar="STEP",
                     help="Stop after this step (hls, csim, rtl, lint, sim, xo, host)."),
    ]):
        func = option(func)
    return func
