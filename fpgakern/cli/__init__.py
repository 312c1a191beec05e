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
  fpgakern init my_project
  fpgakern list
  fpgakern build binary_ops/add --opt 4
  fpgakern show binary_ops/add --opt 2
  fpgakern build --all
"""


class _Group(click.Group):
    """Finds commands by module name, importing a command's module only when it is used
    (so ``fpgakern build`` does not pay for the runtime or the linker), and turns
    FpgakernError into one line on stderr and its exit code, never a traceback."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMAND_MODULES)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module_name = _COMMAND_MODULES.get(name)
        if module_name is None:
            return None
        command = getattr(importlib.import_module(f"{__name__}.{module_name}"), "command", None)
        return command if isinstance(command, click.Command) else None

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

    Reads kernel specs from kernel_specs/<category>/<kernel>.yaml (the project's own
    beside the bundled library) and takes each kernel up the optimization ladder (opt0
    naive .. opt4 vectorized), generating and verifying every artifact on the way, into
    build/ of the project.
    """


# Command name -> module: each public module of this package holds one command, named
# after the module (the ``list`` command lives in ``list.py``).
_COMMAND_MODULES = {info.name: info.name for info in pkgutil.iter_modules(__path__)
                    if not info.name.startswith("_")}
