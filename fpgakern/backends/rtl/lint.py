"""``verilator --lint-only -Wall`` over a generated kernel and everything it instantiates."""

from __future__ import annotations

from fpgakern.backends.rtl.generate import RtlSources
from fpgakern.tools.verilator import LintResult
from fpgakern.tools.verilator import lint as lint_files


def lint(rtl: RtlSources, timeout: float = 300) -> LintResult:
    """Lint ``rtl`` with every warning enabled; waivers live in the sources, documented."""
    return lint_files(rtl.files, top=rtl.top, timeout=timeout)
