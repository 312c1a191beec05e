"""``fpgakern clean``: remove build outputs, all of them or a selection."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from fpgakern import paths
from fpgakern.cli._common import load_library, specs_option
from fpgakern.cli._select import parse_rungs
from fpgakern.errors import UsageError, display_path


@click.command("clean")
@click.argument("kernels", nargs=-1)
@click.option("--all", "all_kernels", is_flag=True,
              help="Remove the whole build tree, reports and history included.")
@click.option("--rungs", default=None, metavar="LIST", help="Only these rungs, e.g. 2,4.")
@click.option("--dtype", default=None, help="Only this dtype.")
@click.option("--cache", is_flag=True, help="Also empty the compiled-model cache "
                                            "(csim binaries, Verilator models).")
@click.option("--out", "out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Build tree (default: build/ beside kernel_specs/).")
@specs_option
def command(kernels: tuple[str, ...], all_kernels: bool, rungs: str | None, dtype: str | None,
            cache: bool, out: Path | None, specs: Path | None) -> None:
    """Remove the outputs of KERNELS (names or patterns), or everything with --all.

    \b
    Examples:
      fpgakern clean binary_ops/add --rungs 4
      fpgakern clean 'unary_ops/*' --dtype float32
      fpgakern clean --all --cache
    """
    library = load_library(specs)
    root = out or paths.build_dir(library.root.parent)
    targets: list[Path] = []
    if all_kernels:
        targets.append(root)
    elif kernels:
        wanted_rungs = parse_rungs(rungs)
        for kernel in library.select(kernels):
            for rung in wanted_rungs or kernel.rungs:
                for d in (dtype,) if dtype else kernel.dtypes:
                    targets.append(paths.variant_dir(root, kernel.category, kernel.name,
                                                     rung, d))
    elif not cache:
        raise UsageError("name kernels to clean, or use --all (or --cache)")
    if cache:
        targets.append(paths.cache_dir())
    removed = 0
    for target in targets:
        if target.exists():
            shutil.rmtree(target)
            removed += 1
            click.echo(f"removed {display_path(target)}")
    if not removed:
        click.echo("nothing to remove")
