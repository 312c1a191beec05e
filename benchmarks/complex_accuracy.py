"""The complex64 -> float32 kernels (unary_ops/abs, angle, real, imag) over >= 1M inputs
plus every pair of special parts: their RTL (hw_emu: the generated kernel in Verilator)
against the correctly rounded float32 result computed with MPFR (gmpy2: hypot, atan2),
against the op table's reference, and against torch 2.13's CPU operators, both its
vectorized loop (contiguous tensors: Sleef_hypotf8_u05 for abs, Sleef_atan2f8_u10 for
angle on AVX2) and its scalar loop (a strided tensor: std::abs, std::arg).

    python benchmarks/complex_accuracy.py [--n 1000000] [--seed 20261128] [--opt 4]
    python benchmarks/complex_accuracy.py --model      # the lowered float32 graph in numpy

``--model`` evaluates the RTL's lowered float32 graph (fpgakern/ir/complex_lowering.py)
with the op table's float32 references instead of simulating the RTL: bit-identical for
abs and real/imag, whose operators (abs, ge, where, lt, gt, mul, fma, sqrt, eq) are each
bit-exact to their references (tests/oplib), but not for angle, whose fk_fp32_atan2 is
within its own bound. The inputs: random float32 bit patterns for both parts (NaN, inf,
subnormals), log-uniform magnitudes over the whole range with random signs, parts of
nearly equal magnitude, parts 2^0..2^-40 apart, magnitudes around the hypot's scaling
thresholds 2^-60 and 2^60 and the overflow edge, and every pair of special values.
Prints a Markdown table; every figure is measured here.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
F32, U32 = np.float32, np.uint32
KERNELS = ("abs", "angle", "real", "imag")


def _transcendental():  # type: ignore[no-untyped-def]
    path = ROOT / "tests" / "oplib" / "test_transcendental.py"
    spec = importlib.util.spec_from_file_location("complex_accuracy_mpfr", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def inputs(n: int, seed: int) -> np.ndarray:
    """n random complex64 values (six kinds, in equal shares) and every pair of special
    parts, as one complex64 array."""
    from fpgakern.ir import special

    rng = np.random.default_rng(seed)
    k = n // 6 + 1

    def signs(m: int) -> np.ndarray:
        return np.where(rng.random(m) < 0.5, -1.0, 1.0)

    def log_uniform(m: int, lo: float, hi: float) -> np.ndarray:
        return signs(m) * np.exp2(rng.uniform(lo, hi, m))

    parts = [
        rng.integers(0, 2**32, (k, 2), dtype=np.uint64).astype(U32).view(F32),
        np.stack([log_uniform(k, -149, 128), log_uniform(k, -149, 128)], 1),
    ]
    base = log_uniform(k, -149, 128)
    parts.append(np.stack([base, signs(k) * np.abs(base) * (1 + rng.uniform(-1e-3, 1e-3, k))],
                          1))
    parts.append(np.stack([base, base * np.exp2(-rng.uniform(0, 40, k))], 1))
    edges = np.array([-60.0, 60.0, 127.5, -126.0, -140.0])
    centre = rng.choice(edges, k)
    parts.append(np.stack([signs(k) * np.exp2(centre + rng.uniform(-2, 2, k)),
                           signs(k) * np.exp2(centre + rng.uniform(-3, 1, k))], 1))
    parts.append(np.stack([log_uniform(k, -149, -100), log_uniform(k, -149, -100)], 1))
    with np.errstate(over="ignore"):
        random = np.concatenate([p.astype(F32) for p in parts])[:n]
    edge_values = np.array([2.0**-60, 2.0**60, np.nextafter(F32(2.0**-60), F32(0)),
                            np.nextafter(F32(2.0**60), F32(np.inf)), 3.4028235e38,
                            2.0**64, 2.0**-64], dtype=F32)
    specials = np.concatenate([special.float32(special.FLOAT32), edge_values,
                               -edge_values]).astype(F32)
    re, im = np.meshgrid(specials, specials, indexing="ij")
    grid = np.stack([re.ravel(), im.ravel()], 1)
    pairs = np.ascontiguousarray(np.concatenate([random, grid]).astype(F32))
    return pairs.view(np.complex64).ravel()


def rtl(name: str, x: np.ndarray, opt: int) -> np.ndarray:
    """The kernel's RTL on x in hw_emu (its Verilator model), in one call."""
    from fpgakern import ladder
    from fpgakern.runtime.device import open_plans
    from fpgakern.spec.library import Library

    kernel = Library.for_project().get(f"unary_ops/{name}")
    dev = open_plans([ladder.plan(kernel, opt, "complex64")], target="hw_emu")
    return np.asarray(dev.kernel(f"unary_ops/{name}")(x))


def model(name: str, x: np.ndarray) -> np.ndarray:
    """The lowered float32 graph evaluated with the op table's float32 references."""
    from fpgakern.ir import complex_lowering, expr
    from fpgakern.spec.library import Library

    kernel = Library.for_project().get(f"unary_ops/{name}")
    root, _ = complex_lowering.lower_real(kernel.graph("complex64"), kernel.inputs)
    pairs = x.view(F32).reshape(-1, 2)
    values = {"x_re": pairs[:, 0].copy(), "x_im": pairs[:, 1].copy()}

    def evaluate(node: expr.Node) -> np.ndarray:
        match node:
            case expr.Input(name=input_name):
                return values[input_name]
            case expr.Const(value=value):
                return np.full(len(pairs), value, dtype=F32)
            case expr.Apply(op=op, args=args):
                return op.reference(*(evaluate(a) for a in args))
        raise TypeError(node)

    return np.asarray(evaluate(root), dtype=F32)


