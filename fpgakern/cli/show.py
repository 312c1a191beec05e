"""``fpgakern show``: the generated code of one variant, syntax-highlighted."""

from __future__ import annotations

from pathlib import Path

import click
from rich.syntax import Syntax

from fpgakern.backends.hls.generator import (
    context,
    render_kernel,
    render_link_config,
    templates_dir,
    writes_link_config,
)
from fpgakern.backends.templates import render
from fpgakern.cli._common import RUNG, console, load_library, specs_option
from fpgakern.ladder import RUNGS, plan, platform_plan
from fpgakern.link import platforms
from fpgakern.orchestrate.library import DEFAULT_PLATFORM

WHAT = ("kernel", "testbench", "link-config")


@click.command("show")
@click.argument("kernel")
@click.option("--opt", type=RUNG, default=None,
              help="Rung to show (default: the highest the kernel builds).")
@click.option("--dtype", default=None, help="Dtype to show (default: the kernel's first).")
@click.option("--what", type=click.Choice(WHAT), default="kernel", show_default=True,
              help="Which generated file to show.")
@click.option("--platform", "platform_name", default=None,
              help="Platform the code is placed on, as fpgakern build --platform places it "
                   f"({', '.join(platforms.available())} or a platform .yaml; default: "
                   f"none, as fpgakern build; a link config names {DEFAULT_PLATFORM}'s "
                   "banks).")
@click.option("--bank-per-port", is_flag=True,
              help="Place each port on a bank of its own (sp= per port) also where the "
                   "platform's banks sit in SLRs of their own (DDR); HBM always does.")
@click.option("--plain", is_flag=True,
              help="The code alone, no colours or line numbers (the default when piped).")
@specs_option
def command(kernel: str, opt: int | None, dtype: str | None, what: str,
            platform_name: str | None, bank_per_port: bool, plain: bool,
            specs: Path | None) -> None:
    """Show the generated HLS C++ of KERNEL at one rung, without building it.

    \b
    Examples:
      fpgakern show binary_ops/add --opt 2
      fpgakern show binary_ops/add --opt 5 --what link-config --platform u250
      fpgakern show binary_ops/add --opt 4 --what link-config --bank-per-port
    """
    k = load_library(specs).get(kernel)
    rung, chosen_dtype = max(k.rungs) if opt is None else opt, dtype or k.dtypes[0]
    # What fpgakern build writes for the same options: placed only on a named platform
    # (a link config names banks: without a platform, the default platform's).
    if platform_name is None and not bank_per_port and what != "link-config":
        p = plan(k, rung, chosen_dtype)
    else:
        p = platform_plan(k, rung, chosen_dtype,
                          platforms.load(platform_name or DEFAULT_PLATFORM).memory_system(),
                          bank_per_port=bank_per_port)
    if what == "kernel":
        text, lexer = render_kernel(p), "cpp"
    elif what == "testbench":
        text = render(templates_dir(), k.kind, "testbench.cpp.j2", **context(p))
        lexer = "cpp"
    else:
        if not writes_link_config(p):
            linked = ", ".join(f"{r.index} ({r.name})" for r in RUNGS
                               if r.dataflow or r.multi_cu)
            raise click.UsageError(f"rung {p.rung.index} ({p.rung.name}) is one CU with "
                                   f"one port, on v++'s default bank: no link config. "
                                   f"Rungs {linked} have one")
        text = render_link_config(p)
        lexer = "ini"
    if plain or not console.is_terminal:
        # Piped or redirected: the code itself, every line whole (rich would cut each at
        # the console's width), so that `fpgakern show ... > add.cpp` compiles.
        click.echo(text, nl=False)
    else:
        # word_wrap: a line wider than the terminal folds instead of being cut off.
        console.print(Syntax(text, lexer, line_numbers=True, word_wrap=True))
