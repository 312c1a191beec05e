"""Which kernel x rung x dtype variants the default test run exercises in the slow
checks (C simulation, RTL simulation), and which wait for ``-m slow``."""

from __future__ import annotations

import pytest

from fpgakern.spec.library import Library


def representative_variants(library: Library) -> list[tuple[str, int, str]]:
    """A subset of every kernel x rung x dtype that still covers each capability: every
    kernel in every dtype (each operator), and every rung of every kernel kind in every
    dtype (each template and microarchitecture). In a (kind, dtype) group of n kernels,
    kernel i takes the rungs i, i + n, i + 2n, ... (shifted by one per dtype, so that a
    small group, such as the two reductions, meets every rung across its dtypes).
    The full matrix runs under ``-m slow`` (and in the nightly ``fpgakern build --all``).
    """
    groups: dict[tuple[str, str], list] = {}
    for kernel in sorted(library.kernels, key=lambda k: k.qualname):
        for dtype in kernel.dtypes:
            groups.setdefault((str(kernel.kind), dtype), []).append(kernel)
    # int32 first: float32 then takes the odd shift, which puts the float sum (whose
    # interleaved partial sums are the hardest reduction datapath) on rungs 2 and 4.
    dtypes = sorted({dtype for _, dtype in groups}, reverse=True)
    chosen: list[tuple[str, int, str]] = []
    for (_, dtype), kernels in sorted(groups.items()):
        shift = dtypes.index(dtype)
        for i, kernel in enumerate(kernels):
            rungs = sorted(kernel.rungs)
            for j in range(i, max(len(rungs), i + 1), len(kernels)):
                chosen.append((kernel.qualname, rungs[(j + shift) % len(rungs)], dtype))
    return chosen


def all_variants(library: Library) -> list[tuple[str, int, str]]:
    return [(k.qualname, r, d) for k in library.kernels for d in k.dtypes for r in k.rungs]


def variant_params(library: Library) -> list:
    """Every variant as a pytest parameter, the ones outside ``representative_variants``
    marked slow."""
    fast = set(representative_variants(library))
    return [pytest.param(*v, id=f"{v[0].replace('/', '.')}-{v[1]}-{v[2]}",
                         marks=() if v in fast else pytest.mark.slow)
            for v in all_variants(library)]
