"""Fixtures for the link tests: sample files, plans, small .xo files and linked designs."""

from __future__ import annotations

from pathlib import Path

import pytest

from fpgakern import paths
from fpgakern.ladder import Plan, plan
from fpgakern.link import kernel_xml, linker, platforms, xclbin, xo

DATA = paths.SOURCE_ROOT / "tests" / "data" / "xclbin"
SAMPLES = sorted(DATA.glob("*.xclbin"))


@pytest.fixture
def make_plan(library):
    def make(name: str, rung: int = 4, dtype: str = "float32") -> Plan:
        return plan(library.get(name), rung, dtype)
    return make


@pytest.fixture
def fixture_sources(tmp_path: Path):
    """Small stand-ins for generated sources: (hls files, rtl files) for a top name."""
    def make(top: str) -> tuple[list[Path], list[Path]]:
        folder = tmp_path / "src" / top
        folder.mkdir(parents=True, exist_ok=True)
        cpp = folder / f"{top}.cpp"
        cpp.write_text(f'extern "C" void {top}() {{}}\n')
        header = folder / "fpgakern_ops.h"
        header.write_text("#pragma once\n")
        sv = folder / f"{top}.sv"
        sv.write_text(f"module {top}(input logic ap_clk, input logic ap_rst_n);\nendmodule\n")
        ctrl = folder / f"{top}_control_s_axi.sv"
        ctrl.write_text(f"module {top}_control_s_axi;\nendmodule\n")
        return [cpp, header], [sv, ctrl]
    return make


@pytest.fixture
def build_xo(fixture_sources):
    """Write a plan's .xo where fpgakern build keeps it under ``root``."""
    def make(p: Plan, root: Path) -> Path:
        hls, rtl = fixture_sources(p.top)
        return xo.write_xo(p, xo.default_path(p, root), hls, rtl)
    return make


def must_show_inputs(make_plan) -> list[linker.LinkInput]:
    """binary_ops/add@opt3 (4 CUs), unary_ops/exp and reduce_ops/sum at opt4."""
    out = []
    for name, rung in (("binary_ops/add", 3), ("unary_ops/exp", 4), ("reduce_ops/sum", 4)):
        p = make_plan(name, rung)
        out.append(linker.LinkInput(kernel_xml.from_plan(p), p.compute_units, origin=name))
    return out


@pytest.fixture
def u250():
    return platforms.load("u250")


@pytest.fixture
def lib_xclbin(make_plan, u250) -> bytes:
    design = linker.link(must_show_inputs(make_plan), u250)
    return xclbin.to_xclbin(design, project="lib")
