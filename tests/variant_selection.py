"""Which kernel x rung x dtype variants the default test run exercises in the slow
checks (C simulation, RTL simulation), and which wait for ``-m slow``."""

from __future__ import annotations

import pytest

from fpgakern.spec.library import Library


def _covers(kernel, rung: int, dtype: str) -> set[tuple]:
    """What simulating one variant proves beyond the other variants: each operator it
    applies in its dtype (the fk:: helper and the RTL operator inside a kernel), its kind's
    template and microarchitecture at its rung and dtype, and the shape of its interface
    (inputs, scalars) in its dtype."""
    ops = {("op", op.name, dtype) for op in kernel.ops_used(dtype)}
    shape = ("shape", len(kernel.inputs), bool(kernel.scalars), str(kernel.kind), dtype)
    return ops | {("rung", str(kernel.kind), dtype, rung), shape}


def representative_variants(library: Library) -> list[tuple[str, int, str]]:
    """Few variants that still cover each capability: every operator in every dtype a
    kernel applies it in, every rung of every kernel kind in every dtype, and every
    interface shape (number of inputs, scalars or none). Chosen greedily: the variant that
    proves the most not yet proven first, the lower rung (a smaller, quicker model) and
    then the name breaking ties. A kernel that adds nothing (an expression whose operators
    other kernels already take through every path) waits for ``-m slow`` and for the
    nightly ``fpgakern build --all``, which run every variant; its operators are also
    proven on their own, bit for bit, by tests/oplib.
    """
    candidates = {(k.qualname, r, d): _covers(k, r, d)
                  for k in library.kernels for d in k.dtypes for r in k.rungs}
    needed = set().union(*candidates.values())
    chosen: list[tuple[str, int, str]] = []
    while needed:
        best = min(candidates, key=lambda v: (-len(candidates[v] & needed), v[1], v))
        chosen.append(best)
        needed -= candidates.pop(best)
    return sorted(chosen)


def all_variants(library: Library) -> list[tuple[str, int, str]]:
    return [(k.qualname, r, d) for k in library.kernels for d in k.dtypes for r in k.rungs]


def variant_params(library: Library) -> list:
    """Every variant as a pytest parameter, the ones outside ``representative_variants``
    marked slow."""
    fast = set(representative_variants(library))
    return [pytest.param(*v, id=f"{v[0].replace('/', '.')}-{v[1]}-{v[2]}",
                         marks=() if v in fast else pytest.mark.slow)
            for v in all_variants(library)]
