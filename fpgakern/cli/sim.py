"""``fpgakern sim``: simulate generated RTL kernels in Verilator through cocotb."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich import box
from rich.table import Table
from rich.text import Text

from fpgakern.cli._common import (
    RUNG,
    console,
    err_console,
    json_option,
    load_library,
    print_json,
    specs_option,
)
from fpgakern.errors import UsageError, display_path
from fpgakern.ir.kernel import Kernel
from fpgakern.ladder import MemorySystem, Plan, Variant
from fpgakern.link import platforms
from fpgakern.report.tables import print_table
from fpgakern.verify.rtlsim import DEFAULT_LATENCY, Memory, SimResult, simulate

EPILOG = """\b
Examples:
  fpgakern sim binary_ops/add --opt 4
  fpgakern sim unary_ops/exp --dtype float32 --size 65536
  fpgakern sim 'binary_ops/*' --opt 2 --json
  fpgakern sim binary_ops/add --opt 0 --memory axiram --size 64 --waves
  fpgakern sim binary_ops/add --opt 4 --platform u55c --bank-per-port --size 65536
  fpgakern sim reduce_ops/sum --opt 5 --platform u250 --size 1048576
"""


def _plans(kernels: list[Kernel], rung: int | None, dtype: str | None, explicit: bool,
           memory: MemorySystem | None, bank_per_port: bool) -> list[Plan]:
    """The variants to simulate, each on ``memory``: a kernel that does not build the
    rung or dtype asked for is an error when named (``explicit``), else left out."""
    plans = []
    for k in kernels:
        for d in ([dtype] if dtype else list(k.dtypes)):
            for r in ([rung] if rung is not None else list(k.rungs)):
                variant = Variant.of(k, r, d, memory=memory, bank_per_port=bank_per_port)
                try:
                    plans.append(Plan(k, variant))
                except UsageError:
                    if explicit:
                        raise
    return plans


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _table(results: list[SimResult]) -> Table:
    # SIMPLE box and no edge padding keep every column readable in 80 columns.
    table = Table(title="RTL simulation (Verilator + cocotb)", title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("kernel", no_wrap=True)
    roofline = any(r.roofline_elements_per_cycle for r in results)
    columns = ("rung", "dtype", "size", "result", "cycles", "elem/cycle", "% ideal",
               *(("CUs", "% roofline") if roofline else ()))
    for column in columns:
        table.add_column(column, justify="left" if column in ("dtype", "result") else "right",
                         min_width=len(column), no_wrap=True)
    style = {"passed": "[green]pass[/]", "failed": "[red]FAIL[/]", "skipped": "[yellow]skip[/]"}
    for r in results:
        table.add_row(
            r.kernel, str(r.rung), r.dtype, str(r.size), style[r.status],
            _fmt(r.cycles, "d"), _fmt(r.elements_per_cycle, ".3f"),
            _fmt(r.percent_of_ideal, ".1f"),
            *((str(r.compute_units), _fmt(r.percent_of_roofline, ".1f")) if roofline else ()),
        )
    return table


def _line(r: SimResult) -> str:
    """A table row as one line, for consoles too narrow for the table."""
    verdict = {"passed": "pass", "failed": "FAIL", "skipped": "skip"}[r.status]
    return (f"{r.kernel} opt{r.rung} {r.dtype}: {verdict}, size {r.size}, "
            f"{_fmt(r.cycles, 'd')} cycles, {_fmt(r.elements_per_cycle, '.3f')} elem/cycle, "
            f"{_fmt(r.percent_of_ideal, '.1f')}% of ideal"
            + (f" ({_fmt(r.ideal_elements_per_cycle, '.2f')}), {r.compute_units} CU(s), "
               f"{_fmt(r.percent_of_roofline, '.1f')}% of the {r.platform} roofline "
               f"({_fmt(r.roofline_elements_per_cycle, '.2f')})"
               if r.roofline_elements_per_cycle else ""))


@click.command("sim", epilog=EPILOG)
@click.argument("kernels", nargs=-1)
@click.option("--opt", "rung", type=RUNG, default=None,
              help="Simulate this rung only (default: every rung of each kernel).")
@click.option("--all-rungs", is_flag=True, help="Simulate every rung (the default).")
@click.option("--dtype", default=None, help="Simulate this dtype only (default: all).")
@click.option("--size", type=click.IntRange(1), default=1000, show_default=True,
              help="Elements of the main random case (special-value cases are added).")
@click.option("--memory", type=click.Choice(["fast", "axiram"]), default="fast",
              show_default=True,
              help="fast: C++/SV memory model; axiram: cocotbext-axi AxiRam (slow, small sizes).")
@click.option("--latency", type=click.IntRange(1, 4096), default=DEFAULT_LATENCY,
              show_default=True, help="Memory read latency in cycles (fast model).")
@click.option("--write-latency", type=click.IntRange(1, 4096), default=None,
              help="Cycles from the last W beat to B (fast model; default: --latency).")
@click.option("--waves", is_flag=True,
              help="Record a waveform per simulation (FST; VCD without liblz4-dev).")
@click.option("--platform", default=None, metavar="NAME",
              help="Give the fast model this platform's memory banks and their bandwidth "
                   "(u55c, u250, u280, or a platform file); ideals are then bounded by "
                   "memory (docs/sim.md, Memory bandwidth). Rung 5 is sized for it.")
@click.option("--bank-per-port", is_flag=True,
              help="With --platform: each data-moving port on a bank of its own (the "
                   "link config's sp= per port) instead of all of a CU's ports on one.")
@specs_option
@json_option
def command(kernels: tuple[str, ...], rung: int | None, all_rungs: bool, dtype: str | None,
            size: int, memory: Memory, latency: int, write_latency: int | None, waves: bool,
            platform: str | None, bank_per_port: bool, specs: Path | None,
            as_json: bool) -> None:
    """Simulate kernels' generated RTL against the numpy reference.

    KERNELS are category/name (or globs like 'unary_ops/*'); none means the whole
    library. Each kernel x rung x dtype is built once (cached by content), run on a
    random case of --size elements plus special values, and reported with its cycle
    count, elements per cycle and the share of the rung's ideal it reaches.
    """
    if rung is not None and all_rungs:
        raise UsageError("--opt and --all-rungs exclude each other")
    if bank_per_port and platform is None:
        raise UsageError("--bank-per-port places ports on a platform's banks: give --platform")
    if platform is not None and memory != "fast":
        raise UsageError("--platform limits the fast memory model's bandwidth: "
                         "not with --memory axiram")
    memory_system = platforms.load(platform).memory_system() if platform else None
    library = load_library(specs)
    chosen = library.select(list(kernels)) if kernels else library.kernels
    plans = _plans(chosen, rung, dtype, bool(kernels), memory_system, bank_per_port)
    if not plans:
        raise UsageError("nothing to simulate for that selection")
    results: list[SimResult] = []
    for p in plans:
        if not as_json:
            err_console.print(f"[dim]simulating {p.variant}...[/]")
        results.append(simulate(p, size=size, memory=memory, latency=latency,
                                write_latency=write_latency, waves=waves))
    if as_json:
        print_json({"results": [r.to_json() for r in results]})
    else:
        print_table(console, _table(results), [Text(_line(r)) for r in results])
        for r in results:
            where = f"{r.kernel} opt{r.rung} {r.dtype}"
            if r.status == "failed":
                # soft_wrap: long messages and paths stay whole for copy and grep
                # Text, not markup: a message may hold brackets (a bus, an index)
                console.print(Text.assemble(("FAIL", "red"), f" {where}: {r.message}"),
                              soft_wrap=True)
                if r.log:
                    console.print(Text(f"  log: {display_path(r.log)}"), soft_wrap=True)
            elif r.status == "skipped":
                console.print(Text.assemble(("skip", "yellow"), f" {where}: {r.skipped}"),
                              soft_wrap=True)
            if r.waves:
                console.print(Text(f"waves {where}: {display_path(r.waves)}"), soft_wrap=True)
        counts = {s: sum(r.status == s for r in results) for s in ("passed", "failed", "skipped")}
        console.print(f"{counts['passed']} passed, {counts['failed']} failed, "
                      f"{counts['skipped']} skipped")
        speeds = [r.sim_cycles_per_second for r in results if r.sim_cycles_per_second]
        if speeds:
            console.print(f"simulation speed ({memory} memory): "
                          f"{min(speeds):.3g}-{max(speeds):.3g} simulated cycles/s")
    if any(r.status == "failed" for r in results):
        sys.exit(1)
