"""Sweep the hard RTL operators (fp32 div, sqrt, exp, sigmoid; int32 div) over >= 1M inputs
each in Verilator and report mismatches (bit-exact ops) and the ulp error distribution
(exp, sigmoid) against the op table's numpy references.

    python benchmarks/operator_sweep_hard.py [--n 1000000] [--seed 20260522] [--ops exp,div]
    python benchmarks/operator_sweep_hard.py --exhaustive   # every float where it matters

``--exhaustive`` runs, binade by binade, every float32 with 2^-26 <= |x| < 128 through exp
and sigmoid (below, both results are fixed by rounding: exp = 1, sigmoid = 1/2; from 128
on a class decides), and sqrt over every subnormal and the binades [2^-126, 2^-124),
[1, 4) and [2^126, 2^128) (both exponent parities at each end).

The stimulus is tests/oplib/test_hard_ops.py's ``vectors``: targeted random inputs (for
exp/sigmoid the whole interesting range, subnormal results included) plus the special
values. Prints a Markdown table; nothing is estimated, every figure is measured here.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

from fpgakern.ir.ops import OPS
from fpgakern.verify import opsim

ROOT = Path(__file__).resolve().parents[1]


def _stimulus_module():  # the test module is the single home of the vectors
    path = ROOT / "tests" / "oplib" / "test_hard_ops.py"
    spec = importlib.util.spec_from_file_location("hard_ops_vectors", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _binade(exponent: int, sign: int) -> np.ndarray:
    base = (sign << 31) | (exponent << 23)
    return (np.uint32(base) + np.arange(1 << 23, dtype=np.uint32)).astype(np.uint32)


def exhaustive(hard) -> bool:  # noqa: ANN001
    print("| op | inputs | mismatches | max ulp | ulp histogram (0, 1, 2, >2) | seconds |")
    print("|---|---|---|---|---|---|")
    failed = False
    plans = {
        "exp": [(e, s) for s in (0, 1) for e in range(101, 134)],
        "sigmoid": [(e, s) for s in (0, 1) for e in range(101, 134)],
        "sqrt": [(e, 0) for e in (0, 1, 2, 127, 128, 253, 254)],
    }
    for op_name, binades in plans.items():
        start = time.perf_counter()
        hist = np.zeros(4, dtype=np.int64)
        worst, mism, count = 0, 0, 0
        for exponent, sign in binades:
            x = _binade(exponent, sign)
            count += x.size
            if op_name == "sqrt":
                result = opsim.check_against_reference("sqrt", "float32", [x])
                mism += result.mismatch_count
                for line in result.mismatches:
                    print(f"    {line}", file=sys.stderr)
                continue
            _, dist = hard.run_ulp(op_name, [x])
            worst = max(worst, int(dist.max()))
            hist += np.bincount(np.minimum(dist, 3), minlength=4)
            mism += int((dist > hard.STATED_ULPS[op_name]).sum())
        seconds = time.perf_counter() - start
        failed |= mism > 0
        ulp_cols = ("exact | -" if op_name == "sqrt"
                    else f"{worst} | {', '.join(str(int(h)) for h in hist)}")
        print(f"| {op_name} | {count:,} | {mism} | {ulp_cols} | {seconds:.0f} |", flush=True)
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="random inputs per op")
    parser.add_argument("--seed", type=int, default=20260522)
    parser.add_argument("--ops", default="div:float32,sqrt:float32,exp:float32,"
                        "sigmoid:float32,div:int32")
    parser.add_argument("--exhaustive", action="store_true",
                        help="every float in the ranges listed in the module docstring")
    args = parser.parse_args()
    hard = _stimulus_module()
    if args.exhaustive:
        return 1 if exhaustive(hard) else 0
    print("| op | dtype | module | latency | inputs | mismatches | max ulp | ulp histogram "
          "(0, 1, 2, >2) | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    failed = False
    for item in args.ops.split(","):
        op_name, dtype = item.split(":")
        rng = np.random.default_rng(args.seed)
        operands = hard.vectors(op_name, dtype, rng, args.n)
        impl = OPS[op_name].rtl[dtype]
        start = time.perf_counter()
        if OPS[op_name].accuracy_for(dtype).kind == "ulp":
            _, dist = hard.run_ulp(op_name, operands)
            worst = int(dist.max())
            hist = np.bincount(np.minimum(dist, 3), minlength=4)
            mism = int((dist > hard.STATED_ULPS[op_name]).sum())
            ulp_cols = f"{worst} | {', '.join(str(int(h)) for h in hist)}"
        else:
            result = opsim.check_against_reference(op_name, dtype, operands)
            mism = result.mismatch_count
            ulp_cols = "exact | -"
            for line in result.mismatches:
                print(f"    {line}", file=sys.stderr)
        seconds = time.perf_counter() - start
        failed |= mism > 0
        print(f"| {op_name} | {dtype} | {impl.module} | {impl.latency} | {operands[0].size:,} "
              f"| {mism} | {ulp_cols} | {seconds:.1f} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
