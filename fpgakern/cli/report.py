"""``fpgakern report``: print (or open) the latest build report."""

from __future__ import annotations

import json
import webbrowser
from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from fpgakern import paths
from fpgakern.cli._common import console, json_option, specs_option
from fpgakern.errors import UsageError, display_path
from fpgakern.report.html import REPORT
from fpgakern.report.results import RESULTS, reports_dir
from fpgakern.report.tables import print_table


@click.command("report")
@click.option("--out", "out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Build tree (default: build/ beside kernel_specs/).")
@click.option("--open", "open_browser", is_flag=True, help="Open the HTML report in a browser.")
@specs_option
@json_option
def command(out: Path | None, open_browser: bool, specs: Path | None, as_json: bool) -> None:
    """Show the latest build's results: counts, failures and per-variant verdicts."""
    root = out or paths.build_dir(specs.parent if specs else None)
    folder = reports_dir(root) / "latest"
    try:
        data = json.loads((folder / RESULTS).read_text())
    except (OSError, ValueError):
        raise UsageError(f"no build report in {display_path(reports_dir(root))}; "
                         "run fpgakern build first") from None
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    if open_browser:
        webbrowser.open((folder / REPORT).resolve().as_uri())
    table = Table(title=Text(f"{data['generated_at']}  {data['command']}"),
                  title_justify="left")
    for column in ("kernel", "rung", "dtype", "result"):
        table.add_column(column, no_wrap=True)
    table.add_column("tasks")
    table.add_column("detail")
    lines = []
    for v in data["variants"]:
        bad = [t for t in v["tasks"] if t["status"] in ("failed", "blocked")]
        detail = f"{bad[0]['step']}: {bad[0]['detail']}" if bad else ""
        verdict = Text("FAILED", "red") if bad else Text("ok", "green")
        # Text, not markup: a detail may hold brackets (a path, a C++ error).
        table.add_row(v["kernel"], str(v["rung"]), v["dtype"], verdict, _work(v["tasks"]),
                      Text(detail))
        lines.append(Text.assemble(f"{v['kernel']} opt{v['rung']} {v['dtype']}: ", verdict,
                                   f" ({_work(v['tasks'])})", f"; {detail}" if detail else ""))
    print_table(console, table, lines)
    counts = ", ".join(f"{n} {s}" for s, n in data["counts"].items() if n)
    console.print(Text(f"{counts}; html: {display_path(folder.resolve() / REPORT)}"),
                  soft_wrap=True)


def _work(tasks: list[dict]) -> str:
    """What this build did for a variant: the steps that ran, or that all came from cache."""
    ran = [t["step"] for t in tasks if t["status"] != "cached"]
    if not ran:
        return "cached"
    return "ran " + " ".join(ran) if len(ran) < len(tasks) else "ran all"
