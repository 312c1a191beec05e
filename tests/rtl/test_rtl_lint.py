"""Every generated kernel (kernel x rung x dtype with RTL operators) lints clean under
``verilator --lint-only -Wall``; the support modules lint clean on their own too.

The default run lints the variants tests/variant_selection.py picks for RTL (every rung of
every kind, every element width in each template family, every interface shape, every
operator's wiring); ``-m slow`` lints all of them, and so does the nightly ``fpgakern
build --all`` (its lint step). Each operator module lints on its own
(tests/oplib/test_lint.py).
"""

from __future__ import annotations

import pytest
from variant_selection import variant_params

from fpgakern.backends.rtl import sources
from fpgakern.backends.rtl.generate import NoRtlOperator, generate
from fpgakern.backends.rtl.lint import lint
from fpgakern.errors import UsageError
from fpgakern.ladder import plan
from fpgakern.paths import specs_dir
from fpgakern.spec.library import Library
from fpgakern.tools import verilator

LIBRARY = Library(specs_dir())


@pytest.mark.parametrize(("name", "rung", "dtype"), variant_params(LIBRARY, operators=False))
def test_generated_kernel_lints_clean(name, rung, dtype, tmp_path):
    p = plan(LIBRARY.get(name), rung, dtype)
    try:
        rtl = generate(p, tmp_path)
    except (NoRtlOperator, UsageError) as err:  # an op or a kind without RTL yet
        pytest.skip(str(err))
    result = lint(rtl)
    assert result.ok, result.output


def _module_parameters() -> list:
    """Each support module with no overrides, and with each override set whose parameters
    it declares (a FIFO holds at least two words, so its DEPTH floor is 2)."""
    overrides = [["-GDATA_W=512"], ["-GDEPTH=1"],
                 ["-GMAX_BURST=1", "-GMAX_OUTSTANDING=1", "-GCREDITS=1"]]
    out = []
    for path in sources.library_files():
        text = path.read_text()
        out.append(pytest.param(path, [], id=path.stem))
        for params in overrides:
            wanted = [p for p in params if f"parameter int {p[2:].split('=')[0]} " in text]
            if "-GDEPTH=1" in wanted and "fk_fifo" in path.name:
                wanted = ["-GDEPTH=2"]
            if wanted:
                out.append(pytest.param(path, wanted, id=f"{path.stem}{''.join(wanted)}"))
    return out


@pytest.mark.parametrize(("path", "params"), _module_parameters())
def test_support_module_lints_clean(path, params):
    result = verilator.lint([path], options=params)
    assert result.ok, result.output
