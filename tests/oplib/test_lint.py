"""Every module of the RTL operator library passes `verilator --lint-only -Wall`."""

from __future__ import annotations

import pytest

from fpgakern.tools import verilator
from fpgakern.verify import opsim

FILES = sorted(opsim.OPLIB_DIR.glob("*.sv"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_lint_clean(path):
    index = opsim.module_index()
    modules = [name for name, where in index.items() if where == path]
    assert modules, f"{path.name} defines no module"
    for module in modules:
        result = verilator.lint(opsim.module_sources(module), top=module)
        assert result.ok, f"{module}:\n{result.output}"
