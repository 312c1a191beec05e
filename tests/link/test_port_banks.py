"""Port placement (issue 29, item 5): on HBM every data-moving port of every CU has a
pseudo-channel of its own from rung 2 (rung 4's a, b and out on three); on DDR each CU
keeps its ports on the bank of its SLR, unless a bank per port is asked for; the link
config says so, naming the banks the simulation uses for them (Placement.port_bank)."""

from __future__ import annotations

import pytest

from fpgakern import paths
from fpgakern.backends.hls.generator import render_link_config
from fpgakern.ladder import platform_plan
from fpgakern.link import config, platforms
from fpgakern.spec.library import Library

LIBRARY = Library(paths.specs_dir())


def _parsed(kernel: str, platform: str, rung: int = 4, **options) -> config.LinkConfig:
    card = platforms.load(platform)
    p = platform_plan(LIBRARY.get(kernel), rung, "float32", card.memory_system(), **options)
    parsed = config.parse(render_link_config(p))
    for sp in parsed.sp:
        card.resolve_banks(sp.memory)  # a bank the platform has
    return parsed


def _sp(kernel: str, platform: str, rung: int = 4, **options) -> dict[tuple[str, str], str]:
    return {(sp.cu, sp.port): sp.memory
            for sp in _parsed(kernel, platform, rung, **options).sp}


@pytest.mark.parametrize(("platform", "options", "banks"), [
    ("u55c", {}, ["HBM[0]", "HBM[1]", "HBM[2]"]),
    ("u55c", {"bank_per_port": True}, ["HBM[0]", "HBM[1]", "HBM[2]"]),
    ("u250", {}, ["DDR[0]", "DDR[0]", "DDR[0]"]),
    ("u250", {"bank_per_port": True}, ["DDR[0]", "DDR[1]", "DDR[2]"])])
def test_rung4_ports(platform, options, banks):
    assert _sp("binary_ops/add", platform, **options) == {
        ("add_f32_1", "a"): banks[0], ("add_f32_1", "b"): banks[1],
        ("add_f32_1", "out"): banks[2]}


def test_a_reductions_result_shares_its_input_bank():
    assert _sp("reduce_ops/sum", "u55c") == {("sum_f32_1", "x"): "HBM[0]",
                                             ("sum_f32_1", "out"): "HBM[0]"}


def test_rung3_on_hbm_spreads_every_port():
    placed = _sp("binary_ops/add", "u55c", rung=3)
    assert sorted(placed.values(), key=lambda t: int(t[4:-1])) == \
        [f"HBM[{i}]" for i in range(12)]


def test_rung5_on_ddr_keeps_each_cu_in_its_slr():
    """U250: 4 CUs, each with all its ports on the DDR4 bank of its own SLR, and an slr=
    that puts it there: no port crosses an SLR."""
    parsed = _parsed("binary_ops/add", "u250", rung=5)
    assert {(sp.cu, sp.memory) for sp in parsed.sp} == {
        (f"add_f32_{i + 1}", f"DDR[{i}]") for i in range(4)}
    assert [(s.cu, s.slr) for s in parsed.slr] == [
        (f"add_f32_{i + 1}", f"SLR{i}") for i in range(4)]
