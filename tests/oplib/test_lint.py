"""Every module of the RTL operator library passes `verilator --lint-only -Wall`."""

from __future__ import annotations

import subprocess

import pytest

from fpgakern.verify import opsim, tools

FILES = sorted(opsim.OPLIB_DIR.glob("*.sv"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_lint_clean(path):
    index = opsim.module_index()
    modules = [name for name, where in index.items() if where == path]
    assert modules, f"{path.name} defines no module"
    for module in modules:
        command = [str(tools.verilator()), "--lint-only", "-Wall", "--top-module", module,
                   *(str(p) for p in opsim.module_sources(module))]
        done = subprocess.run(command, capture_output=True, text=True, check=False,
                              env=tools.env_with_verilator())
        warnings = [line for line in (done.stdout + done.stderr).splitlines()
                    if line.startswith("%")]
        assert done.returncode == 0 and not warnings, f"{module}:\n" + "\n".join(warnings)
