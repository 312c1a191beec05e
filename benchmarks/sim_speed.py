"""Simulation speed of the fast memory model: simulated cycles per second, per kernel.

    python benchmarks/sim_speed.py                  # the default set, about 2 minutes
    python benchmarks/sim_speed.py --cycles 2000000 # longer runs, steadier figures

Each row simulates one generated RTL kernel (built at -O2, cached like `fpgakern sim`'s)
on one random case sized to run about --cycles simulated cycles, and reports the cycles
counted in the simulation from ap_start to ap_done, the wall-clock and CPU seconds of that
span, and simulated cycles per second. The rows separate the two costs: the int32 and
neg rows are bound by the memory model and the kernel's AXI engines (three 512-bit ports
busy every cycle at rung 4), the float32 rung-4 rows by the sixteen lanes of bit-exact
floating-point pipelines Verilator evaluates every cycle. The last lines check the
issue's figure, 2.5M simulated cycles per second on the rung-4 add.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fpgakern import paths
from fpgakern.ladder import plan
from fpgakern.spec.library import Library
from fpgakern.verify.rtlsim import SimResult, simulate

# (kernel, rung, dtype, elements per simulated cycle, roughly: sizes the runs)
CASES: tuple[tuple[str, int, str, float], ...] = (
    ("binary_ops/add", 4, "int32", 16.0),
    ("binary_ops/add", 4, "float32", 16.0),
    ("unary_ops/neg", 4, "float32", 16.0),
    ("unary_ops/exp", 4, "float32", 16.0),
    ("binary_ops/add", 2, "float32", 1.0),
    ("binary_ops/add", 0, "float32", 1 / 220),
)
TARGET = 2.5e6  # simulated cycles per second, issue 4


def run(library: Library, cycles: int, out: Path) -> list[tuple[str, SimResult]]:
    rows = []
    for name, rung, dtype, rate in CASES:
        size = max(16, int(cycles * rate))
        label = f"{name} opt{rung} {dtype}"
        print(f"  {label}: {size:,} elements...", file=sys.stderr, flush=True)
        result = simulate(plan(library.get(name), rung, dtype), size=size, labels=["random"],
                          special=False, build_speed="fast",
                          run_dir=out / f"{name.replace('/', '_')}_opt{rung}_{dtype}")
        if not result.passed:
            raise SystemExit(f"error: {label} failed in simulation: {result.message}")
        rows.append((label, result))
    return rows


def table(rows: list[tuple[str, SimResult]]) -> str:
    lines = ["| kernel | size | simulated cycles | wall s | cycles/s (wall) | cycles/s (CPU) |",
             "|---|---|---|---|---|---|"]
    for label, r in rows:
        wall = r.cycles / r.sim_cycles_per_second if r.sim_cycles_per_second else 0.0
        cpu = f"{r.sim_cycles_per_cpu_second:,.0f}" if r.sim_cycles_per_cpu_second else "-"
        lines.append(f"| {label} | {r.size:,} | {r.cycles:,} | {wall:.2f} | "
                     f"{r.sim_cycles_per_second:,.0f} | {cpu} |")
    return "\n".join(lines)


def verdicts(rows: list[tuple[str, SimResult]]) -> list[str]:
    lines = []
    for label, r in rows:
        if label.startswith("binary_ops/add opt4"):
            speed = r.sim_cycles_per_second or 0.0
            verdict = "PASS" if speed >= TARGET else "FAIL"
            lines.append(f"- {verdict}: {label} >= {TARGET:,.0f} simulated cycles/s "
                         f"({speed:,.0f})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cycles", type=int, default=1_000_000,
                        help="simulated cycles per run, roughly (default 1,000,000)")
    parser.add_argument("--out", type=Path, default=paths.SOURCE_ROOT / "build" / "benchmarks",
                        help="where runs and sim_speed.md go")
    args = parser.parse_args()
    library = Library(paths.specs_dir())
    rows = run(library, args.cycles, args.out / "sim_speed")
    report = "\n".join([table(rows), "", *verdicts(rows)])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sim_speed.md").write_text(report + "\n")
    print(report)


if __name__ == "__main__":
    main()
