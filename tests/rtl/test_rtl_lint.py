"""Every generated kernel (kernel x rung x dtype with RTL operators) lints clean under
``verilator --lint-only -Wall``; the support modules lint clean on their own too.

The default run lints the representative variants (tests/variant_selection.py: every rung
of every kind in every dtype, every interface shape, every operator's wiring and every
operator in every dtype it is applied in); ``-m slow`` lints all of them, and so does the
nightly ``fpgakern build --all`` (its lint step). Each operator module also lints on its
own (tests/oplib/test_lint.py).
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


@pytest.mark.parametrize(("name", "rung", "dtype"), variant_params(LIBRARY))
def test_generated_kernel_lints_clean(name, rung, dtype, tmp_path):
    p = plan(LIBRARY.get(name), rung, dtype)
    try:
        rtl = generate(p, tmp_path)
    except (NoRtlOperator, UsageError) as err:  # an op or a kind without RTL yet
        pytest.skip(str(err))
    result = lint(rtl)
    assert result.ok, result.output


@pytest.mark.parametrize("path", sources.library_files(), ids=lambda p: p.stem)
@pytest.mark.parametrize("params", [[], ["-GDATA_W=512"], ["-GDEPTH=1"], ["-GMAX_BURST=1",
                                    "-GMAX_OUTSTANDING=1", "-GCREDITS=1"]])
def test_support_module_lints_clean(path, params):
    text = path.read_text()
    wanted = [p for p in params if f"parameter int {p[2:].split('=')[0]} " in text]
    if params and not wanted:
        pytest.skip("parameter not used by this module")
    if "-GDEPTH=1" in wanted and "fk_fifo" in path.name:
        wanted = ["-GDEPTH=2"]  # a FIFO holds at least two words
    result = verilator.lint([path], options=wanted)
    assert result.ok, result.output
