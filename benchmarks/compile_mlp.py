"""torch.compile(backend="fpgakern") on a transformer's MLP, Linear -> GELU -> Linear plus
the residual (issue 30): both Linears run on the matrix_ops/linear contraction kernel,
the weights go to the device once, and the result is eager's within the stated bound.

    python benchmarks/compile_mlp.py                       # sw_emu, rung 4, 8 x 32 -> 64
    python benchmarks/compile_mlp.py --rows 64 --d 128 --hidden 512 --calls 5

Prints the compile report (no addmm left on the CPU), the transfers of each call (the
first uploads x and the four parameters; an unchanged x uploads nothing; a new x only
itself) and the largest difference to eager beside the bound it must stay within
(docs/matrix.md, "Bound", carried through gelu and the second Linear).
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
import torch
from torch import nn

import fpgakern.compiler as fc
from fpgakern.verify.matmul import UNIT_ROUNDOFF, error_bound


class Mlp(nn.Module):
    def __init__(self, d: int, hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.fc2(nn.functional.gelu(self.fc1(x)))


def bound(model: Mlp, x: torch.Tensor) -> np.ndarray:
    """Each Linear's result and torch's are within the stated bound of the exact product,
    so at most twice it apart; gelu (slope <= 1.13, 2 ulp of its own, counted twice)
    carries the first difference to the second Linear, which carries it through |w2|."""
    w1, b1 = model.fc1.weight.detach().numpy(), model.fc1.bias.detach().numpy()
    w2, b2 = model.fc2.weight.detach().numpy(), model.fc2.bias.detach().numpy()
    xs = x.numpy()
    h = xs @ w1.T + b1
    g = nn.functional.gelu(torch.from_numpy(h)).numpy()
    dh = 2 * error_bound(xs, w1.T) + 2 * UNIT_ROUNDOFF * np.abs(h)
    dg = 1.13 * dh + 16 * UNIT_ROUNDOFF * np.abs(g)
    out = xs + g @ w2.T + b2
    return ((np.abs(w2) @ dg.T).T + 2 * error_bound(g, w2.T)
            + 4 * UNIT_ROUNDOFF * np.abs(out)) * 1.01


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="sw_emu", choices=("sw_emu",))
    parser.add_argument("--rung", type=int, default=4)
    parser.add_argument("--rows", type=int, default=8)
    parser.add_argument("--d", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Mlp(args.d, args.hidden).eval()
    x = torch.randn(args.rows, args.d)
    cache = args.cache_dir or tempfile.mkdtemp(prefix="fk-compile-mlp-")
    run = torch.compile(model, backend="fpgakern",
                        options={"target": args.target, "rung": args.rung,
                                 "cache_dir": cache})
    with torch.no_grad():
        started = time.perf_counter()
        got = run(x)
        first = time.perf_counter() - started
        report = fc.last_report()
        assert report is not None and report.last_call is not None
        print(report)
        print(f"\ncompile + first call: {first:.1f} s")
        print(f"call 1 (x {tuple(x.shape)}): transfers {report.last_call.transfers}")
        for i in range(2, args.calls + 1):
            fresh = i == args.calls
            given = torch.randn(args.rows, args.d) if fresh else x
            run(given)
            print(f"call {i} ({'a new x' if fresh else 'the same x'}): transfers "
                  f"{report.last_call.transfers}")
        want = model(x)
    matrix = [k.qualname for k in report.running if k.kind == "contraction"]
    left = [f"{u.node} ({u.op})" for u in report.left_out]
    print(f"\nLinear layers on the device: {len(matrix)} ({', '.join(matrix)}); "
          f"left on the CPU: {', '.join(left) or 'nothing'}"
          f"{' (addmm among them!)' if any('addmm' in s for s in left) else ''}")
    diff = np.abs((got - want).numpy())
    limit = bound(model, x)
    print(f"max |compiled - eager| = {diff.max():.3g}; stated bound there "
          f"{limit.flat[diff.argmax()]:.3g}; every element within its bound: "
          f"{bool((diff <= limit).all())}")


if __name__ == "__main__":
    main()
