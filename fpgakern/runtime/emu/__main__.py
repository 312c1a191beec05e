"""``python -m fpgakern.runtime.emu prepare FILE.xclbin`` and ``... flags``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from fpgakern.errors import FpgakernError, display_path
from fpgakern.runtime import emu, models


@click.group()
def main() -> None:
    """fpgakern's XRT emulation library: models for an .xclbin, compile flags."""


@main.command()
@click.argument("xclbin", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option("--target", "targets", multiple=True, type=click.Choice(models.TARGETS),
              help="Emulation target(s) to build models for (default: both).")
@click.option("--specs", type=click.Path(path_type=Path, file_okay=False, exists=True),
              help="Read kernels from this folder alone (default: the project's "
                   "kernel_specs/ beside fpgakern's bundled library), as fpgakern link --specs.")
def prepare(xclbin: Path, targets: tuple[str, ...], specs: Path | None) -> None:
    """Build the emulation models of XCLBIN's kernels; write fpgakern_emu.cfg beside it."""
    path = emu.prepare(xclbin, targets or models.TARGETS, specs=specs)
    click.echo(f"wrote {display_path(path)}")


@main.command()
def flags() -> None:
    """Print the compile flags and sources to build a host against the emulation."""
    click.echo(" ".join([*emu.compile_flags(), *(str(s) for s in emu.SOURCES), *emu.LIBS]))


if __name__ == "__main__":
    try:
        main(standalone_mode=True)
    except FpgakernError as err:
        click.secho(f"error: {err}", fg="red", err=True)
        sys.exit(err.exit_code)
