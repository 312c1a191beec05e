"""What a build leaves behind: ``run_results.json`` (versioned) and JUnit XML for CI.

Reports go to ``build/reports/<timestamp>/``; ``build/reports/latest`` points at the
newest.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from fpgakern import __version__
from fpgakern.orchestrate.task import BLOCKED, FAILED, SKIPPED, BuildResult
from fpgakern.util.files import write_text_atomic

SCHEMA_VERSION = 1
RESULTS = "run_results.json"
JUNIT = "junit.xml"


def reports_dir(root: Path) -> Path:
    return root / "reports"


def new_report_dir(root: Path) -> Path:
    """A fresh ``reports/<timestamp>`` folder (suffixed if two builds share a second)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    base = reports_dir(root)
    base.mkdir(parents=True, exist_ok=True)
    for n in range(1000):
        folder = base / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
    raise RuntimeError("cannot create a report folder")


def point_latest(root: Path, folder: Path) -> None:
    link = reports_dir(root) / "latest"
    tmp = reports_dir(root) / f".latest.{os.getpid()}"
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(folder.name)
    os.replace(tmp, link)


def to_json(result: BuildResult, command: str, library: Any = None) -> dict[str, Any]:
    variants = []
    for variant, tasks in result.variants.items():
        folder = tasks[0].folder
        variants.append({
            **variant.to_json(),
            "folder": str(folder.relative_to(result.root)),
            "passed": all(t.status not in (FAILED, BLOCKED) for t in tasks),
            "tasks": [{
                "step": t.step.name,
                "status": t.status,
                "detail": t.outcome.detail if t.outcome else t.reason,
                "seconds": round(t.outcome.seconds, 3) if t.outcome else 0.0,
                "data": (t.outcome.data if t.outcome else {}),
            } for t in tasks],
        })
    return {
        "schema_version": SCHEMA_VERSION,
        "fpgakern": __version__,
        "command": command,
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "executor": result.executor,
        "seconds": round(result.seconds, 3),
        "passed": result.passed,
        "counts": {s: result.count(s) for s in
                   ("passed", "cached", "failed", "blocked", "skipped")},
        "variants": variants,
        "library": None if library is None else {
            "xclbin": str(library.path.relative_to(result.root)) if library.path else None,
            "included": library.included,
            "left_out": library.left_out,
            "error": library.error,
        },
    }


def junit(result: BuildResult) -> str:
    """JUnit XML: one suite per kernel, one case per task."""
    suites: dict[str, list[str]] = {}
    for task in result.tasks:
        variant = task.variant
        name = f"opt{variant.rung}.{variant.dtype}.{task.step.name}"
        seconds = task.outcome.seconds if task.outcome else 0.0
        detail = task.outcome.detail if task.outcome else task.reason
        body = ""
        if task.status == FAILED:
            body = f"<failure message={quoteattr(detail)}/>"
        elif task.status == BLOCKED:
            body = f"<error message={quoteattr(detail)}/>"
        elif task.status == SKIPPED:
            body = f"<skipped message={quoteattr(detail)}/>"
        suites.setdefault(variant.kernel, []).append(
            f'    <testcase classname={quoteattr(variant.kernel)} name={quoteattr(name)} '
            f'time="{seconds:.3f}">{body}</testcase>')
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<testsuites>"]
    for kernel, cases in suites.items():
        failures = sum("<failure" in c for c in cases)
        errors = sum("<error" in c for c in cases)
        skipped = sum("<skipped" in c for c in cases)
        lines.append(f'  <testsuite name={quoteattr(kernel)} tests="{len(cases)}" '
                     f'failures="{failures}" errors="{errors}" skipped="{skipped}">')
        lines += cases
        lines.append("  </testsuite>")
    lines.append("</testsuites>")
    return "\n".join(lines) + "\n"


def write(result: BuildResult, folder: Path, command: str,
          library: Any = None) -> dict[str, Any]:
    data = to_json(result, command, library)
    # One line, not indented: json's indented output is pure Python, and for the whole
    # library (3,360 tasks) it took a tenth of a no-change build (python -m json.tool
    # or jq shows it indented).
    write_text_atomic(folder / RESULTS, json.dumps(data, separators=(",", ":")) + "\n")
    write_text_atomic(folder / JUNIT, junit(result))
    return data
