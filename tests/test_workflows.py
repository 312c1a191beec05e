"""The GitHub workflows are valid YAML and do what the README says they do."""

from __future__ import annotations

import yaml

from fpgakern import paths

WORKFLOWS = paths.SOURCE_ROOT / ".github" / "workflows"


def steps(name: str) -> tuple[dict, list[dict]]:
    workflow = yaml.safe_load((WORKFLOWS / name).read_text())
    (job,) = workflow["jobs"].values()
    return workflow, job["steps"]


def test_ci_runs_the_ci_script():
    _, ci = steps("ci.yml")
    assert any(step.get("run") == "bash .ci/run" for step in ci)


def test_nightly_builds_the_library_and_uploads_report_library_and_logs():
    workflow, nightly = steps("nightly.yml")
    assert "schedule" in workflow[True]  # YAML 1.1 reads the key 'on' as True
    assert any(step.get("run") == "fpgakern build --all" for step in nightly)
    cached = [s for s in nightly if str(s.get("uses", "")).startswith("actions/cache")]
    assert cached and cached[0]["with"]["path"] == "build"
    (upload,) = [s for s in nightly if str(s.get("uses", "")).startswith("actions/upload")]
    uploaded = upload["with"]["path"]
    for part in ("build/reports/latest/", "build/library/", "csim.log", "lint.log", "sim.log"):
        assert part in uploaded
