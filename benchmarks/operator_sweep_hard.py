"""Sweep the hard RTL operators (fp32 div, sqrt, exp, sigmoid, log, log2, log1p, rsqrt,
exp2, tanh, expm1, pow, atan2, erf, sin, cos, gelu, gelu_tanh; int32 div) over >= 1M inputs
each in Verilator and report mismatches (bit-exact ops, against the op table's numpy
references) and, for the transcendental ops, the ulp error distribution against the
correctly rounded float32 result computed with MPFR (gmpy2), not against another float32
library; beside it, torch's own CPU float32 distance to MPFR and the RTL's distance to torch.

    python benchmarks/operator_sweep_hard.py [--n 1000000] [--seed 20260522] [--ops exp,div]
    python benchmarks/operator_sweep_hard.py --exhaustive   # every float where it matters

``--exhaustive`` runs, binade by binade, every float32 with 2^-26 <= |x| < 128 through exp
and sigmoid (below, both results are fixed by rounding: exp = 1, sigmoid = 1/2; from 128
on a class decides), sqrt over every subnormal and the binades [2^-126, 2^-124),
[1, 4) and [2^126, 2^128) (both exponent parities at each end), log and log2 (against
MPFR) over every positive subnormal and the binades [0.5, 2) and [2^127, 2^128), and
rsqrt (against MPFR) over every positive subnormal and [2^-126, 2^-124), [1, 4),
[2^126, 2^128) (both exponent parities), and exp2 (against MPFR) over [0.5, 2) and
[128, 256), both signs (results near 1, 2 and 1/2, overflow, and every subnormal result),
and tanh (against MPFR) over [2^-12, 2^-11), [2^-4, 2^-2) and [8, 16), positive (tanh is
odd and the RTL works on |x|): the first binade off the identity, the switch from the
series to the exponential at 2^-3, and the saturation to 1; and expm1 (against MPFR) over
[2^-24, 2^-23), [2^-4, 2^-2) and [0.5, 1), both signs: the first binade off the identity,
the switch at 2^-3, and the largest cancellation in e^x - 1 (n = 0 and n = -1); and
log1p (against MPFR) over [2^-24, 2^-23), [2^-5, 2^-4) and [2^-4, 2^-3), both signs, and
[-1, -0.5) and [1, 2): the first binade off the identity, both sides of the switch from
the series to the logarithm of 1 + x at 2^-4, and 1 + x from 2^-24 to 1/2 (cancellation);
and erf (against MPFR) over every positive subnormal, [2^-25, 2^-23), [1, 2) and [2, 4),
positive (erf is odd and the RTL works on |x|): the tiny range x * 2/sqrt(pi) and the
first binade of the polynomial, the table's intervals from 1 to 4 and the saturation.
and sin and cos (against MPFR) over [2^-12, 2^-11), [0.5, 1), [1, 2) and [2^72, 2^73),
positive (the RTL works on |x|): the first binade off x itself (sin) and 1 (cos), the
quadrant edge at pi/4, the zero of cos at pi/2, and the binade of the worst argument
reduction (16367173 * 2^72).
and gelu and gelu_tanh (against MPFR) over [-16, -8) and [-8, -4): the negative tails, down
to the underflow (gelu's MPFR erfc makes its run the slowest here).
``--only log,log2`` limits it to some of these ops.

The stimulus is tests/oplib/test_hard_ops.py's ``vectors`` (div, sqrt, exp, sigmoid:
targeted random inputs, for exp/sigmoid the whole interesting range, subnormal results
included) or tests/oplib/test_transcendental.py's (log, log2, log1p, rsqrt, exp2, tanh,
expm1, erf, sin, cos, gelu, gelu_tanh, and pow and atan2 on pairs of operands), plus the
special values; the
MPFR reference is test_transcendental's ``correctly_rounded``. Prints a Markdown table;
nothing is estimated, every figure is measured here.
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
ONLY: list[str] = []  # --only


def _test_module(name: str):  # noqa: ANN202 -- the test modules are the single home of
    # the vectors (and of the MPFR reference)
    path = ROOT / "tests" / "oplib" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"sweep_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stimulus_module():  # noqa: ANN202
    return _test_module("test_hard_ops")


def _torch_bits(op_name: str, operands: list[np.ndarray]) -> np.ndarray | None:
    """torch's CPU float32 result (bits), or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    tensors = [torch.from_numpy(o.view(np.float32).copy()) for o in operands]
    gelu = torch.nn.functional.gelu
    # the op's torch.nn.functional spelling, else torch's operator of the same name
    # (torch.exp, torch.pow, ...), on every operand
    functional = {"gelu": gelu, "gelu_tanh": lambda t: gelu(t, approximate="tanh")}
    fn = functional.get(op_name) or getattr(torch, op_name)
    return fn(*tensors).numpy().view(np.uint32)


