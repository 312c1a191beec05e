"""A register kernel's checks: scalar cases, the reference's results, the judge (its C
simulation is fpgakern.verify.registers_csim; the RTL testbench sim/fk_mailbox_tb.py uses
this module, which loads nothing of the HLS backend).

Every register kernel is checked on the same cases, in C simulation and in RTL
simulation: every pair of special values over its first two scalars (each other scalar
a plain value), then random values for all. Each result is held to the kernel's
accuracy against fpgakern's reference (any NaN matches any NaN).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.kernel import Kernel
from fpgakern.ladder import Plan
from fpgakern.verify import compare, reference, stimulus
from fpgakern.verify.reference import Apply, ieee

RANDOM_CASES = 64


def cases(kernel: Kernel, dtype_name: str, seed: int = 0) -> dict[str, np.ndarray]:
    """Each scalar's value in every case (one array per scalar, all of one length)."""
    dtype = DTYPES[dtype_name]
    names = [s.name for s in kernel.scalars]
    specials = stimulus.specials(dtype).astype(dtype.numpy)
    paired = names[:2]
    grid = list(itertools.product(specials, repeat=len(paired)))
    values = {name: np.array([row[i] for row in grid], dtype.numpy)
              for i, name in enumerate(paired)}
    plain = stimulus.scalar_value(dtype)
    for name in names[2:]:
        values[name] = np.full(len(grid), plain, dtype.numpy)
    rng = np.random.default_rng(seed)
    return {name: np.concatenate([values[name],
                                  stimulus.random_values(dtype, RANDOM_CASES, rng)])
            for name in names}


def expected(kernel: Kernel, dtype_name: str, scalars: dict[str, np.ndarray],
             apply: Apply = ieee) -> dict[str, np.ndarray]:
    """Each result of each case, as fpgakern's reference computes it (``apply``: each op,
    torch's by default; fpgakern.verify.flush's for Vitis-built hardware)."""
    count = len(next(iter(scalars.values())))
    numpy_type = DTYPES[dtype_name].numpy
    return {name: np.broadcast_to(reference.evaluate(root, {}, scalars, apply), (count,))
            .astype(numpy_type) for name, root in kernel.result_graphs(dtype_name).items()}


def write_case(plan: Plan, path: Path, apply: Apply = ieee) -> dict[str, np.ndarray]:
    """The testbench's case file (hls_templates/registers/testbench.cpp.j2): every case's
    scalars, then their results as ``apply`` computes them; returns those results."""
    kernel, dtype_name = plan.kernel, plan.dtype.name
    scalars = cases(kernel, dtype_name)
    want = expected(kernel, dtype_name, scalars, apply)
    count = len(next(iter(scalars.values())))
    words = [np.array([count], np.int32).view(np.uint32),
             np.stack([scalars[s.name] for s in kernel.scalars], axis=1).view(np.uint32).ravel(),
             np.stack([want[n] for n in kernel.outputs], axis=1).view(np.uint32).ravel()]
    np.concatenate(words).tofile(path)
    return want


def judge(kernel: Kernel, dtype_name: str, want: dict[str, np.ndarray],
          got: dict[str, np.ndarray]) -> compare.Verdict:
    """Every result of every case against the reference's, under the kernel's accuracy."""
    accuracy = kernel.accuracy(dtype_name)
    return compare.compare(np.concatenate([want[n] for n in kernel.outputs]),
                           np.concatenate([got[n] for n in kernel.outputs]), accuracy)
