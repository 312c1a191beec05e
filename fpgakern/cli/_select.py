"""Choosing variants (kernel x rung x dtype) from command-line selections."""

from __future__ import annotations

from fpgakern.errors import UsageError
from fpgakern.ladder import LAST_RUNG, MemorySystem, Plan, builds, plan, platform_plan
from fpgakern.spec.library import Library


def parse_rungs(text: str | None) -> tuple[int, ...]:
    """``--rungs 2,4`` as a tuple of rung numbers."""
    if not text:
        return ()
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise UsageError(f"--rungs takes numbers like 2,4, not {text!r}") from None
    for value in values:
        if not 0 <= value <= LAST_RUNG:
            raise UsageError(f"unknown rung {value} in --rungs (rungs are 0-{LAST_RUNG})")
    return values


def plans_for(
    library: Library,
    kernels: tuple[str, ...],
    *,
    all_kernels: bool,
    rungs: tuple[int, ...] | None,
    dtype: str | None,
    categories: tuple[str, ...] = (),
    memory: MemorySystem | None = None,
) -> list[Plan]:
    """Every plan the selection names, in library order; placed on ``memory`` (a
    platform's memory system) as ``fpgakern build`` places them (``platform_plan``).

    With explicit rungs or a dtype, a kernel that builds neither (``ladder.builds``: the
    rungs its spec lists, and the on-request rungs they allow) is an error when named
    alone and skipped when it came from ``--all`` or a pattern.
    """
    if all_kernels and (kernels or categories):
        raise UsageError("give kernel names or --category, or --all, not both")
    if not all_kernels and not kernels and not categories:
        raise UsageError("name at least one kernel (e.g. binary_ops/add), a --category, "
                         "or use --all")
    unknown = [c for c in categories if c not in library.categories]
    if unknown:
        raise UsageError(f"unknown category {unknown[0]!r} "
                         f"(known: {', '.join(library.categories)})")
    chosen = library.kernels if all_kernels else library.select(kernels)
    for category in categories:
        chosen += [k for k in library.categories[category].kernels if k not in chosen]
    named_alone = not all_kernels and not categories and len(kernels) == 1 and len(chosen) == 1
    out: list[Plan] = []
    for kernel in chosen:
        wanted_rungs = rungs or kernel.rungs
        wanted_dtypes = (dtype,) if dtype else kernel.dtypes
        for r in wanted_rungs:
            for d in wanted_dtypes:
                if (not builds(kernel, r) or d not in kernel.dtypes) and not named_alone:
                    continue
                out.append(plan(kernel, r, d) if memory is None
                           else platform_plan(kernel, r, d, memory))
    if not out:
        raise UsageError("the selection contains no kernel variant (check --opt, --rungs "
                         "and --dtype against the kernels' rungs and dtypes)")
    return out


def refuse_unfit(plans: list[Plan]) -> None:
    """UsageError, one line, when a plan's compute units do not fit its platform's SLRs
    (``Placement.fit``): the first such variant and what it exceeds."""
    unfit = [(p, fit) for p in plans if (fit := p.placement.fit) is not None and not fit.fits]
    if not unfit:
        return
    p, fit = unfit[0]
    memory = p.placement.memory
    others = f" (and {len(unfit) - 1} more variants)" if len(unfit) > 1 else ""
    raise UsageError(f"{p.variant} does not fit {memory.platform if memory else '?'} with "
                     f"{p.placement.compute_units} compute unit(s): "
                     f"{'; '.join(fit.problems)}{others}")
