"""The optimization ladder, measured: elements per cycle of every rung in RTL simulation.

    python benchmarks/ladder.py                 # 64K fp32 elements, all rungs, + Yosys
    python benchmarks/ladder.py --no-resources  # simulation only
    python benchmarks/ladder.py --size 16384 --kernels binary_ops/add

For binary_ops/add, unary_ops/exp and reduce_ops/sum (fp32) at every rung it simulates
the generated RTL on the fast memory model (default latency 64 cycles), counts cycles
from ap_start to ap_done in the simulation, and prints elements/cycle against the rung's
ideal; it then measures simulated cycles per second of each memory model, and estimates
resources with Yosys (fpgakern.backends.rtl.resources) per kernel x rung. Results go to
--out (default build/benchmarks/): ladder.json, ladder.md and the chart ladder.png.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from fpgakern import paths
from fpgakern.ladder import plan
from fpgakern.spec.library import Library
from fpgakern.verify.rtlsim import DEFAULT_LATENCY, SimResult, simulate

KERNELS = ("binary_ops/add", "unary_ops/exp", "reduce_ops/sum")
DTYPE = "float32"
RUNGS = (0, 1, 2, 3, 4)

# The acceptance figures at 64K fp32 elements and 64-cycle latency.
FLOORS = {2: 0.95, 3: 3.8, 4: 15.2}  # binary_ops/add, elements per cycle
WITHIN_IDEAL = 0.95  # exp and sum, rungs with an ideal


def run_ladder(library: Library, kernels: list[str], size: int, latency: int,
               out: Path) -> list[SimResult]:
    results = []
    for name in kernels:
        kernel = library.get(name)
        for rung in RUNGS:
            started = time.perf_counter()
            result = simulate(kernel, rung, DTYPE, size=size, latency=latency,
                              labels=["random"], special=False, build_speed="fast",
                              run_dir=out / "runs" / name.replace("/", "_") / f"opt{rung}")
            seconds = time.perf_counter() - started
            rate = f"{result.elements_per_cycle:.3f}" if result.elements_per_cycle else "-"
            print(f"  {name} opt{rung}: {result.status}, {result.cycles} cycles, "
                  f"{rate} elements/cycle ({seconds:.0f} s)", file=sys.stderr, flush=True)
            results.append(result)
    return results


def measure_speed(library: Library, memory: str, size: int, rung: int,
                  out: Path) -> SimResult:
    """Simulated cycles per second of one memory model on binary_ops/add fp32."""
    return simulate(library.get("binary_ops/add"), rung, DTYPE, size=size, memory=memory,
                    labels=["random"], special=False, build_speed="fast",
                    run_dir=out / "runs" / f"speed_{memory}_opt{rung}")


def estimate_resources(library: Library, kernels: list[str]) -> dict[str, dict]:
    try:
        from fpgakern.backends.rtl.resources import estimate
    except ImportError:
        return {}
    found: dict[str, dict] = {}
    for name in kernels:
        kernel = library.get(name)
        for rung in RUNGS:
            p = plan(kernel, rung, DTYPE)
            key = f"{name} opt{rung}"
            print(f"  yosys {key}...", file=sys.stderr, flush=True)
            try:
                per_cu = estimate(p)
            except Exception as error:  # noqa: BLE001 - report and go on
                found[key] = {"error": str(error)}
                continue
            found[key] = {k: v * p.compute_units for k, v in per_cu.items()}
            found[key]["compute_units"] = p.compute_units
    return found


def checks(results: list[SimResult]) -> list[tuple[str, bool]]:
    """The acceptance figures, judged on the measured numbers."""
    by = {(r.kernel, r.rung): r for r in results}
    verdicts = []
    add = [by.get(("binary_ops/add", r)) for r in RUNGS]
    for rung, floor in FLOORS.items():
        r = by.get(("binary_ops/add", rung))
        if r and r.elements_per_cycle is not None:
            verdicts.append((f"add opt{rung} >= {floor} elements/cycle "
                             f"({r.elements_per_cycle:.3f})", r.elements_per_cycle >= floor))
    rates = [r.elements_per_cycle if r and r.elements_per_cycle else 0.0 for r in add]
    if all(rates):
        verdicts.append(("add: each rung faster than the one below",
                         all(b > a for a, b in zip(rates, rates[1:], strict=False))))
    for name in ("unary_ops/exp", "reduce_ops/sum"):
        for rung in RUNGS[1:]:
            r = by.get((name, rung))
            if r and r.percent_of_ideal is not None:
                verdicts.append((f"{name} opt{rung} within 5% of ideal "
                                 f"({r.percent_of_ideal:.1f}%)",
                                 r.percent_of_ideal >= 100 * WITHIN_IDEAL))
    return verdicts


def markdown(results: list[SimResult], speeds: list[SimResult], resources: dict,
             verdicts: list[tuple[str, bool]], size: int, latency: int) -> str:
    lines = [f"Ladder at {size} {DTYPE} elements, memory latency {latency} cycles "
             "(fast memory model).", "",
             "| kernel | rung | result | cycles | elements/cycle | ideal | % of ideal |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        ideal = f"{r.ideal_elements_per_cycle:g}" if r.ideal_elements_per_cycle else "-"
        rate = f"{r.elements_per_cycle:.4f}" if r.elements_per_cycle else "-"
        share = f"{r.percent_of_ideal:.1f}" if r.percent_of_ideal else "-"
        lines.append(f"| {r.kernel} | {r.rung} | {r.status} | {r.cycles or '-'} | {rate} | "
                     f"{ideal} | {share} |")
    lines += ["", "| memory model | kernel | size | simulated cycles | cycles/s (wall) | "
              "cycles/s (CPU) |", "|---|---|---|---|---|---|"]
    for s in speeds:
        wall = f"{s.sim_cycles_per_second:,.0f}" if s.sim_cycles_per_second else "-"
        cpu = f"{s.sim_cycles_per_cpu_second:,.0f}" if s.sim_cycles_per_cpu_second else "-"
        lines.append(f"| {s.memory} | {s.kernel} opt{s.rung} | {s.size} | {s.cycles or '-'} | "
                     f"{wall} | {cpu} |")
    if resources:
        lines += ["", "| kernel x rung | CUs | LUT | FF | DSP | BRAM36 | CARRY |",
                  "|---|---|---|---|---|---|---|"]
        for key, v in resources.items():
            if "error" in v:
                lines.append(f"| {key} | | {v['error']} | | | | |")
                continue
            lines.append(f"| {key} | {v['compute_units']} | {v['lut']:.0f} | {v['ff']:.0f} | "
                         f"{v['dsp']:.0f} | {v['bram']:.1f} | {v['carry']:.0f} |")
    lines += ["", *[f"- {'PASS' if ok else 'FAIL'}: {text}" for text, ok in verdicts]]
    return "\n".join(lines) + "\n"


def chart(results: list[SimResult], path: Path) -> bool:
    """Grouped bars of elements/cycle per rung, one group per kernel, ideal marked."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install matplotlib): no chart",
              file=sys.stderr)
        return False
    kernels = list(dict.fromkeys(r.kernel for r in results))
    width = 0.8 / max(len(kernels), 1)
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    for i, name in enumerate(kernels):
        rows = [r for r in results if r.kernel == name]
        xs = [r.rung + (i - (len(kernels) - 1) / 2) * width for r in rows]
        ys = [r.elements_per_cycle or 0 for r in rows]
        ax.bar(xs, ys, width, label=name)
        for x, r in zip(xs, rows, strict=True):
            if r.ideal_elements_per_cycle:
                ax.plot([x - width / 2, x + width / 2], [r.ideal_elements_per_cycle] * 2,
                        color="black", linewidth=1)
    ax.set_yscale("log")
    ax.set_xticks(list(RUNGS))
    ax.set_xticklabels(["0 naive", "1 buffered", "2 dataflow", "3 multi-CU", "4 vector"])
    ax.set_ylabel("elements / cycle (log)")
    ax.set_title(f"fpgakern ladder, {DTYPE}, RTL simulation (black: rung ideal)")
    ax.legend()
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=65536)
    parser.add_argument("--latency", type=int, default=DEFAULT_LATENCY)
    parser.add_argument("--kernels", nargs="+", default=list(KERNELS))
    parser.add_argument("--speed-size", type=int, default=4 * 1024 * 1024,
                        help="elements of the fast-model speed run (rung 4 add)")
    parser.add_argument("--axiram-size", type=int, default=65536,
                        help="elements of the AxiRam speed run (rung 4 add)")
    parser.add_argument("--no-resources", action="store_true", help="skip Yosys")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    out = args.out or paths.build_dir() / "benchmarks"
    out.mkdir(parents=True, exist_ok=True)
    library = Library(paths.specs_dir())

    print(f"ladder: {len(args.kernels)} kernels x {len(RUNGS)} rungs at {args.size} "
          f"elements", file=sys.stderr)
    results = run_ladder(library, args.kernels, args.size, args.latency, out)
    print("simulation speed per memory model", file=sys.stderr)
    speeds = [measure_speed(library, "fast", args.speed_size, 4, out),
              measure_speed(library, "fast", args.size, 0, out),
              measure_speed(library, "axiram", args.axiram_size, 4, out)]
    resources = {} if args.no_resources else estimate_resources(library, args.kernels)
    verdicts = checks(results)

    text = markdown(results, speeds, resources, verdicts, args.size, args.latency)
    (out / "ladder.md").write_text(text)
    (out / "ladder.json").write_text(json.dumps({
        "size": args.size, "latency": args.latency, "dtype": DTYPE,
        "results": [r.to_json() | {"percent_of_ideal": r.percent_of_ideal} for r in results],
        "speed": [s.to_json() | {"sim_cycles_per_cpu_second": s.sim_cycles_per_cpu_second}
                  for s in speeds],
        "resources": resources,
        "checks": [{"check": text, "passed": ok} for text, ok in verdicts],
    }, indent=1))
    drawn = chart(results, out / "ladder.png")
    print(text)
    print(f"written: {out / 'ladder.md'}, {out / 'ladder.json'}"
          + (f", {out / 'ladder.png'}" if drawn else ""))
    failed = any(r.status == "failed" for r in [*results, *speeds])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
