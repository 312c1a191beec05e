"""Helpers the link tests import: the sample .xclbin files and the must-show link inputs."""

from __future__ import annotations

from fpgakern import paths
from fpgakern.link import kernel_xml, linker

DATA = paths.SOURCE_ROOT / "tests" / "data" / "xclbin"
SAMPLES = sorted(DATA.glob("*.xclbin"))


def must_show_inputs(make_plan) -> list[linker.LinkInput]:
    """binary_ops/add@opt3 (4 CUs), unary_ops/exp and reduce_ops/sum at opt4."""
    out = []
    for name, rung in (("binary_ops/add", 3), ("unary_ops/exp", 4), ("reduce_ops/sum", 4)):
        p = make_plan(name, rung)
        cus = p.placement.compute_units
        out.append(linker.LinkInput(kernel_xml.from_plan(p), cus, origin=name))
    return out
