"""A variant's ``manifest.json``: every artifact with its sha256 and each step's verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fpgakern import __version__
from fpgakern.ladder import Plan
from fpgakern.orchestrate import cache
from fpgakern.orchestrate.steps import steps as step_order
from fpgakern.orchestrate.task import Task
from fpgakern.util.files import write_text_atomic

MANIFEST = "manifest.json"
SCHEMA = 2


def write(plan: Plan, folder: Path, tasks: list[Task],
          earlier: dict[str, cache.Record] | None = None) -> Path:
    """Write the manifest of one variant from its tasks' records (written after them) and
    the still-current ``earlier`` records of steps this build did not select."""
    entries: dict[str, tuple[dict[str, Any], cache.Record | None]] = {}
    for task in tasks:
        record = task.record if task.outcome else None
        # What the artifacts are, not how this run got them: a cached task and a rerun
        # one give the same manifest, so a resumed build matches a clean one byte for byte.
        if task.outcome is not None:
            entries[task.step.name] = ({"passed": task.outcome.passed,
                                        "detail": task.outcome.detail}, record)
        else:
            entries[task.step.name] = ({task.status: task.reason}, None)
    for name, record in (earlier or {}).items():
        entries.setdefault(name, ({"passed": record.passed, "detail": record.detail}, record))
    artifacts: list[dict[str, Any]] = []
    steps: dict[str, dict[str, Any]] = {}
    for name in (n for n in step_order() if n in entries):  # one order, however built
        entry, record = entries[name]
        steps[name] = entry
        if record is not None and record.passed:
            # Logs are kept beside the artifacts but are not artifacts: they carry times.
            artifacts += [{"path": path, "sha256": digest, "step": name}
                          for path, digest in record.files.items() if not path.endswith(".log")]
    data = {
        "schema": SCHEMA,
        "fpgakern": __version__,
        **plan.variant.to_json(),  # what names it: kernel, rung, dtype (ladder.Variant)
        "top": plan.top,
        "rung_name": plan.rung.name,
        "spec": f"kernel_specs/{plan.kernel.category}/{plan.kernel.source.name}",
        "artifacts": artifacts,
        "steps": steps,
        "csim": steps.get("csim"),
    }
    placement = plan.placement
    if placement.fit is not None:  # the resource estimate (docs/link.md, "Resources")
        data["resources"] = {"compute_units": placement.compute_units,
                             "cu": placement.cost.to_json(), "fit": placement.fit.to_json()}
    path = folder / MANIFEST
    # Compared as data: a no-change build of the library spent a quarter of its time
    # formatting 480 unchanged manifests (json's indented output is pure Python).
    if _current(path) != data:
        write_text_atomic(path, json.dumps(data, indent=2) + "\n")
    return path


def _current(path: Path) -> Any:
    """The manifest at ``path`` as data, or None where there is none that parses."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None
