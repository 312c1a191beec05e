"""``verilator --lint-only -Wall`` over a generated kernel and everything it instantiates."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

from fpgakern.backends.rtl.generate import RtlSources
from fpgakern.errors import ToolError
from fpgakern.verify import tools


@dataclass(frozen=True)
class LintResult:
    ok: bool
    output: str  # Verilator's warnings and errors, empty when clean


def lint(rtl: RtlSources, timeout: float = 300) -> LintResult:
    """Lint ``rtl`` with every warning enabled; waivers live in the sources, documented."""
    command = [
        str(tools.verilator()), "--lint-only", "-Wall", "--top-module", rtl.top,
        *map(str, rtl.files),
    ]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, check=False,
            env=tools.env_with_verilator(),
        )
    except subprocess.TimeoutExpired as err:
        raise ToolError(f"verilator --lint-only timed out after {timeout:.0f} s") from err
    text = (done.stdout + done.stderr).strip()
    return LintResult(done.returncode == 0 and "%Warning" not in text, text)
