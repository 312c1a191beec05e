"""Fixtures for the link tests: plans, small .xo files and linked designs (their helpers:
link_support.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from link_support import must_show_inputs

from fpgakern.ladder import Plan, plan
from fpgakern.link import linker, platforms, xclbin, xo


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


@pytest.fixture
def u250():
    return platforms.load("u250")


@pytest.fixture
def lib_xclbin(make_plan, u250) -> bytes:
    design = linker.link(must_show_inputs(make_plan), u250)
    return xclbin.to_xclbin(design, project="lib")
