"""The streaming FFT kernels (rungs 2-4, templates/top_fft_stream.sv.j2) in RTL simulation
through the sim step's testbench (sim/fk_kernel_tb.py, Host.call_transform): every case of
fpgakern.verify.spectral (lengths 8..64, norms, special values, one row, no rows) bit for
bit against fpgakern.ir.fft.transform, and the rate of a batch of rows of 1024.

The default run builds four models (each FFT model is minutes of verilating on 2 cores):
rfft and irfft at rungs 2 and 4, the transforms with adapters on both sides (rfft's real
input and kept bins, irfft's banked Hermitian row buffer and packed real output; n = 8 is
the odd case at rung 4, a row shorter than a 512-bit word); the rate is measured on
irfft at rung 2 (its row buffer is the adapter most likely to leave gaps). ``-m slow``
adds every transform at rungs 2, 3 and 4 and the rate at rung 4.
"""

from __future__ import annotations

import pytest

from fpgakern.ladder import plan
from fpgakern.verify.rtlsim import simulate

DTYPE = {"fft": "complex64", "ifft": "complex64", "rfft": "float32", "irfft": "complex64"}
CASES = {"random", "n_8", "n_16", "n_32", "n_64", "norm_forward", "norm_ortho", "special",
         "one_row", "no_rows"}


def _every_case(library, transform, rung, run_dir):
    result = simulate(plan(library.get(f"spectral_ops/{transform}"), rung, DTYPE[transform]),
                      size=256, run_dir=run_dir, build_speed="quick")
    assert result.passed, f"{transform} opt{rung}: {result.message}"
    assert {c["label"] for c in result.cases} == CASES
    return result


# Default: the adapters that do the most (irfft's row buffer, 8-banked at rung 4; rfft's
# bins of a 512-bit word); rfft at rung 2 under -m slow, fft at 2 and 4 in
# tests/sim/test_library_sim.py.
@pytest.mark.parametrize(("transform", "rung"), [pytest.param("rfft", 2, marks=pytest.mark.slow),
                                                 ("irfft", 2), ("rfft", 4), ("irfft", 4)])
def test_streaming_transform_matches_reference(library, transform, rung, sim_run_dir):
    _every_case(library, transform, rung, sim_run_dir)


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
