"""fpgakern's declared contraction order against torch's own CPU mm, both measured against
the exact product (math.fsum of the exact float64 products), side by side.

    python benchmarks/matmul_accuracy.py [--ks 1 16 256 1024 4096] [--size 32] [--seed 0]

For each K: random standard-normal float32 (size, K) @ (K, size), every output's error in
ulps of the correctly rounded result (float32 spacing at the exact value), the median and
the max over the outputs; then the declared order's bound (gamma_K sum|a b|) as a
fraction of the largest error seen, which must stay below 1 (docs/matrix.md). torch's
mm goes to its BLAS (blocked, vectorised, possibly with FMA), whose order is its own;
ours is 64 strided partial sums combined by a fixed pairwise tree, each product and sum
rounded (fpgakern.ir.contraction.ACCUMULATION_ORDER).
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from fpgakern.verify import matmul


def ulps(values: np.ndarray, exact: np.ndarray) -> np.ndarray:
    spacing = np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64)
    return np.abs(values.astype(np.float64) - exact) / spacing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ks", type=int, nargs="+", default=[1, 16, 256, 1024, 4096])
    parser.add_argument("--size", type=int, default=32, help="M = N (M * N outputs per K)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{'K':>6} {'ours median':>12} {'ours max':>9} {'torch median':>13} "
          f"{'torch max':>10} {'ours/bound':>11}")
    for k in args.ks:
        a = rng.standard_normal((args.size, k)).astype(np.float32)
        b = rng.standard_normal((k, args.size)).astype(np.float32)
        exact = matmul.exact(a, b)
        ours = matmul.accumulate(a[None], b[None], "float32")[0]
        theirs = torch.mm(torch.from_numpy(a), torch.from_numpy(b)).numpy()
        mine, torch_ulps = ulps(ours, exact), ulps(theirs, exact)
        used = np.abs(ours.astype(np.float64) - exact) / matmul.error_bound(a, b)
        print(f"{k:>6} {np.median(mine):>12.2f} {mine.max():>9.1f} "
              f"{np.median(torch_ulps):>13.2f} {torch_ulps.max():>10.1f} {used.max():>11.4f}")


if __name__ == "__main__":
    main()
