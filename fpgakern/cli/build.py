"""``fpgakern build``: generate and verify kernel variants."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from fpgakern import paths
from fpgakern.cli._common import console, json_option, load_library, print_json, specs_option
from fpgakern.cli._select import plans_for
from fpgakern.errors import display_path
from fpgakern.orchestrate.runner import build_all, default_jobs
from fpgakern.orchestrate.variant import VariantResult

EPILOG = """\b
Examples:
  fpgakern build binary_ops/add --opt 4       # every dtype of add at rung 4
  fpgakern build binary_ops/add --dtype int32  # every rung of add, int32 only
  fpgakern build 'unary_ops/*' --opt 2
  fpgakern build --all                         # the whole library, every rung and dtype
"""


@click.command("build", epilog=EPILOG)
@click.argument("kernels", nargs=-1)
@click.option("--all", "all_kernels", is_flag=True, help="Build every kernel of the library.")
@click.option("--opt", "opt", type=click.IntRange(0, 4), multiple=True,
              help="Rung to build (0 naive .. 4 vectorized); repeat for several. "
                   "Default: every rung the spec declares.")
@click.option("--dtype", default=None, help="Build only this dtype (default: all declared).")
@click.option("--out", "out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Output tree (default: build/ beside kernel_specs/).")
@click.option("--jobs", "-j", type=click.IntRange(1), default=None,
              help=f"Parallel builds (default: the core count, {default_jobs()}).")
@specs_option
@json_option
def command(kernels: tuple[str, ...], all_kernels: bool, opt: tuple[int, ...], dtype: str | None,
            out: Path | None, jobs: int | None, specs: Path | None, as_json: bool) -> None:
    """Generate each selected kernel's HLS C++ at each rung and prove it in C simulation.

    Output goes to OUT/<category>/<kernel>/opt<N>/<dtype>/ with a manifest.json listing
    every artifact with its sha256 and the verification verdicts. Exits 1 if any
    variant fails; the others are still built.
    """
    library = load_library(specs)
    plans = plans_for(library, kernels, all_kernels=all_kernels, rungs=opt or None,
                      dtype=dtype)
    root = out or paths.build_dir(library.root.parent)

    def progress(result: VariantResult) -> None:
        if not as_json:
            mark = "[green]ok[/]" if result.passed else "[red]FAILED[/]"
            console.print(f"{mark} {result.kernel} opt{result.rung} {result.dtype}")

    results = build_all(plans, root, jobs=jobs, on_done=progress)
    if as_json:
        print_json({"results": [r.to_json() for r in results]})
    else:
        _print_summary(results, root)
    if not all(r.passed for r in results):
        raise SystemExit(1)


def _print_summary(results: list[VariantResult], root: Path) -> None:
    table = Table(title=f"Build results in {display_path(root)}", title_justify="left")
    for column in ("kernel", "rung", "dtype", "csim", "folder"):
        table.add_column(column)
    for r in results:
        csim = r.step("csim")
        verdict = "[green]pass[/]" if csim and csim.passed else "[red]FAIL[/]"
        detail = csim.detail if csim else (r.steps[-1].detail if r.steps else "")
        table.add_row(r.kernel, str(r.rung), r.dtype, f"{verdict}: {detail}",
                      str(r.out_dir.relative_to(root)))
    console.print(table)
    if len(results) <= 4:
        for r in results:
            console.print(f"[bold]{r.kernel} opt{r.rung} {r.dtype}[/] wrote:")
            for path in [*r.artifacts, r.out_dir / "manifest.json"]:
                console.print(f"  {display_path(path)}")
    failed = [r for r in results if not r.passed]
    status = f"[red]{len(failed)} failed[/]" if failed else "[green]all passed[/]"
    console.print(f"{len(results)} variants built, {status}")
