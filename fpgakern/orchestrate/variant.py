"""Build one variant (kernel x rung x dtype): generate, verify, record a manifest.

Each step writes its files atomically and the manifest comes last, so an interrupted
build leaves no manifest that describes files which were never finished.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from fpgakern import __version__
from fpgakern.backends import hls
from fpgakern.errors import FpgakernError
from fpgakern.ladder import Plan
from fpgakern.util.files import sha256_file, write_text_atomic
from fpgakern.verify import csim, stimulus

MANIFEST = "manifest.json"
MANIFEST_SCHEMA = 1


def variant_dir(root: Path, plan: Plan) -> Path:
    """``<root>/<category>/<kernel>/opt<N>/<dtype>``."""
    k = plan.kernel
    return root / k.category / k.name / f"opt{plan.rung.index}" / plan.dtype.name


@dataclass
class StepResult:
    name: str
    passed: bool
    seconds: float
    detail: str = ""


@dataclass
class VariantResult:
    kernel: str
    rung: int
    dtype: str
    out_dir: Path
    steps: list[StepResult] = field(default_factory=list)
    artifacts: list[Path] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(s.passed for s in self.steps)

    def step(self, name: str) -> StepResult | None:
        return next((s for s in self.steps if s.name == name), None)

    def to_json(self) -> dict[str, object]:
        return {
            "kernel": self.kernel,
            "rung": self.rung,
            "dtype": self.dtype,
            "passed": self.passed,
            "out_dir": str(self.out_dir),
            "steps": [{"name": s.name, "passed": s.passed, "seconds": round(s.seconds, 3),
                       "detail": s.detail} for s in self.steps],
            "artifacts": [str(p) for p in self.artifacts],
        }


def build_variant(plan: Plan, root: Path, *, csim_size: int = 1000) -> VariantResult:
    """Generate the plan's HLS C++ and prove it in C simulation; write its manifest."""
    out_dir = variant_dir(root, plan)
    result = VariantResult(plan.kernel.qualname, plan.rung.index, plan.dtype.name, out_dir)

    started = time.monotonic()
    try:
        sources = hls.generate(plan, out_dir)
    except FpgakernError as err:
        result.steps.append(StepResult("hls", False, time.monotonic() - started, str(err)))
        return result
    result.artifacts += [sources.kernel, sources.testbench, *sources.headers]
    if sources.link_config:
        result.artifacts.append(sources.link_config)
    result.steps.append(StepResult("hls", True, time.monotonic() - started,
                                   f"{len(result.artifacts)} files"))

    started = time.monotonic()
    cases = stimulus.cases(plan.kernel, plan.dtype, size=csim_size, lanes=max(plan.lanes, 16))
    verdict = csim.run(plan, sources, cases, out_dir / "csim")
    write_text_atomic(out_dir / "csim" / "report.json", json.dumps(verdict.to_json(), indent=2))
    result.steps.append(StepResult("csim", verdict.passed, time.monotonic() - started,
                                   verdict.summary()))
    write_manifest(plan, result)
    return result


def write_manifest(plan: Plan, result: VariantResult) -> Path:
    """Record every artifact with its sha256, and each step's verdict."""
    manifest = {
        "schema": MANIFEST_SCHEMA,
        "fpgakern": __version__,
        "kernel": plan.kernel.qualname,
        "top": plan.top,
        "rung": plan.rung.index,
        "rung_name": plan.rung.name,
        "dtype": plan.dtype.name,
        "spec": str(plan.kernel.source),
        "artifacts": [
            {"path": str(p.relative_to(result.out_dir)), "sha256": sha256_file(p),
             "bytes": p.stat().st_size}
            for p in result.artifacts
        ],
        "steps": {s.name: {"passed": s.passed, "detail": s.detail} for s in result.steps},
        "csim": _step_verdict(result, "csim"),
    }
    path = result.out_dir / MANIFEST
    write_text_atomic(path, json.dumps(manifest, indent=2) + "\n")
    return path


def _step_verdict(result: VariantResult, name: str) -> dict[str, object] | None:
    step = result.step(name)
    return None if step is None else {"passed": step.passed, "detail": step.detail}
