"""``fpgakern init``: start a project of one's own, with a sample category and kernel."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from fpgakern import paths
from fpgakern.errors import UsageError, display_path

CATEGORY = "my_ops"
KERNEL = "saxpy"

CATEGORY_YAML = """\
# A category of your own kernels: every other .yaml file in this folder is one kernel,
# named after its file. The defaults below apply to each of them (a kernel's own keys
# win). Category and kernel names must differ from those of fpgakern's bundled library
# (`fpgakern list` shows both). The keys and the expression language are described in
# docs/spec-format.md of fpgakern's repository.
doc: My own kernels, started by fpgakern init.
defaults:
  inputs: [x, y]          # tensor arguments, in order
  outputs: [out]          # the tensor written
  dtypes: [float32, int32]
"""

KERNEL_YAML = """\
# saxpy, "a times x plus y" from BLAS: the update step of iterative solvers, optimizers
# and residual blocks. inputs, outputs and dtypes come from _category.yaml.
kernel: saxpy
doc: Scaled vector sum, out = alpha * x + y, rounded once (a fused multiply-add).
scalars:
  alpha: 2                # a run-time argument (a control register); 2 when not given
# fma(alpha, x, y) is alpha * x + y with a single rounding, as a fused multiply-add
# unit computes it (int32 keeps the low 32 bits); `alpha * x + y` would round twice.
expression: fma(alpha, x, y)
# Next:
#   fpgakern show my_ops/saxpy --opt 2      the generated Vitis HLS C++ at rung 2
#   fpgakern build my_ops/saxpy --opt 4     both dtypes at rung 4, verified against numpy
#   fpgakern list                           your kernels beside fpgakern's library
"""

FILES = {
    f"{CATEGORY}/_category.yaml": CATEGORY_YAML,
    f"{CATEGORY}/{KERNEL}.yaml": KERNEL_YAML,
}


@click.command("init")
@click.argument("folder", type=click.Path(path_type=Path, dir_okay=True, file_okay=False),
                default=Path("."))
def command(folder: Path) -> None:
    """Start a project in FOLDER (default: here): a kernel_specs/ with a sample category
    (my_ops) and kernel (my_ops/saxpy). Never overwrites a file.

    Your kernels sit beside fpgakern's bundled library: from the project, 'fpgakern
    list' shows both, 'fpgakern build my_ops/saxpy' and 'fpgakern build binary_ops/add'
    both work, and every output goes to build/ in the project.

    \b
    Examples:
      fpgakern init my_project && cd my_project && fpgakern build my_ops/saxpy --opt 2
      fpgakern init                  # in the current folder
    """
    specs = folder / paths.SPECS
    if paths.in_package(folder) or (specs.is_dir() and _is_bundled(specs)):
        raise UsageError(f"{display_path(specs)} is fpgakern's own kernel library; "
                         "run fpgakern init in a folder of your own")
    category = specs / CATEGORY
    if category.exists():
        raise UsageError(f"{display_path(category)} already exists; fpgakern init "
                         "overwrites nothing (remove it or init another folder)")
    try:
        category.mkdir(parents=True)
        for name, text in FILES.items():
            with (specs / name).open("x", encoding="utf-8") as handle:  # "x": never replace
                handle.write(text)
    except OSError as err:
        raise UsageError(f"{display_path(err.filename or category)}: cannot write "
                         f"({err.strerror})") from None
    for name in FILES:
        click.echo(f"created {display_path(specs / name)}")
    where = "" if folder.resolve() == Path.cwd().resolve() else f"cd {shlex.quote(str(folder))} && "
    click.echo(f"next: {where}fpgakern build {CATEGORY}/{KERNEL} --opt 2")


def _is_bundled(specs: Path) -> bool:
    try:
        return specs.resolve() == paths.library_dir().resolve()
    except FileNotFoundError:
        return False
