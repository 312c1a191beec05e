"""Fixtures for the RTL simulation tests: skip without cocotb/Verilator, RTL mutations."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("cocotb")
pytest.importorskip("cocotbext.axi")


@pytest.fixture(scope="session", autouse=True)
def _need_verilator() -> None:
    from fpgakern.errors import ToolError
    from fpgakern.tools import verilator

    try:
        verilator.bin_dir()
    except ToolError as error:
        pytest.skip(str(error))


Mutation = Callable[[Path], None]


@pytest.fixture
def mutate_rtl(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """``mutate_rtl(file_name, pattern, replacement)``: every kernel generated from then on
    has that file edited (a copy; the library is untouched). Used to show that the checks
    can fail: a verifier that cannot fail is a defect."""
    import fpgakern.backends.rtl.generate as gen

    original = gen.generate
    edits: list[tuple[str, str, str]] = []

    def generate(plan, out_dir):
        rtl = original(plan, out_dir)
        files = []
        for path in rtl.files:
            for name, pattern, replacement in edits:
                if path.name == name:
                    text, count = re.subn(pattern, replacement, path.read_text())
                    assert count, f"mutation pattern {pattern!r} not found in {name}"
                    copy = tmp_path / "mutated" / name
                    copy.parent.mkdir(exist_ok=True)
                    copy.write_text(text)
                    path = copy
            files.append(path)
        return type(rtl)(rtl.top, files, rtl.interface, rtl.latency, rtl.lanes)

    monkeypatch.setattr(gen, "generate", generate)

    def add(name: str, pattern: str, replacement: str) -> None:
        edits.append((name, pattern, replacement))

    return add


@pytest.fixture
def sim_run_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