def reference(name: str, x: np.ndarray) -> np.ndarray:
    from fpgakern.ir.ops import OPS

    return np.asarray(OPS[name].reference(x), dtype=F32)


def torch_results(name: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """torch's vectorized (contiguous) and scalar (strided input) answers."""
    import torch

    torch.set_num_threads(1)
    fn = {"abs": torch.abs, "angle": torch.angle, "real": torch.real, "imag": torch.imag}[name]
    t = torch.from_numpy(x)
    wide = torch.zeros(2 * x.size, dtype=torch.complex64)
    wide[::2] = t
    vector = fn(t).contiguous().numpy().astype(F32)
    scalar = fn(wide[::2]).contiguous().numpy().astype(F32)
    return vector, scalar


def mpfr(name: str, x: np.ndarray, t: object) -> np.ndarray:
    """The correctly rounded float32 result (bits)."""
    import gmpy2

    pairs = x.view(F32).reshape(-1, 2)
    re, im = pairs[:, 0], pairs[:, 1]
    if name in ("real", "imag"):
        return (re if name == "real" else im).view(U32)
    if name == "angle":
        return t.correctly_rounded("atan2", [im.view(U32), re.view(U32)])  # type: ignore[attr-defined]
    ctx = t.FLOAT32_CONTEXT  # type: ignore[attr-defined]
    columns = np.stack([re.view(U32), im.view(U32)], axis=1)
    unique, inverse = np.unique(columns, axis=0, return_inverse=True)
    with np.errstate(invalid="ignore"):
        values = unique.view(F32).astype(np.float64).tolist()
    out = np.array([float(ctx.hypot(gmpy2.mpfr(a), gmpy2.mpfr(b))) for a, b in values])
    return out.astype(F32).view(U32)[inverse.reshape(-1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20261128)
    parser.add_argument("--opt", type=int, default=4, help="the rung whose RTL runs")
    parser.add_argument("--model", action="store_true",
                        help="evaluate the lowered graph in numpy instead of the RTL")
    parser.add_argument("--kernels", default=",".join(KERNELS))
    args = parser.parse_args()
    t = _transcendental()
    x = inputs(args.n, args.seed)
    print(f"{x.size} inputs ({args.n} random + every pair of special parts); "
          f"{'lowered graph (numpy)' if args.model else f'RTL rung {args.opt} in hw_emu'}")
    print()
    print("| kernel | ours vs MPFR (max ulp) | reference vs MPFR | torch vectorized vs MPFR "
          "| torch scalar vs MPFR | ours vs torch vectorized | ours vs torch scalar "
          "| ours vs reference | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.kernels.split(","):
        started = time.perf_counter()
        ours = model(name, x) if args.model else rtl(name, x, args.opt)
        ref = reference(name, x)
        vector, scalar = torch_results(name, x)
        exact = mpfr(name, x, t)

        def dist(a: np.ndarray, b: np.ndarray) -> str:
            """Max ulps between float32 results (of the correctly rounded one: MPFR),
            the share of results off, and where one side only is NaN, how often."""
            d = t.ulp_distance(a.view(U32), b)
            nan = d >= 1 << 40
            worst = int(d[~nan].max())
            text = f"{worst} ({(d[~nan] > 0).mean():.2%} off)" if worst else "0"
            return text + (f"; NaN vs non-NaN x{int(nan.sum())}" if nan.any() else "")

        def error(a: np.ndarray, name: str = name) -> str:
            """The largest error in ulps, as a real number, against the float64 result
            (np.hypot, np.arctan2: within 2^-52 relative, far below a float32 ulp)."""
            with np.errstate(all="ignore"):
                pairs = x.view(F32).reshape(-1, 2).astype(np.float64)
                exact = (np.hypot(pairs[:, 0], pairs[:, 1]) if name == "abs"
                         else np.arctan2(pairs[:, 1], pairs[:, 0]))
                finite = np.isfinite(exact) & np.isfinite(a) & (np.abs(exact) < 3.4e38)
                e = np.abs(exact[finite])
                ulp = np.exp2(np.maximum(np.floor(np.log2(np.where(e > 0, e, 1))), -126) - 23)
                return f"{(np.abs(a[finite] - exact[finite]) / ulp).max():.3f}"

        if name in ("real", "imag"):  # bit for bit, NaN payloads included
            bits = exact.view(U32)
            row = ["bit-exact" if (ours.view(U32) == bits).all() else "DIFFERS",
                   "bit-exact" if (ref.view(U32) == bits).all() else "DIFFERS",
                   "bit-exact" if (vector.view(U32) == bits).all() else "DIFFERS",
                   "bit-exact" if (scalar.view(U32) == bits).all() else "DIFFERS"]
            row += ["0" if (ours.view(U32) == vector.view(U32)).all() else "DIFFERS",
                    "0" if (ours.view(U32) == scalar.view(U32)).all() else "DIFFERS",
                    "0" if (ours.view(U32) == ref.view(U32)).all() else "DIFFERS"]
        else:
            row = [f"{dist(ours, exact)}; max error {error(ours)}",
                   f"{dist(ref, exact)}; max error {error(ref)}",
                   f"{dist(vector, exact)}; max error {error(vector)}",
                   f"{dist(scalar, exact)}; max error {error(scalar)}"]
            row += [dist(ours, vector.view(U32)), dist(ours, scalar.view(U32)),
                    dist(ours, ref.view(U32))]
        seconds = time.perf_counter() - started
        print(f"| {name} | " + " | ".join(row) + f" | {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