def mpfr_row(op_name: str, operands: list[np.ndarray], trans,  # noqa: ANN001
             bound: int) -> tuple[str, int]:
    """The table cells of one transcendental op against MPFR, and its count over the bound."""
    got = trans.simulate(op_name, operands)
    want = trans.correctly_rounded(op_name, operands)
    dist = trans.ulp_distance(got, want)
    hist = np.bincount(np.minimum(dist, 3), minlength=4)
    over = int((dist > bound).sum())
    torch_bits = _torch_bits(op_name, operands)
    if torch_bits is None:
        torch_cols = "- | -"
    else:
        torch_cols = (f"{int(trans.ulp_distance(torch_bits, want).max())} | "
                      f"{int(trans.ulp_distance(got, torch_bits).max())}")
    return (f"{int(dist.max())} | {', '.join(str(int(h)) for h in hist)} | "
            f"{torch_cols}"), over


def _binade(exponent: int, sign: int) -> np.ndarray:
    base = (sign << 31) | (exponent << 23)
    return (np.uint32(base) + np.arange(1 << 23, dtype=np.uint32)).astype(np.uint32)


def exhaustive(hard, trans) -> bool:  # noqa: ANN001
    print("| op | inputs | mismatches | max ulp | ulp histogram (0, 1, 2, >2) | seconds |")
    print("|---|---|---|---|---|---|")
    failed = False
    plans = {
        "exp": [(e, s) for s in (0, 1) for e in range(101, 134)],
        "sigmoid": [(e, s) for s in (0, 1) for e in range(101, 134)],
        "sqrt": [(e, 0) for e in (0, 1, 2, 127, 128, 253, 254)],
        # every positive subnormal, [0.5, 2) (results down to 2^-24 near 1) and the top
        # binade, against MPFR
        "log": [(e, 0) for e in (0, 126, 127, 254)],
        "log2": [(e, 0) for e in (0, 126, 127, 254)],
        "rsqrt": [(e, 0) for e in (0, 1, 2, 127, 128, 253, 254)],
        "exp2": [(e, s) for s in (0, 1) for e in (126, 127, 134)],
        "tanh": [(e, 0) for e in (115, 123, 124, 130)],
        "expm1": [(e, s) for s in (0, 1) for e in (103, 123, 124, 126)],
        "log1p": [(e, s) for s in (0, 1) for e in (103, 122, 123)] + [(126, 1), (127, 0)],
        "erf": [(e, 0) for e in (0, 102, 103, 127, 128)],
        "sin": [(e, 0) for e in (115, 126, 127, 199)],
        "cos": [(e, 0) for e in (115, 126, 127, 199)],
        # the negative tails: [-16, -8) (the underflow, gelu_tanh's clamp of t at -255)
        # and [-8, -4) (where torch's formulas cancel to -0)
        "gelu": [(130, 1), (129, 1)],
        "gelu_tanh": [(130, 1), (129, 1)],
    }
    only = set(filter(None, ONLY))
    for op_name, binades in plans.items():
        if only and op_name not in only:
            continue
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
            if op_name in trans.STATED_ULPS:
                _, _, dist = trans.ulp_check(op_name, [x])
                bound = trans.STATED_ULPS[op_name]
            else:
                _, dist = hard.run_ulp(op_name, [x])
                bound = hard.STATED_ULPS[op_name]
            worst = max(worst, int(dist.max()))
            hist += np.bincount(np.minimum(dist, 3), minlength=4)
            mism += int((dist > bound).sum())
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
                        "sigmoid:float32,log:float32,log2:float32,rsqrt:float32,exp2:float32,tanh:float32,"
                        "expm1:float32,log1p:float32,pow:float32,atan2:float32,erf:float32,"
                        "sin:float32,cos:float32,gelu:float32,gelu_tanh:float32,"
                        "div:int32")
    parser.add_argument("--exhaustive", action="store_true",
                        help="every float in the ranges listed in the module docstring")
    parser.add_argument("--only", default="", help="--exhaustive: only these ops")
    args = parser.parse_args()
    hard = _stimulus_module()
    trans = _test_module("test_transcendental")
    ONLY[:] = args.only.split(",")
    if args.exhaustive:
        return 1 if exhaustive(hard, trans) else 0
    print("| op | dtype | module | latency | inputs | over the stated bound | max ulp vs MPFR "
          "| ulp histogram vs MPFR (0, 1, 2, >2) | torch vs MPFR, max ulp | RTL vs torch, "
          "max ulp | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    failed = False
    for item in args.ops.split(","):
        op_name, dtype = item.split(":")
        rng = np.random.default_rng(args.seed)
        start = time.perf_counter()
        if op_name in trans.STATED_ULPS:
            operands = trans.vectors(op_name, rng, args.n)
        else:
            operands = hard.vectors(op_name, dtype, rng, args.n)
        impl = OPS[op_name].rtl[dtype]
        if op_name in trans.MPFR_FUNCTIONS:
            bound = {**hard.STATED_ULPS, **trans.STATED_ULPS}[op_name]
            ulp_cols, mism = mpfr_row(op_name, operands, trans, bound)
        else:
            result = opsim.check_against_reference(op_name, dtype, operands)
            mism = result.mismatch_count
            ulp_cols = "exact | - | - | -"
            for line in result.mismatches:
                print(f"    {line}", file=sys.stderr)
        seconds = time.perf_counter() - start
        failed |= mism > 0
        print(f"| {op_name} | {dtype} | {impl.module} | {impl.latency} | {operands[0].size:,} "
              f"| {mism} | {ulp_cols} | {seconds:.1f} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
