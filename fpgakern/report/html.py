"""The HTML build report: a ladder chart per kernel, verdicts, resources, times, logs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fpgakern.report.history import Regression
from fpgakern.util.files import write_text_atomic
from fpgakern.util.jinja import environment

TEMPLATES = Path(__file__).resolve().parent / "templates"
REPORT = "report.html"
BAR_W, BAR_GAP, CHART_H = 46, 14, 120


def ladder_charts(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Per kernel and dtype, the simulated elements/cycle of each rung, as SVG bar data."""
    charts: dict[tuple[str, str], list[tuple[int, float, float | None]]] = {}
    for v in results["variants"]:
        sim = next((t for t in v["tasks"] if t["step"] == "sim"), None)
        if sim is None or sim["data"].get("elements_per_cycle") is None:
            continue
        rate = sim["data"]["elements_per_cycle"]
        ideal = sim["data"].get("ideal_elements_per_cycle")
        charts.setdefault((v["kernel"], v["dtype"]), []).append((v["rung"], rate, ideal))
    out = []
    for (kernel, dtype), bars in sorted(charts.items()):
        bars.sort()
        top = max(max(r for _, r, _ in bars), 1e-9)
        out.append({
            "kernel": kernel, "dtype": dtype,
            "width": len(bars) * (BAR_W + BAR_GAP) + BAR_GAP, "height": CHART_H + 40,
            "bars": [{"x": BAR_GAP + i * (BAR_W + BAR_GAP), "w": BAR_W,
                      "h": max(1.0, CHART_H * rate / top),
                      "y": 20 + CHART_H - max(1.0, CHART_H * rate / top),
                      "label": f"opt{rung}", "value": f"{rate:.3g}",
                      "ideal": f"{ideal:.3g}" if ideal else "-"}
                     for i, (rung, rate, ideal) in enumerate(bars)],
            "base": 20 + CHART_H,
        })
    return out


def write(folder: Path, results: dict[str, Any], regressions: list[Regression],
          root: Path) -> Path:
    steps = list(dict.fromkeys(t["step"] for v in results["variants"] for t in v["tasks"]))
    up = Path("..", "..")  # from reports/<timestamp>/ back to the build root
    rows = []
    for v in results["variants"]:
        by_step = {t["step"]: t for t in v["tasks"]}
        resources = next((t["data"].get("resources") for t in v["tasks"]
                          if t["data"].get("resources")), None)
        rows.append({**v, "by_step": by_step, "resources": resources,
                     "link": str(up / v["folder"] / "manifest.json")})
    html = environment(TEMPLATES).get_template("report.html.j2").render(
        results=results, steps=steps, rows=rows, charts=ladder_charts(results),
        regressions=regressions, root=str(root),
    )
    path = folder / REPORT
    write_text_atomic(path, html)
    return path
