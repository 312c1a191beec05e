"""``fpgakern list``: the kernels by category, the project's and the bundled library's."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from fpgakern.cli._common import console, json_option, load_library, print_json, specs_option
from fpgakern.ladder import RUNGS
from fpgakern.report.tables import print_tables
from fpgakern.spec.library import BUNDLED, PROJECT
from fpgakern.util.text import plural

# How each category's heading says where it comes from.
ORIGIN = {PROJECT: "your project", BUNDLED: "bundled with fpgakern"}


@click.command("list")
@specs_option
@json_option
def command(specs: Path | None, as_json: bool) -> None:
    """List the kernels by category, with dtypes and rungs: the project's own
    (kernel_specs/ of the project) and fpgakern's bundled library, each marked."""
    library = load_library(specs)
    if as_json:
        print_json({
            "categories": [
                {"name": c.name, "doc": c.doc, "origin": c.origin, "kernels": [
                    {"name": k.name, "kernel": k.qualname, "doc": k.doc, "mirrors": k.mirrors,
                     "dtypes": list(k.dtypes), "rungs": list(k.rungs), "expression": k.definition,
                     "kind": k.kind, "shapes": {name: list(dims) for name, dims in k.shapes},
                     "let": dict(k.lets),
                     "tops": {d: k.top_name(d) for d in k.dtypes}}
                    for k in c.kernels]}
                for c in library.categories.values()
            ]
        })
        return
    tables = []
    for category in library.categories.values():
        title = Text(f"{category.name} ({ORIGIN[category.origin]}): {category.doc}")
        table = Table(title=title, title_justify="left")
        table.add_column("kernel", no_wrap=True)
        for column in ("kind", "mirrors", "expression", "dtypes", "rungs"):
            table.add_column(column)
        lines = []
        for k in category.kernels:
            rungs = " ".join(map(str, k.rungs))
            # Text, not markup: an expression may hold brackets one day (indexing).
            # a spec's top: shows beside its dtype (the default <kernel>_<tag> goes unsaid)
            named = dict(k.tops)
            dtypes = ", ".join(f"{d} (top {named[d]})" if d in named else d for d in k.dtypes)
            kind = f"{k.kind} ({k.ports_note})" if k.ports_note else k.kind
            row = (k.name, kind, k.mirrors or "", k.definition, dtypes, rungs)
            table.add_row(*(Text(cell) for cell in row))
            lines.append(Text(f"  {k.qualname}: {k.definition}; kind {kind}; mirrors "
                              f"{k.mirrors or '-'}; dtypes {dtypes}; rungs {rungs}"))
        tables.append((table, lines))
    print_tables(console, tables)
    origins = {origin: sum(len(c.kernels) for c in library.categories.values()
                           if c.origin == origin) for origin in (PROJECT, BUNDLED)}
    where = ""
    if origins[PROJECT] and origins[BUNDLED]:
        where = f" ({origins[PROJECT]} in your project, {origins[BUNDLED]} bundled)"
    legend = ", ".join(f"{r.index} {r.name}" for r in RUNGS)
    console.print(f"{plural(len(library.kernels), 'kernel')}{where} in "
                  f"{plural(len(library.categories), 'category', 'categories')}; "
                  f"rungs: {legend}", soft_wrap=True)
