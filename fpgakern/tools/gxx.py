"""The C++ compiler (C simulation, emulation models, Verilator models) and ccache."""

from __future__ import annotations

import os
import shutil

from fpgakern.errors import ToolError
from fpgakern.tools.versions import tool_version


def compiler() -> str:
    """``$CXX``, else g++ from PATH."""
    found = os.environ.get("CXX") or shutil.which("g++")
    if not found:
        raise ToolError("g++ not found: install it with 'apt-get install g++'")
    return found


def identity() -> str:
    """The compiler's version line (its path when it prints none), for cache keys: a
    different compiler must never reuse another's objects."""
    name = compiler()
    return tool_version([name, "--version"]) or name


def ccache() -> str | None:
    """ccache, when installed; Verilator models rebuild in a fraction of the time with it."""
    return shutil.which("ccache")
