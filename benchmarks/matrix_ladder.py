"""The contraction ladder in RTL simulation: cycles and multiply-accumulates per cycle of
every rung, beside the rung's ideal.

    python benchmarks/matrix_ladder.py [--kernel matrix_ops/mm] [--dtype float32]
                                       [--sizes 256x256x256 197x200x301] [--rungs 0 1 2 3 4]
                                       [--large 512x512x512] [--platform u55c]

Each size (M x N x K) runs once per rung in the fast memory model (64-cycle read latency)
through sim/fk_matrix_tb.py, bit for bit against the reference; the table gives the
cycles from ap_start to the last CU's interrupt, MACs per cycle (M N K / cycles), the
rung's ideal (fpgakern.backends.rtl.contraction.ideal_macs_per_cycle: its PEs, one
product each per cycle, or per GAP cycles) and the share of it reached. Rungs 0 and 1 read
every element with its own request; their MACs/cycle do not depend on the size, so the
smaller size stands for them. The PE array's rungs (4 and up) also run the large size.
It takes about six minutes.

With ``--platform`` the fast model becomes bandwidth-faithful (docs/sim.md, "Memory
bandwidth"): every port on a bank of the platform (a bank of its own per port with
``--bank-per-port``), each bank serving at most its bytes per cycle, the platform's CU
count at the multi-CU rungs (3, 5).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from fpgakern.backends.rtl.contraction import ideal_macs_per_cycle
from fpgakern.ladder import plan
from fpgakern.link import platforms
from fpgakern.paths import specs_dir
from fpgakern.spec.library import Library
from fpgakern.verify.rtlsim import simulate_contraction


def _size(text: str) -> tuple[int, int, int]:
    m, n, k = (int(x) for x in text.lower().split("x"))
    return m, n, k


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", default="matrix_ops/mm")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--sizes", nargs="+", default=[(256, 256, 256), (197, 200, 301)],
                        type=_size)
    parser.add_argument("--rungs", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--small", type=_size, default=(16, 16, 16),
                        help="the size rungs 0 and 1 run instead (per-element reads)")
    parser.add_argument("--large", nargs="*", type=_size, default=[(512, 512, 512)],
                        help="the sizes the PE array's rungs (4 and up) run as well")
    parser.add_argument("--platform", choices=platforms.available(), default=None,
                        help="bandwidth-faithful: the platform's banks and CU count")
    parser.add_argument("--bank-per-port", action="store_true",
                        help="with --platform: every port on a bank of its own")
    args = parser.parse_args()
    kernel = Library(specs_dir()).get(args.kernel)
    memory = platforms.load(args.platform).memory_system() if args.platform else None
    where = (f"the {args.platform} banks' bandwidth"
             f"{', a bank per port' if args.bank_per_port else ''}" if memory else "no limit")
    print(f"{args.kernel} {args.dtype}, fast memory model (64-cycle reads; {where})")
    print()
    print("| rung | size | cycles | MACs/cycle | ideal | of ideal | sim s |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for rung in args.rungs:
        p = plan(kernel, rung, args.dtype, memory=memory, bank_per_port=args.bank_per_port)
        sizes = [args.small] if rung < 2 else args.sizes
        if p.rung.vector_bits:
            sizes = [*sizes, *args.large]
        for m, n, k in sizes:
            with tempfile.TemporaryDirectory() as folder:
                started = time.time()
                result = simulate_contraction(
                    p, run_dir=Path(folder), sizes=[(f"{m}x{n}x{k}", 1, m, n, k)],
                    timeout_cycles=2_000_000_000)
                seconds = time.time() - started
            if not result.passed:
                print(f"| {rung} | {m}x{n}x{k} | failed: {result.message} |")
                continue
            rate = result.elements_per_cycle or 0.0
            ideal = ideal_macs_per_cycle(p)
            print(f"| {rung} | {m}x{n}x{k} | {result.cycles} | {rate:.3f} | {ideal:g} | "
                  f"{100 * rate / ideal:.0f}% | {seconds:.1f} |")


if __name__ == "__main__":
    main()
