"""Generate a plan's HLS C++: the kernel, its C-simulation testbench, its link config."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from fpgakern import paths
from fpgakern.backends.hls.cexpr import CSpelling
from fpgakern.backends.templates import render
from fpgakern.errors import display_path
from fpgakern.interface import interface
from fpgakern.ladder import Plan
from fpgakern.util.files import write_text_atomic

# Headers shipped with every kernel (part of its sources).
KERNEL_HEADERS = ("fpgakern_ops.h",)


@dataclass(frozen=True)
class HlsSources:
    kernel: Path  # <top>.cpp: the Vitis HLS kernel
    testbench: Path  # <top>_tb.cpp: C simulation driver, the host's part in emulation
    headers: tuple[Path, ...]
    link_config: Path | None  # rung 3: v++ --config with nk= and sp=

    @property
    def kernel_sources(self) -> tuple[Path, ...]:
        """What a Vitis compile (v++ -c) needs: the kernel and its headers."""
        return (self.kernel, *self.headers)


def templates_dir() -> Path:
    return paths.data_dir("hls_templates")


def body_template(plan: Plan) -> str:
    """The rung body a plan uses: multi-CU and vectorized reuse the dataflow body."""
    if plan.rung.dataflow:
        return "dataflow"
    return "buffered" if plan.rung.buffered else "naive"


def context(plan: Plan) -> dict[str, object]:
    iface = interface(plan)
    c = CSpelling(plan, iface)
    return {
        "plan": plan,
        "kernel": plan.kernel,
        "dtype": plan.dtype,
        "iface": iface,
        "c": c,
        "T": c.T,
        "W": c.W,
        "body": body_template(plan),
        "reduce": plan.kernel.reduction,
        "spec_path": f"kernel_specs/{plan.kernel.category}/{plan.kernel.source.name}",
    }


def render_kernel(plan: Plan) -> str:
    return render(templates_dir(), plan.kernel.category, "kernel.cpp.j2", **context(plan))


def generate(plan: Plan, out_dir: Path) -> HlsSources:
    """Write the plan's HLS sources into ``out_dir`` and return where they are."""
    out_dir.mkdir(parents=True, exist_ok=True)
    ctx = context(plan)
    category = plan.kernel.category
    kernel = out_dir / f"{plan.top}.cpp"
    write_text_atomic(kernel, render(templates_dir(), category, "kernel.cpp.j2", **ctx))
    testbench = out_dir / f"{plan.top}_tb.cpp"
    write_text_atomic(testbench, render(templates_dir(), category, "testbench.cpp.j2", **ctx))
    headers = []
    for name in KERNEL_HEADERS:
        target = out_dir / name
        shutil.copyfile(templates_dir() / "include" / name, target)
        headers.append(target)
    link_config = None
    if plan.rung.multi_cu:
        link_config = out_dir / "link.cfg"
        write_text_atomic(link_config, render(templates_dir(), category, "link.cfg.j2", **ctx))
    return HlsSources(kernel, testbench, tuple(headers), link_config)


def describe(sources: HlsSources) -> list[str]:
    return [display_path(p) for p in (sources.kernel, sources.testbench, *sources.headers)]
