"""Choosing variants (kernel x rung x dtype) from command-line selections."""

from __future__ import annotations

from fpgakern.errors import UsageError
from fpgakern.ladder import Plan, plan
from fpgakern.spec.library import Library


def plans_for(
    library: Library,
    kernels: tuple[str, ...],
    *,
    all_kernels: bool,
    rungs: tuple[int, ...] | None,
    dtype: str | None,
) -> list[Plan]:
    """Every plan the selection names, in library order.

    With explicit rungs or a dtype, a kernel that declares neither is an error when named
    alone and skipped when it came from ``--all`` or a pattern.
    """
    if all_kernels and kernels:
        raise UsageError("give kernel names or --all, not both")
    if not all_kernels and not kernels:
        raise UsageError("name at least one kernel (e.g. binary_ops/add) or use --all")
    chosen = library.kernels if all_kernels else library.select(kernels)
    named_alone = not all_kernels and len(chosen) == 1
    out: list[Plan] = []
    for kernel in chosen:
        wanted_rungs = rungs or kernel.rungs
        wanted_dtypes = (dtype,) if dtype else kernel.dtypes
        for r in wanted_rungs:
            for d in wanted_dtypes:
                if (r not in kernel.rungs or d not in kernel.dtypes) and not named_alone:
                    continue
                out.append(plan(kernel, r, d))
    if not out:
        raise UsageError("the selection contains no kernel variant to build")
    return out
