"""``fpgakern csim``: C simulation of the HLS C++, as IEEE or as Vitis-built hardware."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.text import Text

from fpgakern import paths
from fpgakern.backends.hls import generate
from fpgakern.cli._common import (
    RUNG,
    console,
    err_console,
    json_option,
    load_library,
    print_json,
    specs_option,
)
from fpgakern.cli._select import plans_for
from fpgakern.errors import UsageError
from fpgakern.verify import csim

EPILOG = """\b
Examples:
  fpgakern csim binary_ops/add --opt 2
  fpgakern csim binary_ops/mul --opt 4 --hls-flush-subnormals
  fpgakern csim 'unary_ops/*' --opt 2 --hls-flush-subnormals --json
"""


@click.command("csim", epilog=EPILOG)
@click.argument("kernels", nargs=-1, required=True)
@click.option("--opt", "rung", type=RUNG, default=None,
              help="This rung only (default: every rung of each kernel).")
@click.option("--dtype", default=None, help="This dtype only (default: all).")
@click.option("--size", type=click.IntRange(1, 4096), default=1000, show_default=True,
              help="Elements of the random case (special-value cases are added).")
@click.option("--hls-flush-subnormals", "flush", is_flag=True,
              help="Compute as Vitis-built float hardware does: subnormal operands and "
                   "results are zero (the Floating-Point Operator core), judged against a "
                   "reference that flushes alike; each case says how it differs from torch.")
@specs_option
@json_option
def command(kernels: tuple[str, ...], rung: int | None, dtype: str | None, size: int,
            flush: bool, specs: Path | None, as_json: bool) -> None:
    """Compile each variant's HLS C++ and testbench with g++ and run them.

    The build's csim step does this too, with IEEE semantics; this command runs it on
    its own, and with --hls-flush-subnormals shows what the C++ computes once Vitis binds
    its float operations to the Floating-Point Operator core (docs/vitis.md). Output goes
    to build/<category>/<kernel>/opt<N>/<dtype>/csim-ieee or csim-flush.
    """
    library = load_library(specs)
    plans = plans_for(library, kernels, all_kernels=False,
                      rungs=None if rung is None else (rung,), dtype=dtype)
    root = paths.build_dir(library.root.parent)
    mode = "flush" if flush else "ieee"
    report = []
    for p in plans:
        kernel, where = p.kernel, p.variant_dir(root)
        if not as_json:
            err_console.print(f"[dim]csim ({mode}) {p.variant}...[/]")
        sources = generate(p, where / f"csim-{mode}" / "src")
        if flush and kernel.staged(p.dtype.name) is not None:
            raise UsageError(f"{kernel.qualname} ({kernel.kind}): --hls-flush-subnormals "
                             "covers unshaped kernels only")
        cases = csim.cases_for(p, size)
        result = csim.run(p, sources, cases, where / f"csim-{mode}", flush_subnormals=flush)
        report.append({**p.variant.to_json(), "mode": mode, **result.to_json()})
        if as_json:
            continue
        verdict = ("pass", "green") if result.passed else ("FAIL", "red")
        console.print(Text.assemble(verdict, f" {p.variant} ({mode}): "
                                    f"{result.summary()}"), soft_wrap=True)
        for c in result.cases:
            if c.torch is not None and not c.torch.passed:
                console.print(Text(f"  {c.label}: {c.torch.mismatch_count} of "
                                   f"{c.torch.compared} results differ from torch's"),
                              soft_wrap=True)
    if as_json:
        print_json({"results": report})
    if not all(entry["passed"] for entry in report):
        sys.exit(1)
