"""The C++ compiler: the one place fpgakern finds it, builds its command line and runs it.

C simulation testbenches, the sw_emu and hw_emu model libraries, the XRT emulation
library and host programs all compile through :func:`run` (Verilator's makefiles run
the compiler themselves, see :mod:`fpgakern.tools.verilator_build`). Every compile starts from
:data:`FLAGS`: one language standard, and warnings as errors (generated code must
compile without a warning, so a warning is a defect to see, not to scroll past).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from fpgakern.errors import MAX_MESSAGE, ToolError, printable, shorten
from fpgakern.tools.cache import asked_before, cached, cached_build, key_of
from fpgakern.tools.versions import tool_version

STANDARD = "-std=c++17"
WARNINGS = ("-Wall", "-Wextra", "-Werror")
FLAGS = (STANDARD, "-O2", *WARNINGS)
# Every float multiply and add rounded on its own: a*b + c is never contracted into one
# fused multiply-add (g++ and clang alike; clang also honours the STDC FP_CONTRACT pragma
# the HLS sources carry, which g++ ignores). docs/vitis.md, "Contraction".
NO_FP_CONTRACTION = "-ffp-contract=off"
# A compile that takes longer than this has hung: one clear error instead of a build that
# never ends.
TIMEOUT = 900.0
# The precompiled header's name (prelude): what ``-include`` names, its .gch beside it.
PRELUDE = "fk_prelude.h"


def compiler() -> str:
    """The compiler's path: ``$CXX`` when set, else g++ from PATH."""
    wanted = os.environ.get("CXX")
    found = shutil.which(wanted or "g++")
    if found:
        return found
    if wanted:
        raise ToolError(f"the C++ compiler $CXX={shorten(printable(wanted), MAX_MESSAGE)} "
                        "was not found")
    raise ToolError("g++ not found: install it with 'apt-get install g++'")


def identity() -> str:
    """The compiler's version line (its path when it prints none), for cache keys: a
    different compiler must never reuse another's objects."""
    name = compiler()
    return tool_version([name, "--version"]) or name


def ccache() -> str | None:
    """ccache, when installed; Verilator models rebuild in a fraction of the time with it."""
    return shutil.which("ccache")


def command(arguments: Sequence[str], *, use_ccache: bool = False) -> list[str]:
    """The compiler's command line with ``arguments`` (flags, sources, ``-o``), through
    ccache when asked and installed."""
    cache = ccache() if use_ccache else None
    return [*([cache] if cache else []), compiler(), *arguments]


def diagnostic(output: str, returncode: int) -> str:
    """The first error line of the compiler's ``output`` (its first line when none says
    error), with how many more error lines there are: one line for a one-line error."""
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()] or lines
    if not errors:
        return f"exit {returncode}"
    more = f" (+{len(errors) - 1} more error lines)" if len(errors) > 1 else ""
    return shorten(printable(errors[0]), MAX_MESSAGE) + more


def run(arguments: Sequence[str], what: str, *, cwd: Path | None = None,
            timeout: float = TIMEOUT, use_ccache: bool = False) -> str:
    """Run the compiler with ``arguments``; its output (empty when quiet). A missing
    compiler, a failed compile or a timeout is a one-line ToolError naming ``what``."""
    argv = command(arguments, use_ccache=use_ccache)
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise ToolError(f"g++ timed out after {timeout:g} s on {what}") from None
    except OSError as err:
        raise ToolError(f"g++ could not run on {what}: {err.strerror or err}") from None
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise ToolError(f"g++ failed on {what}: {diagnostic(output, done.returncode)}")
    return output


def prelude(headers: Sequence[str], flags: Sequence[str], *versions: str) -> list[str]:
    """Compiler arguments that start every translation unit compiled with ``flags`` from
    a precompiled header of ``headers`` (built once per compiler, flags and list, in the
    fpgakern cache): ``-include`` of the header, beside its ``.gch``. ``versions`` name
    what else the headers' text depends on (a tool's headers found through ``flags``, as
    Verilator's: its version), since g++ does not check that a header is unchanged.

    Only the compile gets faster (the system headers are a third of a C simulation
    testbench's compile); the sources still include what they use, unchanged, and their
    include guards make those includes no-ops. A precompiled header that does not match
    the compile is ignored by g++, which then parses the header itself.

    The header is built on its second request: building it costs a few compiles (2.5 s
    for Verilator's), so a compile command used once (a waveform model, a one-off flag
    set) is cheaper without it, and the first compile of a command used often hardly
    matters. Whether a compile used it changes no bit of its output."""
    text = "".join(f"#include <{name}>\n" for name in headers)
    codegen = [flag for flag in flags if flag not in ("-shared",)]
    key = key_of(identity(), *codegen, text, *versions)
    ready = cached("pch", "prelude", key, f"{PRELUDE}.gch")
    if ready is not None:
        return ["-include", str(ready / PRELUDE)]
    if not asked_before("pch", "prelude", key):
        return []

    def build(staging: Path) -> None:
        (staging / PRELUDE).write_text(text)
        run([*codegen, "-x", "c++-header", str(staging / PRELUDE), "-o",
             str(staging / f"{PRELUDE}.gch")], "the precompiled standard headers")

    try:
        folder = cached_build("pch", "prelude", key, f"{PRELUDE}.gch", build, keep=(PRELUDE,))
    except ToolError:  # no header to speed up: the compile itself says what is wrong
        return []
    return ["-include", str(folder / PRELUDE)]


def finds_header(name: str) -> bool:
    """Whether ``#include <name>`` compiles here (an optional system library is
    installed); False too when there is no compiler."""
    try:
        done = subprocess.run([compiler(), "-E", "-x", "c++", "-"], input=f"#include <{name}>\n",
                              capture_output=True, text=True, timeout=60, check=False)
    except (ToolError, OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0
