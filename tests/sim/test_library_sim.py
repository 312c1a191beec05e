"""Every starter kernel x rung x dtype, simulated against the numpy reference.

Fast memory model, 200 random elements plus the standard cases (one element, an odd
tail, non-default scalars, and the special values: every pair for binary kernels, each
one inside ordinary data for reductions). One model build per kernel x rung x dtype,
all its cases in one simulation; builds are cached under fpgakern.paths.cache_dir().
The default run simulates the representative variants (every rung of every kind, every
interface shape, operand wiring and accumulator: tests/variant_selection.py; each RTL
operator is proven on its own by tests/oplib); ``-m slow`` adds the rest.
"""

from __future__ import annotations

import pytest
from variant_selection import variant_params

from fpgakern import paths
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ladder import plan
from fpgakern.spec.library import Library
from fpgakern.verify import matrix_cases, spectral
from fpgakern.verify.rtlsim import simulate

SIZE = 200


@pytest.mark.parametrize(("kernel", "rung", "dtype"),
                         variant_params(Library(paths.SOURCE_ROOT / "kernel_specs"),
                                        operators=False))
def test_kernel_matches_reference(library, kernel, rung, dtype, sim_run_dir):
    result = simulate(plan(library.get(kernel), rung, dtype), size=SIZE, run_dir=sim_run_dir)
    if result.status == "skipped":
        pytest.skip(result.skipped)
    labels = [c["label"] for c in result.cases]
    assert result.passed, f"{kernel} opt{rung} {dtype}: {result.message}"
    spec = library.get(kernel)
    if spec.kind == "contraction":
        # Every case of fpgakern.verify.matrix_cases.rtl_cases, bit for bit.
        every_case = [f"{c.label} ({'x'.join(map(str, c.sizes))})"
                      for c in matrix_cases.rtl_cases(spec, dtype)]
        assert labels == every_case, labels
    elif spec.transform is not None:
        # Every case of fpgakern.verify.spectral: lengths 8..64 (8 is the odd case at
        # rung 4, a row shorter than a 512-bit word), norms, special values, one row and
        # no rows (tests/sim/test_fft_stream_sim.py sweeps every transform and rung).
        every_case = {case.label for case in spectral.cases(spec, DTYPES[dtype])}
        assert set(labels) == every_case, labels
    else:
        assert "random" in labels and "size_1" in labels, labels
        assert any(label.startswith("special") for label in labels), labels
    assert result.cycles and result.cycles > 0
    assert result.elements_per_cycle and result.elements_per_cycle > 0
