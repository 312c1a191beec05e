"""The ``fpgakern`` command line: a thin click group over the pipeline.

Each subcommand lives in its own module of this package and exports ``command``; the group
finds them by that convention, so adding a command means adding one file.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from fpgakern import __version__
from fpgakern.errors import FpgakernError

EPILOG = """\b
Examples:
  fpgakern list
  fpgakern build binary_ops/add --opt 4
  fpgakern show binary_ops/add --opt 2
  fpgakern build --all
"""


class _Group(click.Group):
    """Turns FpgakernError into one line on stderr and its exit code, never a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except FpgakernError as err:
            click.secho(f"error: {err}", fg="red", err=True)
            sys.exit(err.exit_code)
        except KeyboardInterrupt:
            click.secho("error: interrupted; finished results are kept", fg="red", err=True)
            sys.exit(130)


@click.group(cls=_Group, epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fpgakern")
def main() -> None:
    """Turn framework operators into verified Vitis kernels.

    Reads kernel specs from kernel_specs/<category>/<kernel>.yaml and takes each kernel up
    the optimization ladder (opt0 naive .. opt4 vectorized), generating and verifying
    every artifact on the way.
    """


def _register_commands() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        command = getattr(module, "command", None)
        if isinstance(command, click.Command):
            main.add_command(command)


_register_commands()
