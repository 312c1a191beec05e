"""The row kernels' part of the ladder benchmark (benchmarks/ladder.py): softmax (a
row_map kernel) and row_sum (a row_reduction kernel) on (256, 1024) float32 rows at every
rung against the rung's ideal, with the global-memory beats read, to show the input is
read once (the rows stay on chip).

    python benchmarks/ladder_rows.py            # this part alone
    python benchmarks/ladder_rows.py --kernels nn_ops/row_sum
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from fpgakern import paths
from fpgakern.ladder import plan
from fpgakern.spec.library import Library
from fpgakern.verify.rtlsim import DEFAULT_LATENCY, SimResult, simulate

DTYPE = "float32"
RUNGS = (0, 1, 2, 3, 4)
# kernel -> (rows, cols) of the main case (stimulus.row_cases puts `size` elements in
# rows of 1024).
ROW_KERNELS = {"nn_ops/softmax": (256, 1024), "nn_ops/row_sum": (256, 1024)}
# Rung 0 is latency-bound (single-beat transfers, ~0.008 elements/cycle whatever the
# rows): it runs this many rows, not the 256 that would take 30 million cycles.
NAIVE_ROWS = 4
FLOOR = {("nn_ops/softmax", 4): 0.9 * 16}  # the figure, elements per cycle


def run_rows(library: Library, latency: int, out: Path,
             kernels: list[str] | None = None) -> list[SimResult]:
    results = []
    for name in kernels or list(ROW_KERNELS):
        rows, cols = ROW_KERNELS[name]
        kernel = library.get(name)
        for rung in RUNGS:
            size = (NAIVE_ROWS if rung == 0 else rows) * cols
            started = time.perf_counter()
            result = simulate(plan(kernel, rung, DTYPE), size=size, latency=latency,
                              labels=["random"], special=False, build_speed="fast",
                              run_dir=out / "runs" / name.replace("/", "_") / f"opt{rung}")
            rate = f"{result.elements_per_cycle:.3f}" if result.elements_per_cycle else "-"
            print(f"  {name} opt{rung} ({size // cols} x {cols}): {result.status}, "
                  f"{result.cycles} cycles, {rate} elements/cycle, {read_beats(result)} beats "
                  f"read ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
            results.append(result)
    return results


def read_beats(result: SimResult) -> int | None:
    """Beats read from global memory by every port of every CU in the main case."""
    ports = result.cases[0].get("ports") if result.cases else None
    return None if ports is None else sum(p["read_beats"] for p in ports.values())


def input_beats(result: SimResult) -> int:
    """Beats of the input itself (rows of 1024 are whole beats at every lane count)."""
    lanes = 16 if result.rung == 4 else 1
    return result.size // lanes


def rows_checks(results: list[SimResult]) -> list[tuple[str, bool]]:
    verdicts = []
    for r in results:
        if not r.passed:
            verdicts.append((f"{r.kernel} opt{r.rung}: {r.status} ({r.message})", False))
            continue
        beats = read_beats(r)
        verdicts.append((f"{r.kernel} opt{r.rung} reads its input once ({beats} beats read, "
                         f"the input is {input_beats(r)})", beats == input_beats(r)))
        floor = FLOOR.get((r.kernel, r.rung))
        if floor is not None:
            verdicts.append((f"{r.kernel} opt{r.rung} >= {floor:g} elements/cycle "
                             f"({r.elements_per_cycle:.2f})",
                             (r.elements_per_cycle or 0) >= floor))
    return verdicts


def rows_markdown(results: list[SimResult], verdicts: list[tuple[str, bool]],
                  latency: int) -> str:
    lines = [f"Row kernels, {DTYPE}, memory latency {latency} cycles (rung 0 on "
             f"{NAIVE_ROWS} rows: latency-bound, the rate does not depend on the rows).", "",
             "| kernel | rows x cols | rung | result | cycles | elements/cycle | ideal | "
             "% of ideal | beats read | input beats |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        cols = ROW_KERNELS[r.kernel][1]
        ideal = f"{r.ideal_elements_per_cycle:.3g}" if r.ideal_elements_per_cycle else "-"
        share = f"{r.percent_of_ideal:.1f}" if r.percent_of_ideal else "-"
        rate = f"{r.elements_per_cycle:.3f}" if r.elements_per_cycle else "-"
        lines.append(f"| {r.kernel} | {r.size // cols} x {cols} | {r.rung} | {r.status} | "
                     f"{r.cycles or '-'} | {rate} | {ideal} | {share} | {read_beats(r)} | "
                     f"{input_beats(r)} |")
    lines += ["", *[f"- {'PASS' if ok else 'FAIL'}: {text}" for text, ok in verdicts]]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=int, default=DEFAULT_LATENCY,
                        help="global-memory latency in cycles")
    parser.add_argument("--kernels", nargs="+", default=list(ROW_KERNELS),
                        choices=list(ROW_KERNELS))
    args = parser.parse_args()
    out = paths.build_dir() / "benchmarks"
    results = run_rows(Library(paths.specs_dir()), args.latency, out, args.kernels)
    verdicts = rows_checks(results)
    print(rows_markdown(results, verdicts, args.latency))
    return 0 if all(ok for _, ok in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
