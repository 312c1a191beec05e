"""torch.compile(backend="fpgakern") on a small model: what fuses, the transfers per call,
the device cycles, the distance to eager, and what the compile cache saves.

    python benchmarks/compile_model.py                 # sw_emu and hw_emu, rung 4
    python benchmarks/compile_model.py --targets sw_emu --runs 3

Each measurement runs in a process of its own, so "warm" means a fresh process whose only
head start is the compile cache on disk (the fused specs and their build tree) and the
model cache (~/.cache/fpgakern). Times are wall clock from torch.compile to the first
result, torch's own compile included; "aot_eager" is torch compiling the same model with
no backend work, the floor the backend adds to.

The second table answers "one fused kernel or two kernels?" for a two-op chain,
relu(exp(x)), on hw_emu: the fused kernel's cycles against exp's and relu's kernels run
one after the other with the intermediate kept on the device (no kernel-to-kernel
stream: stream_connect chains are not built).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODELS = HERE.parent / "tests" / "compiler"

MEASURE = textwrap.dedent("""
    import json, sys, time, numpy as np, torch
    sys.path.insert(0, {models!r})
    from models import MlpBlock, D
    import fpgakern.compiler as fc
    torch.manual_seed(0)
    model = MlpBlock().eval()
    x = torch.randn({rows}, D)
    started = time.perf_counter()
    if {backend!r} == "aot_eager":
        run = torch.compile(model, backend="aot_eager")
    else:
        run = torch.compile(model, backend="fpgakern",
                            options={{"target": {target!r}, "cache_dir": {cache!r}}})
    with torch.no_grad():
        got = run(x)
        first = time.perf_counter() - started
        run(x)
        want = model(x)
    out = {{"first": first, "diff": abs(got.item() - want.item()), "value": want.item()}}
    r = fc.last_report()
    if r is not None:
        call = r.last_call
        out.update(kernels=len(r.running), left=[(l.node, l.reason) for l in r.left_out],
                   run=r.tasks_run, cached=r.tasks_cached, compile=r.seconds,
                   cycles=call.cycles, calls=call.kernel_calls,
                   transfers=str(call.transfers))
    print(json.dumps(out))
""")

CHAIN = textwrap.dedent("""
    import json, sys, torch
    import fpgakern.compiler as fc
    x = torch.randn({n})
    cycles = {{}}
    for name, fn in (("fused", lambda t: torch.relu(torch.exp(t))),
                     ("exp", torch.exp), ("relu", torch.relu)):
        torch._dynamo.reset()
        run = torch.compile(fn, backend="fpgakern",
                            options={{"target": "hw_emu", "cache_dir": {cache!r}}})
        with torch.no_grad():
            run(x)
        cycles[name] = fc.last_report().last_call.cycles
    print(json.dumps(cycles))
""")


def _run(script: str) -> dict:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"benchmark process failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _measure(backend: str, target: str, cache: str, rows: int) -> dict:
    return _run(MEASURE.format(models=str(MODELS), backend=backend, target=target,
                               cache=cache, rows=rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--targets", nargs="+", default=["sw_emu", "hw_emu"])
    parser.add_argument("--runs", type=int, default=3, help="warm runs per target")
    parser.add_argument("--rows", type=int, default=8)
    parser.add_argument("--chain-n", type=int, default=65536)
    args = parser.parse_args()

    floor = [_measure("aot_eager", "", "", args.rows)["first"] for _ in range(args.runs)]
    base = statistics.median(floor)
    print(f"aot_eager (torch's own compile + first call): median {base:.2f} s "
          f"over {args.runs} runs\n")
    print("| target | cache | fused kernels | build tasks run / cached | compile + first call "
          "| over aot_eager | cycles per call | transfers per call (2nd call) | |y - eager| |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="fk-compile-bench-") as tmp:
        for target in args.targets:
            cache = str(Path(tmp) / target)
            cold = _measure("fpgakern", target, cache, args.rows)
            warm = [_measure("fpgakern", target, cache, args.rows) for _ in range(args.runs)]
            for label, rows in (("cold", [cold]), ("warm", warm)):
                first = statistics.median(r["first"] for r in rows)
                r = rows[0]
                print(f"| {target} | {label} | {r['kernels']} | {r['run']} / {r['cached']} | "
                      f"{first:.2f} s | {first - base:+.2f} s | {r['cycles'] or '-'} | "
                      f"{r['transfers']} | {r['diff']:.3g} |")
        print("\nleft to torch:", "; ".join(f"{n}: {why}" for n, why in cold["left"]))
        if "hw_emu" in args.targets:
            cycles = _run(CHAIN.format(n=args.chain_n, cache=str(Path(tmp) / "chain")))
            print(f"\nrelu(exp(x)), {args.chain_n} elements, hw_emu rung 4:")
            print("| kernels | cycles |")
            print("|---|---|")
            print(f"| one fused kernel | {cycles['fused']} |")
            print(f"| exp, then relu (kept on the device) | {cycles['exp'] + cycles['relu']} "
                  f"({cycles['exp']} + {cycles['relu']}) |")


if __name__ == "__main__":
    main()
