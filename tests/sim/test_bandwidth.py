"""The fast memory model serves each bank at most its bandwidth (issue 13, item 4).

Rung 4 add moves 3 x 64 bytes per 16 elements. On one U55C HBM pseudo-channel (14.375
GB/s at 300 MHz, 47.9 bytes per cycle, shared by all three ports) that is at most 4
elements per cycle; with a bank per port at most 12; without a limit close to 16. One
model serves all three runs: the banks are configured at run time.
"""

from __future__ import annotations

import pytest

from fpgakern.ladder import plan
from fpgakern.link import platforms
from fpgakern.verify.rtlsim import simulate

SIZE = 16384
HBM_BYTES_PER_CYCLE = 14.375e9 / 300e6
DDR_BYTES_PER_CYCLE = 19.25e9 / 300e6


def _run(library, tmp_path, **placement):
    result = simulate(plan(library.get("binary_ops/add"), 4, "float32", **placement), size=SIZE,
                      labels=["random"], special=False, run_dir=tmp_path)
    assert result.passed, result.message
    return result


# (platform, bank_per_port, ideal elements per cycle, banks used): on u250 without a bank
# per port the three ports share a DDR4 channel (64.2 bytes per cycle over 12 bytes per
# element); HBM always gives each port a pseudo-channel (47.9 over 4).
@pytest.mark.parametrize(("platform", "bank_per_port", "ideal", "banks"), [
    ("u250", False, DDR_BYTES_PER_CYCLE / 12, 1),
    ("u55c", False, HBM_BYTES_PER_CYCLE / 4, 3),
])
def test_bank_bounds_rung4_add(library, tmp_path, platform, bank_per_port, ideal, banks):
    memory = platforms.load(platform).memory_system()
    result = _run(library, tmp_path, memory=memory, bank_per_port=bank_per_port)
    assert result.ideal_elements_per_cycle == pytest.approx(ideal, rel=1e-3)
    rate = result.elements_per_cycle
    # The floor leaves room for the start (read latency) and the last writes.
    assert 0.85 * result.ideal_elements_per_cycle <= rate <= result.ideal_elements_per_cycle, rate
    # The banks moved exactly the kernel's bytes, none faster than its bandwidth.
    moved = result.cases[0]["bank_bytes"]
    assert sum(moved) == SIZE * 12
    used = [m for m in moved if m]
    assert len(used) == banks
    assert max(used) / result.cycles <= max(memory.bytes_per_cycle)


def test_without_a_platform_memory_keeps_up(library, tmp_path):
    result = _run(library, tmp_path)
    assert result.ideal_elements_per_cycle == 16.0 and result.platform is None
    assert result.elements_per_cycle > 13.0  # well above the 12 a bank per port allows
