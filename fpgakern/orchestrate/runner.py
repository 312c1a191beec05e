"""Run many variant builds, in parallel processes, reporting each as it finishes."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from fpgakern.ladder import Plan
from fpgakern.orchestrate.variant import VariantResult, build_variant


def default_jobs() -> int:
    return os.cpu_count() or 1


def build_all(
    plans: Iterable[Plan],
    root: Path,
    *,
    jobs: int | None = None,
    on_done: Callable[[VariantResult], None] | None = None,
) -> list[VariantResult]:
    """Build every plan; results come back in the order of ``plans``.

    A failing variant does not stop the others: its result says what failed.
    """
    plans = list(plans)
    jobs = max(1, jobs or default_jobs())
    results: dict[int, VariantResult] = {}
    if jobs == 1 or len(plans) == 1:
        for i, p in enumerate(plans):
            results[i] = build_variant(p, root)
            if on_done:
                on_done(results[i])
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(build_variant, p, root): i for i, p in enumerate(plans)}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                if on_done:
                    on_done(results[futures[future]])
    return [results[i] for i in range(len(plans))]
