"""The streaming FFT kernels (rungs 2-4, templates/top_fft_stream.sv.j2) in RTL simulation
through the sim step's testbench (sim/fk_kernel_tb.py, Host.call_transform): every case of
fpgakern.verify.spectral (lengths 8..64, norms, special values, one row, no rows) bit for
bit against fpgakern.ir.fft.transform, and the rate of a batch of rows of 1024.

Every transform at rungs 2, 3 and 4 runs under ``-m slow``; the default run simulates
the streaming variants tests/variant_selection.py picks for RTL (each adapter once:
irfft's Hermitian row buffer at rung 2, rfft's real input and kept bins at rung 4, a row
of n = 8 shorter than its 512-bit word), with every case, in
tests/sim/test_library_sim.py, and measures the rate of rung 2 here on the irfft model
that test builds (rung 4's under ``-m slow``).
"""

from __future__ import annotations

import pytest

from fpgakern.ir.dtypes import DTYPES
from fpgakern.ladder import plan
from fpgakern.verify import spectral
from fpgakern.verify.rtlsim import simulate

DTYPE = {"fft": "complex64", "ifft": "complex64", "rfft": "float32", "irfft": "complex64"}


def _every_case(library, transform, rung, run_dir):
    kernel = library.get(f"spectral_ops/{transform}")
    result = simulate(plan(kernel, rung, DTYPE[transform]), size=256, run_dir=run_dir,
                      build_speed="quick")
    assert result.passed, f"{transform} opt{rung}: {result.message}"
    every_case = {case.label for case in spectral.cases(kernel, DTYPES[DTYPE[transform]])}
    assert {c["label"] for c in result.cases} == every_case
    return result


# Each streaming transform at each rung; the default run simulates the ones
# tests/variant_selection.py picks for RTL (the same models, every case, in
# tests/sim/test_library_sim.py), so this is the slow tier's sweep.
@pytest.mark.slow
@pytest.mark.parametrize("rung", [2, 3, 4])
@pytest.mark.parametrize("transform", ["fft", "ifft", "rfft", "irfft"])
def test_every_streaming_transform(library, transform, rung, sim_run_dir):
    _every_case(library, transform, rung, sim_run_dir)


def _rate(library, transform, rung, rows, run_dir):
    """Complex samples per cycle of ``rows`` rows of 1024, ap_start to ap_done."""
    result = simulate(plan(library.get(f"spectral_ops/{transform}"), rung, DTYPE[transform]),
                      size=rows * 1024, labels=["random"], special=False, run_dir=run_dir,
                      build_speed="quick")
    assert result.passed, result.message
    return rows * 1024 / result.cycles


# irfft: its row buffer is the adapter most likely to leave gaps (and the model
# test_library_sim.py builds at rung 2).
@pytest.mark.slow  # a rate (benchmarks/ladder.py measures every rung's); nightly
def test_rung2_streams_rows_back_to_back(library, sim_run_dir):
    """16 rows of 1024 at about one sample per cycle: the rows follow each other through
    the row buffer and the engine without gaps. Measured 19,291 cycles: 16,384 plus a
    fixed cost of about 2.9k paid once (the engine's latency, 2,237 at n = 1024, the row
    buffer's half row, the memory latency); a gap of a frame between rows would cost
    16k more."""
    assert _rate(library, "irfft", 2, 16, sim_run_dir) >= 0.82


@pytest.mark.slow
def test_rung4_streams_eight_samples_per_cycle(library, sim_run_dir):
    assert _rate(library, "fft", 4, 64, sim_run_dir) >= 7.0
