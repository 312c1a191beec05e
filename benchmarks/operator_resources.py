"""Yosys resource estimates for every operator module of the RTL operator library.

    python benchmarks/operator_resources.py                # print the table
    python benchmarks/operator_resources.py --write-docs   # also refresh docs/operators.md
    python benchmarks/operator_resources.py --write-docs reduce   # only the reductions' rows

Each module is synthesized alone with `synth_xilinx -family xcup -flatten -noiopad`
(YoWASP Yosys from PyPI unless a native yosys is on PATH). Operators are found by scanning
fpgakern/backends/rtl/oplib/*.sv: every module the op table names, plus modules with `clk`
and `ce` inputs; a module that only serves as the core of an op-table module (e.g.
fk_fp32_addsub under fk_fp32_add) is not listed on its own. The reduction accumulators
(fk_reduce_<dtype>_<op>) are not files of the library: each is rendered from the op table
as a kernel build renders it (fpgakern/backends/rtl/reduce.py) and synthesized with its
default parameters (LANES=1, the op table's P). These are Yosys estimates without timing,
not Vivado results.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from fpgakern.backends.rtl import reduce, sources
from fpgakern.errors import ToolError
from fpgakern.ir.ops import OPS
from fpgakern.paths import cache_dir
from fpgakern.tools import yosys
from fpgakern.verify import opsim

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "operators.md"
BEGIN, END = "<!-- resources:begin -->", "<!-- resources:end -->"
SYNTH = "synth_xilinx -family xcup -flatten -noiopad"


@dataclass
class Row:
    module: str
    ops: str
    latency: str
    cells: dict[str, int] | None  # None: synthesis failed

    def count(self, *prefixes: str) -> int:
        assert self.cells is not None
        return sum(n for cell, n in self.cells.items() if cell.startswith(prefixes))

    @property
    def luts(self) -> int:  # LUT1..6 plus inverters (Vivado folds those into LUTs)
        return self.count("LUT", "INV")

    @property
    def srls(self) -> int:  # shift-register LUTs: delay lines Yosys packed into LUT sites
        return self.count("SRL")

    @property
    def ffs(self) -> int:
        return self.count("FD")

    @property
    def dsps(self) -> int:
        return self.count("DSP")

    @property
    def carries(self) -> int:
        return self.count("CARRY")

    @property
    def brams(self) -> float:  # in BRAM36 equivalents
        return self.count("RAMB36") + self.count("RAMB18") / 2


def _op_table_modules() -> dict[str, tuple[list[str], int]]:
    """module -> (op-table names "op:dtype", latency)."""
    found: dict[str, tuple[list[str], int]] = {}
    for op in OPS.values():
        for dtype, impl in op.rtl.items():
            names, _ = found.setdefault(impl.module, ([], impl.latency))
            names.append(f"{op.name}:{dtype}")
    return found


def _accumulators() -> dict[str, reduce.Accumulator]:
    """module -> the reduction accumulator the op table names (generated, not in oplib)."""
    return {impl.module: reduce.accumulator(op.name, dtype)
            for op in OPS.values() if op.kind == "reduce"
            for dtype, impl in op.rtl.items()}


def _header(text: str, module: str) -> str:
    match = re.search(r"\bmodule\s+" + module + r"\b(.*?\)\s*;)", text, re.DOTALL)
    return match.group(1) if match else ""


def discover() -> list[str]:
    """Operator modules: every module the op table names, plus any other module with clk
    and ce inputs that no op-table module instantiates (a core such as fk_fp32_addsub is
    counted inside its wrappers, not on its own)."""
    index = opsim.module_index()
    table = _op_table_modules()
    texts = {path: sources.strip_comments(path.read_text()) for path in set(index.values())}
    clocked = [m for m, path in index.items()
               if re.search(r"\bclk\b", _header(texts[path], m))
               and re.search(r"\bce\b", _header(texts[path], m))]
    used_by_table: set[str] = set()
    for module in table:
        if module in index:
            body = texts[index[module]]
            start = body.find(f"module {module}")
            end = body.find("endmodule", start)
            used_by_table |= sources.identifiers(body[start:end]) - {module}
    # Reductions have no ce, but are operators; their accumulators are generated.
    listed = [m for m in table if m in index or m in _accumulators()]
    return sorted({*listed, *(m for m in clocked if m not in used_by_table)})


def _sources(module: str, work: Path) -> list[str]:
    """The files Yosys reads for ``module``. A reduction accumulator is rendered into
    ``work`` (named relative to it: Yosys runs there) beside its library modules."""
    acc = _accumulators().get(module)
    if acc is None:
        return [str(p) for p in opsim.module_sources(module)]
    (work / acc.file_name).write_text(reduce.render(acc))
    library = dict.fromkeys(p for m in acc.operators for p in opsim.module_sources(m))
    return [acc.file_name, *(str(p) for p in library)]


def _script(modules: list[str], work: Path) -> str:
    lines = ["read_verilog -lib -specify +/xilinx/cells_sim.v",
             "read_verilog -lib +/xilinx/cells_xtra.v",
             "design -save cells"]
    for module in modules:
        # The library cells are read once above; 'prepare:' skips synth_xilinx's own
        # 'begin' step, which would re-read them (3 s) for every module. Each module reads
        # only its own sources, so one file Yosys rejects spoils only its own modules.
        sources = " ".join(_sources(module, work))
        lines += ["design -load cells", f"read_verilog -sv {sources}",
                  f"hierarchy -top {module}", f"{SYNTH} -top {module} -run prepare:",
                  f"tee -q -o {module}.json stat -json -tech xilinx"]
    return "\n".join(lines) + "\n"


def _run_yosys(modules: list[str], work: Path) -> tuple[dict[str, dict[str, int]], str]:
    """Cell counts of the modules synthesized before Yosys stopped, and its last words.

    YoWASP's sandbox maps /tmp elsewhere, so the work folder lives under the cache and
    files are named relative to it (``yosys.run_script`` runs inside it)."""
    (work / "run.ys").write_text(_script(modules, work))
    done = yosys.run_script(work, "run.ys")
    cells: dict[str, dict[str, int]] = {}
    for module in modules:
        path = work / f"{module}.json"
        if path.exists():
            stats = json.loads(path.read_text())["modules"]
            (entry,) = stats.values()
            cells[module] = {k: int(v) for k, v in entry["num_cells_by_type"].items()
                             if not k.startswith("$")}
            path.unlink()
    errors = [line for line in (done.stdout + done.stderr).splitlines() if "ERROR" in line]
    return cells, (errors[-1] if errors else "")


def synthesize(modules: list[str]) -> list[Row]:
    """One Yosys process for all modules; when it stops on a module, that module is
    recorded as failed and a new process carries on with the ones after it."""
    table = _op_table_modules()
    root = cache_dir() / "yosys"
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="resources-", dir=root))
    cells: dict[str, dict[str, int]] = {}
    try:
        todo = list(modules)
        while todo:
            done, error = _run_yosys(todo, work)
            cells.update(done)
            stopped = next((i for i, m in enumerate(todo) if m not in done), None)
            if stopped is None:
                break
            print(f"yosys failed on {todo[stopped]}: {error}", file=sys.stderr)
            todo = todo[stopped + 1:]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = []
    for module in modules:
        names, latency = table.get(module, (["-"], -1))
        rows.append(Row(module, ", ".join(names), str(latency) if latency >= 0 else "-",
                        cells.get(module)))
    return rows


def markdown(rows: list[Row]) -> str:
    out = ["| module | op-table ops | latency | LUT | SRL | FF | DSP | CARRY | BRAM36 |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r.cells is None:
            out.append(f"| {r.module} | {r.ops} | {r.latency} | synthesis failed |||||")
            continue
        bram = f"{r.brams:g}"
        out.append(f"| {r.module} | {r.ops} | {r.latency} | {r.luts} | {r.srls} | {r.ffs} "
                   f"| {r.dsps} | {r.carries} | {bram} |")
    return "\n".join(out)


def _table_rows(table: str) -> dict[str, str]:
    """module -> its row, for the rows of a table :func:`markdown` wrote."""
    return {line.split("|")[1].strip(): line for line in table.splitlines()
            if line.startswith("| fk_")}


def write_docs(table: str, version: str, *, merge: bool = False) -> None:
    """Put ``table`` between the markers of docs/operators.md. With ``merge``, its rows
    replace or join the rows already there (the other modules keep theirs): a run for a
    few modules refreshes their rows without synthesizing the whole library."""
    text = DOCS.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{DOCS}: markers {BEGIN} / {END} not found")
    head, rest = text.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    if merge:
        rows = _table_rows(old) | _table_rows(table)
        table = "\n".join([*table.splitlines()[:2], *(rows[m] for m in sorted(rows))])
    note = (f"\n_Generated by `python benchmarks/operator_resources.py --write-docs` with "
            f"{version}, `{SYNTH}`._\n\n")
    DOCS.write_text(head + BEGIN + note + table + "\n" + END + tail)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write-docs", action="store_true",
                        help="refresh docs/operators.md (with modules named: only their rows)")
    parser.add_argument("modules", nargs="*",
                        help="only these modules (default: all); 'reduce' names every "
                             "reduction accumulator")
    args = parser.parse_args()
    try:
        version = yosys.version() or "yosys"
    except ToolError as err:
        print(err, file=sys.stderr)
        return 1
    modules = [m for name in args.modules
               for m in (sorted(_accumulators()) if name == "reduce" else [name])]
    modules = modules or discover()
    started = time.monotonic()
    rows = synthesize(modules)
    table = markdown(rows)
    print(table)
    print(f"\n{len(rows)} modules in {time.monotonic() - started:.0f} s with {version}",
          file=sys.stderr)
    if args.write_docs:
        write_docs(table, version.split(" (")[0], merge=bool(args.modules))
    return 1 if any(r.cells is None for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
