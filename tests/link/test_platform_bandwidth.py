"""Platform files state each memory's bandwidth and the kernel clock; a bad figure is one
line naming the file (issue 13, item 4)."""

from __future__ import annotations

import pytest

from fpgakern.errors import SpecError
from fpgakern.link import platforms


def _variant(tmp_path, old: str, new: str):
    text = (platforms.PLATFORMS_DIR / "u250.yaml").read_text()
    assert old in text
    path = tmp_path / "card.yaml"
    path.write_text(text.replace(old, new))
    return path


def test_rates_parse_in_decimal_units():
    assert platforms.parse_rate("14.375G") == 14.375e9
    assert platforms.parse_rate("19.25 GB/s") == 19.25e9
    assert platforms.parse_rate(1000) == 1000.0
    for bad in ("fast", "-3G", "0", "12Q"):
        with pytest.raises(ValueError):
            platforms.parse_rate(bad)


def test_every_bundled_card_names_its_kernel_clock():
    for name in platforms.available():
        card = platforms.load(name)
        assert card.kernel_mhz == 300, name  # DATA_CLK, which drives ap_clk


def test_bad_bandwidth_is_one_line(tmp_path):
    path = _variant(tmp_path, "bandwidth: 19.25G", "bandwidth: lots")
    with pytest.raises(SpecError, match=r"card\.yaml.*'lots' is not a bandwidth"):
        platforms.load(path)


def test_unknown_kernel_clock_is_one_line(tmp_path):
    path = _variant(tmp_path, "kernel_clock: DATA_CLK", "kernel_clock: FAST_CLK")
    with pytest.raises(SpecError, match=r"kernel_clock.*'FAST_CLK' is none of the clocks"):
        platforms.load(path)
