"""Generate a plan's HLS C++: the kernel, its C-simulation testbench, its link config."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from fpgakern import paths
from fpgakern.backends import templates
from fpgakern.backends.hls import matrix, spectral
from fpgakern.backends.hls.cexpr import CSpelling
from fpgakern.backends.hls.shaped import ShapedSpelling
from fpgakern.backends.templates import write
from fpgakern.interface import interface
from fpgakern.ladder import MemorySystem, Plan

# Headers shipped with every kernel (part of its sources).
KERNEL_HEADERS = ("fpgakern_ops.h",)
# The template folder of kernels with AXI4-Stream ports (Kernel.streams).
STREAM_TEMPLATES = "stream"


@dataclass(frozen=True)
class HlsSources:
    kernel: Path  # <top>.cpp: the Vitis HLS kernel
    testbench: Path  # <top>_tb.cpp: C simulation driver, the host's part in emulation
    headers: tuple[Path, ...]
    link_config: Path | None  # v++ --config: nk=, sp= per port, slr= per CU

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
        "OW": c.OW,
        "out_dtype": plan.kernel.output_dtype(plan.dtype.name),
        "body": body_template(plan),
        "reduce": plan.kernel.reduction,
        # A shaped kernel's stages (broadcast, row kinds), None for the others.
        "s": ShapedSpelling(plan) if plan.kernel.staged(plan.dtype.name) else None,
        "accuracy": plan.kernel.accuracy(plan.dtype.name),
        # The judges follow inner inexact applications within their bounds: the flat
        # testbench then takes each case's ulps and alternatives (common/macros.j2).
        "follows": bool(plan.kernel.followed_applications(plan.dtype.name)),
        "spec_path": f"kernel_specs/{plan.kernel.category}/{plan.kernel.source.name}",
    }


def template_kind(plan: Plan) -> str:
    """The template folder a plan's kernel dispatches on: ``stream`` for a kernel with
    AXI4-Stream ports (an elementwise kernel whose inputs or output are hls::stream
    arguments), else its kind."""
    return STREAM_TEMPLATES if plan.kernel.streams else plan.kernel.kind


def render_template(plan: Plan, name: str) -> str:
    """Render one HLS template for ``plan``, dispatched on the kernel's kind (never its
    category): ``hls_templates/<kind>/<name>`` when the kind overrides it (a stream
    kernel's: ``hls_templates/stream``)."""
    return templates.render(templates_dir(), template_kind(plan), name, **context(plan))


def render_kernel(plan: Plan) -> str:
    if plan.kernel.transform is not None or plan.kernel.contraction is not None:
        return render(plan)[f"{plan.top}.cpp"]
    return render_template(plan, "kernel.cpp.j2")


def render_link_config(plan: Plan, memory: MemorySystem | None = None) -> str:
    """The plan's v++ link config for a platform's memory system (the plan's own unless
    ``memory`` names another): nk= with its CU count, an sp= per port on the bank its
    placement gives it, an slr= per CU where the platform states SLRs
    (``Placement.cu_slr``)."""
    if memory is not None and memory != plan.placement.memory:
        plan = plan.placed_on(memory)
    placement = plan.placement
    if placement.memory is None:
        raise ValueError(f"{plan.variant}: a link config names a platform's banks; the "
                         "plan is placed on none")
    cus = range(placement.compute_units)
    port_banks = {(cu, p): placement.bank_tag(cu, p) for cu in cus for p in plan.arch.pointers}
    slrs = {cu: slr for cu in cus if (slr := placement.cu_slr(cu)) is not None}
    return templates.render(templates_dir(), plan.kernel.kind, "link.cfg.j2", **context(plan),
                            memory=placement.memory, port_banks=port_banks, slrs=slrs,
                            fit=placement.fit)


def writes_link_config(plan: Plan) -> bool:
    """Whether the build writes the plan a link config: where its placement is not v++'s
    default (every port of one CU on one bank), from rung 2 (a port per pointer) and
    wherever compute units are replicated."""
    return plan.rung.dataflow or plan.rung.multi_cu


def sources_in(plan: Plan, folder: Path) -> HlsSources:
    """Where :func:`generate` puts the plan's files in ``folder``."""
    config = folder / "link.cfg" if writes_link_config(plan) else None
    headers: tuple[str, ...] = KERNEL_HEADERS
    if plan.kernel.kind == "transform":  # and its twiddle tables (spectral.py)
        headers = (*headers, spectral.twiddle_header_name(plan.top))
    return HlsSources(folder / f"{plan.top}.cpp", folder / f"{plan.top}_tb.cpp",
                      tuple(folder / name for name in headers), config)


def render(plan: Plan) -> dict[str, str]:
    """The plan's HLS files (file name -> text), without touching disk: the kernel, its
    testbench, the headers it includes and, where the rung links with a config and the
    plan is placed on a platform's memory system, link.cfg for that platform."""
    if plan.kernel.transform is not None:
        settings = plan.placement.port_settings(plan.kernel.inputs[0])
        files = spectral.render_spectral(plan.top, plan.kernel.transform, plan.rung.index,
                                         lanes=plan.arch.lanes,
                                         compute_units=plan.placement.compute_units,
                                         stream_depth=plan.arch.stream_depth,
                                         read_settings=settings)
    elif plan.kernel.contraction is not None:
        files = matrix.render(plan)
    else:
        files = {f"{plan.top}.cpp": render_template(plan, "kernel.cpp.j2"),
                 f"{plan.top}_tb.cpp": render_template(plan, "testbench.cpp.j2")}
        for header in KERNEL_HEADERS:
            files[header] = (templates_dir() / "include" / header).read_text(encoding="utf-8")
    if writes_link_config(plan) and plan.placement.memory is not None:
        files["link.cfg"] = render_link_config(plan)
    return files


def generate(plan: Plan, out_dir: Path) -> HlsSources:
    """Write what :func:`render` makes into ``out_dir`` and return where it is. link.cfg
    names a platform's banks: it is written for the plan's memory system, and left out
    without one."""
    out = sources_in(plan, out_dir)
    if plan.placement.memory is None:
        out = replace(out, link_config=None)
    write(render(plan), out_dir)
    return out
