"""The spectral kernels on sw_emu and hw_emu against a float64 FFT, and torch's distance.

For fft, ifft, rfft and irfft at n = 8, 1024 and 65536 (batch 4, standard normal rows),
each norm, this runs the kernel of one rung on each target (the built variant folders
under build/, built first when missing) and prints, per transform:

* the largest relative RMS error of a row against numpy's float64 FFT of the same
  float32 input, in units of the stated target 2 log2(n) 2^-24 (fpgakern.ir.fft.rms_target;
  <= 1 passes), and the largest element error in units of the proven per-element bound
  (fft.element_bound(n) times the row's exact 2-norm; <= 1 passes);
* the same two figures for torch.fft on the same rows (for comparison);
* whether the kernel's output is fpgakern.ir.fft's bit for bit;
* the round trip ifft(fft(x)) error (relative RMS against x), on the kernels.

    python benchmarks/fft_accuracy.py                        # rung 2 on sw_emu and hw_emu
    python benchmarks/fft_accuracy.py --rung 4 --targets hw_emu --lengths 8 1024
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch

from fpgakern import paths
from fpgakern.ir import fft
from fpgakern.ladder import plan
from fpgakern.orchestrate.build import run_build
from fpgakern.orchestrate.executors import make_executor
from fpgakern.runtime import device as runtime
from fpgakern.spec.library import Library
from fpgakern.verify import spectral

ROWS = 4
LENGTHS = (8, 1024, 65536)
TRANSFORMS = fft.TRANSFORMS
NORMS = (None, "forward", "ortho")


def _input(transform: fft.Transform, n: int, rng: np.random.Generator) -> np.ndarray:
    return spectral.normal_rows(transform, ROWS, n, rng)


def _exact(transform: str, x: np.ndarray, n: int, norm: str | None) -> np.ndarray:
    wide = x.astype(np.float64 if transform == "rfft" else np.complex128)
    if transform == "irfft":
        return np.fft.irfft(wide, n, norm=norm)
    return getattr(np.fft, transform)(wide, norm=norm)


def _errors(y: np.ndarray, exact: np.ndarray, transform: str, n: int) -> tuple[float, float]:
    """(largest row RMS error / rms_target, largest element error / element bound)."""
    norms = np.linalg.norm(exact, axis=-1, keepdims=True)
    rms = (np.linalg.norm(y - exact, axis=-1, keepdims=True) / norms).max()
    full = norms * (math.sqrt(2) if transform in ("rfft", "irfft") else 1.0)
    element = (np.abs(y - exact) / (fft.element_bound(n) * full)).max()
    return float(rms / fft.rms_target(n)), float(element)


def _handle(library: Library, name: str, rung: int, target: str, root: Path):
    kernel = library.get(name)
    p = plan(kernel, rung, kernel.dtypes[0])
    folder = p.variant_dir(root)
    if not (folder / "manifest.json").is_file():
        executor = make_executor("local", 1)
        try:
            run_build([p], root, executor, until="lint" if target == "hw_emu" else "csim")
        finally:
            executor.close()
    return runtime.open(folder, target).kernel(name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rung", type=int, default=2)
    parser.add_argument("--targets", nargs="+", default=["sw_emu", "hw_emu"])
    parser.add_argument("--lengths", nargs="+", type=int, default=list(LENGTHS))
    parser.add_argument("--transforms", nargs="+", default=list(TRANSFORMS))
    args = parser.parse_args()
    library = Library.for_project()
    root = paths.build_dir(library.root.parent)
    rng = np.random.default_rng(16)
    print("| target | transform | n | norm | RMS / target | element / bound | torch RMS / "
          "target | torch element / bound | bit for bit | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ok = True
    for target in args.targets:
        for transform in args.transforms:
            handle = _handle(library, f"spectral_ops/{transform}", args.rung, target, root)
            for n in args.lengths:
                for norm in NORMS:
                    x = _input(transform, n, rng)
                    started = time.perf_counter()
                    y = handle(x, n=n, norm=norm)
                    seconds = time.perf_counter() - started
                    exact = _exact(transform, x, n, norm)
                    rms, element = _errors(y, exact, transform, n)
                    theirs = getattr(torch.fft, transform)(torch.from_numpy(x), n=n,
                                                           norm=norm).numpy()
                    t_rms, t_element = _errors(theirs, exact, transform, n)
                    model = fft.transform(transform, x, n, fft.norm_scale(transform, n, norm))
                    same = np.array_equal(np.ascontiguousarray(y).view(np.uint8),
                                          np.ascontiguousarray(model).view(np.uint8))
                    ok &= rms <= 1 and element <= 1 and same
                    print(f"| {target} | {transform} | {n} | {norm or 'backward'} | {rms:.3f} | "
                          f"{element:.2e} | {t_rms:.3f} | {t_element:.2e} | "
                          f"{'yes' if same else 'NO'} | {seconds:.1f} |", flush=True)
        if {"fft", "ifft"} <= set(args.transforms):
            forward = _handle(library, "spectral_ops/fft", args.rung, target, root)
            inverse = _handle(library, "spectral_ops/ifft", args.rung, target, root)
            for n in args.lengths:
                x = _input("fft", n, rng)
                back = inverse(forward(x))
                error = (np.linalg.norm(back - x, axis=-1) / np.linalg.norm(x, axis=-1)).max()
                print(f"round trip ifft(fft(x)) on {target}, n = {n}: relative RMS error "
                      f"{error:.3e} ({error / fft.rms_target(n):.3f} of one transform's "
                      "target)", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
