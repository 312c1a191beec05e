"""The contraction PE (fk_mac_pe) in Verilator, against the declared order's reference.

A PE sums each of its outputs' products in the one declared order
(fpgakern.ir.contraction.ACCUMULATION_ORDER): PARTIALS strided partial sums, then the
fixed pairwise tree. :func:`run` streams the products of several outputs through one PE,
interleaved over its slots at one product per cycle (``pesim_harness.cpp``), and returns
each result; :func:`check` holds them bit for bit to fpgakern.verify.matmul (any NaN
matches any NaN). The model is built once per source text, parameters and Verilator
version (``fpgakern.tools.cache``).
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fpgakern.backends.rtl import pe
from fpgakern.backends.rtl.pe import PE
from fpgakern.errors import ToolError
from fpgakern.ir.contraction import PARTIALS
from fpgakern.ir.dtypes import DTYPES
from fpgakern.tools import verilator
from fpgakern.tools.cache import cached_build, key_of
from fpgakern.tools.verilator_build import verilate
from fpgakern.verify import matmul

HARNESS = Path(__file__).resolve().with_name("pesim_harness.cpp")
VERILATOR_FLAGS = (*verilator.FLAGS, "-CFLAGS", "-O0")


def build_model(dtype_name: str, slots: int, banks: int = 1) -> Path:
    """The compiled harness of a PE for ``dtype_name`` with ``slots`` slots and ``banks``
    sets of partials (cached; the harness uses bank 0)."""
    params = pe.pe_parameters(dtype_name, slots, banks)
    files = pe.pe_sources(dtype_name)
    overrides = [f"-G{name}={value}" for name, value in params.items()]
    key = key_of(PE, *overrides, verilator.version(), *VERILATOR_FLAGS,
                 *verilator.make_variables(),
                 *(p.name.encode() + b"\0" + p.read_bytes() for p in (*files, HARNESS)))

    def build(work: Path) -> None:
        verilate(work, ["--exe", *VERILATOR_FLAGS, "--top-module", PE, *overrides,
                        "-o", str(work / "sim"), *(str(f) for f in files), str(HARNESS)],
                 prefix="Vtop", shared=[HARNESS], what=f"verilator build of {PE}",
                 files={"pesim_config.h": f"#define FK_SLOTS {slots}\n"
                                          f"#define FK_P {PARTIALS}\n"})

    return cached_build("pesim", f"{PE}-{dtype_name}-{slots}-{banks}", key, "sim", build) / "sim"


@dataclass(frozen=True)
class PeRun:
    results: np.ndarray  # one per output, the dtype's
    cycles: int


def run(a: Sequence[np.ndarray], b: Sequence[np.ndarray], dtype_name: str,
        slots: int = 1, banks: int = 1) -> PeRun:
    """Each output's products a[j] * b[j] (1-D arrays of one length per output) through
    one PE, ``slots`` outputs interleaved at a time; the outputs of each group of
    ``slots`` have one length (a PE's trees share one count, as a kernel's outputs do)."""
    for group in range(0, len(a), slots):
        if len({len(x) for x in a[group:group + slots]}) > 1:
            raise ValueError(f"outputs {group}..{group + slots - 1} differ in length")
    numpy = DTYPES[dtype_name].numpy
    parts = [np.array([len(a)], np.int32).tobytes()]
    for x, y in zip(a, b, strict=True):
        x = np.ascontiguousarray(x, numpy).view(np.uint32)
        y = np.ascontiguousarray(y, numpy).view(np.uint32)
        parts += [np.array([x.size], np.int32).tobytes(),
                  np.stack([x, y], axis=1).astype("<u4").tobytes()]
    binary = build_model(dtype_name, slots, banks)
    with tempfile.TemporaryDirectory(prefix="fk-pesim-") as tmp:
        jobs, out = Path(tmp) / "jobs.bin", Path(tmp) / "results.bin"
        jobs.write_bytes(b"".join(parts))
        done = subprocess.run([str(binary), str(jobs), str(out)], capture_output=True,
                              text=True, check=False)
        if done.returncode != 0:
            raise ToolError(f"simulation of {PE} failed: {(done.stderr or done.stdout).strip()}")
        raw = out.read_bytes()
    results = np.frombuffer(raw[:4 * len(a)], dtype=numpy).copy()
    return PeRun(results, int(np.frombuffer(raw[4 * len(a):], dtype=np.uint64)[0]))


def expected(a: Sequence[np.ndarray], b: Sequence[np.ndarray], dtype_name: str) -> np.ndarray:
    """Each output in the declared order (fpgakern.verify.matmul.accumulate)."""
    numpy = DTYPES[dtype_name].numpy
    return np.array([matmul.accumulate(np.asarray(x, numpy)[None, None, :],
                                       np.asarray(y, numpy)[None, :, None], dtype_name)[0, 0, 0]
                     for x, y in zip(a, b, strict=True)], dtype=numpy)


def mismatches(got: np.ndarray, want: np.ndarray) -> int:
    """Results that differ in their bits (any NaN matches any NaN)."""
    bits = np.dtype(f"u{want.dtype.itemsize}")
    differ = got.view(bits) != want.view(bits)
    if want.dtype.kind == "f":
        differ &= ~(np.isnan(got) & np.isnan(want))
    return int(differ.sum())
