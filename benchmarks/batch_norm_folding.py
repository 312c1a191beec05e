"""How torch's CPU batch_norm (eval) computes its float32 result, found by elimination:
each candidate sequence of IEEE operations is evaluated in numpy (the op table's
correctly rounded fma, ``fpgakern.ir.ops``) and compared with
``torch.nn.functional.batch_norm`` bit for bit. The sequence that matches everywhere is
the one ``kernel_specs/nn_ops/batch_norm.yaml`` spells (docs/nn_ops.md).

    python benchmarks/batch_norm_folding.py [--shape 8 64 1024] [--seed 1]

torch folds the normalization into a scale and a shift per channel
(aten/src/ATen/native/cpu/batch_norm_kernel.cpp,
batch_norm_cpu_collect_linear_and_constant_terms: alpha = invstd * weight,
beta = bias - mean * alpha; then out = x * alpha + beta). Whether each multiply-add is
fused is up to the compiler and the CPU torch runs on (``torch.__config__.show()``'s
"CPU capability usage"), so it is measured here, not assumed.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from fpgakern.ir.ops import OPS

F32 = np.float32


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return OPS["fma"].reference(*np.broadcast_arrays(a, b, c))


def _mul_add(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return (a * b).astype(F32) + c


def candidates(x: np.ndarray, mean: np.ndarray, var: np.ndarray, weight: np.ndarray,
               bias: np.ndarray, eps: float) -> dict[str, np.ndarray]:
    """Each candidate sequence's output; per-channel values broadcast along dim 1."""
    def channel(v: np.ndarray) -> np.ndarray:
        return v.reshape((1, -1) + (1,) * (x.ndim - 2))

    invstd = F32(1) / np.sqrt(var + F32(eps))
    scale = invstd * weight
    unfolded = ((x - channel(mean)) * channel(invstd)).astype(F32) * channel(weight)
    out = {"unfolded: (x - mean) * invstd * weight + bias": unfolded + channel(bias)}
    for shift_name, shift in (("fused", _fma(-mean, scale, bias)),
                              ("unfused", bias - (mean * scale).astype(F32))):
        for out_name, combine in (("fused", _fma), ("unfused", _mul_add)):
            label = f"folded: shift {shift_name}, x * scale + shift {out_name}"
            out[label] = combine(x, channel(scale), channel(shift))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", type=int, nargs="+", default=[8, 64, 1024])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    shape = tuple(args.shape)
    if len(shape) < 2:
        parser.error("--shape needs at least 2 dimensions (N, C, ...)")
    rng = np.random.default_rng(args.seed)
    channels = shape[1]
    x = (rng.standard_normal(shape) * 3).astype(F32)
    mean = rng.standard_normal(channels).astype(F32)
    var = (rng.random(channels) * 2).astype(F32)
    weight = rng.standard_normal(channels).astype(F32)
    bias = rng.standard_normal(channels).astype(F32)
    eps = 1e-5
    theirs = torch.nn.functional.batch_norm(
        *(torch.from_numpy(a) for a in (x, mean, var)), torch.from_numpy(weight),
        torch.from_numpy(bias), training=False, eps=eps).numpy()
    capability = [line.strip() for line in torch.__config__.show().splitlines()
                  if "CPU capability" in line]
    print(f"torch {torch.__version__}, {capability[0] if capability else 'capability ?'}; "
          f"x {shape}, {x.size:,} elements, seed {args.seed}\n")
    print("| sequence | elements differing from torch |")
    print("|---|---:|")
    matched = []
    for label, ours in candidates(x, mean, var, weight, bias, eps).items():
        differing = int(np.count_nonzero(ours.view(np.uint32) != theirs.view(np.uint32)))
        print(f"| {label} | {differing:,} |")
        if differing == 0:
            matched.append(label)
    print(f"\nbit for bit: {matched[0] if matched else 'none'}")
    return 0 if len(matched) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
