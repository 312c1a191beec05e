"""sp= per port (issue 13, item 4): with a bank per port, the link config places every
data-moving port of every CU on its own bank of the platform, the one the simulation
uses for it (Placement.port_bank)."""

from __future__ import annotations

import pytest

from fpgakern import paths
from fpgakern.backends.hls.generator import render_link_config
from fpgakern.ladder import plan
from fpgakern.link import config, platforms
from fpgakern.spec.library import Library

LIBRARY = Library(paths.specs_dir())


def _sp(kernel: str, platform: str) -> dict[tuple[str, str], str]:
    card = platforms.load(platform)
    p = plan(LIBRARY.get(kernel), 4, "float32", memory=card.memory_system(),
             bank_per_port=True)
    parsed = config.parse(render_link_config(p, card))
    for sp in parsed.sp:
        card.resolve_banks(sp.memory)  # a bank the platform has
    return {(sp.cu, sp.port): sp.memory for sp in parsed.sp}


@pytest.mark.parametrize(("platform", "banks"), [("u55c", ["HBM[0]", "HBM[1]", "HBM[2]"]),
                                                 ("u250", ["DDR[0]", "DDR[1]", "DDR[2]"])])
def test_a_bank_per_port(platform, banks):
    assert _sp("binary_ops/add", platform) == {
        ("add_f32_1", "a"): banks[0], ("add_f32_1", "b"): banks[1],
        ("add_f32_1", "out"): banks[2]}


def test_a_reductions_result_shares_its_input_bank():
    assert _sp("reduce_ops/sum", "u55c") == {("sum_f32_1", "x"): "HBM[0]",
                                             ("sum_f32_1", "out"): "HBM[0]"}


def test_the_default_placement_keeps_one_bank_per_cu():
    card = platforms.load("u55c")
    p = plan(LIBRARY.get("binary_ops/add"), 3, "float32")
    parsed = config.parse(render_link_config(p, card))
    assert {(sp.cu, sp.memory) for sp in parsed.sp} == {
        (f"add_f32_{i + 1}", f"HBM[{i}]") for i in range(p.placement.compute_units)}
