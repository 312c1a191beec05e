"""``fpgakern list``: the kernel library by category."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from fpgakern.cli._common import console, json_option, load_library, print_json, specs_option
from fpgakern.ladder import RUNGS


@click.command("list")
@specs_option
@json_option
def command(specs: Path | None, as_json: bool) -> None:
    """List the kernel library: kernels by category, with dtypes and rungs."""
    library = load_library(specs)
    if as_json:
        print_json({
            "categories": [
                {"name": c.name, "doc": c.doc, "kernels": [
                    {"name": k.name, "kernel": k.qualname, "doc": k.doc, "mirrors": k.mirrors,
                     "dtypes": list(k.dtypes), "rungs": list(k.rungs), "expression": k.expression}
                    for k in c.kernels]}
                for c in library.categories.values()
            ]
        })
        return
    for category in library.categories.values():
        table = Table(title=f"{category.name}: {category.doc}", title_justify="left")
        for column in ("kernel", "mirrors", "expression", "dtypes", "rungs"):
            table.add_column(column)
        for k in category.kernels:
            rungs = " ".join(map(str, k.rungs))
            table.add_row(k.name, k.mirrors or "", k.expression, ", ".join(k.dtypes), rungs)
        console.print(table)
    legend = ", ".join(f"{r.index} {r.name}" for r in RUNGS)
    console.print(f"{len(library.kernels)} kernels in {len(library.categories)} categories; "
                  f"rungs: {legend}")
