"""Rung 5 on the card it is linked for (issue 13, item 5): its CU count and one sp= per
port come from the plan made for the platform of the link, not the build's, and no
library link picks it."""

from __future__ import annotations

import pytest

from fpgakern import paths
from fpgakern.link import linker, platforms, resolve
from fpgakern.spec.library import Library

LIBRARY = Library(paths.specs_dir())


@pytest.mark.parametrize(("platform", "cus", "first", "last"), [
    ("u55c", 10, ("HBM[0]", "HBM[1]", "HBM[2]"), ("HBM[27]", "HBM[28]", "HBM[29]")),
    ("u250", 4, ("DDR[0]", "DDR[1]", "DDR[2]"), ("DDR[1]", "DDR[2]", "DDR[3]")),
])
def test_rung5_links_a_bank_per_port_for_its_platform(tmp_path, platform, cus, first, last):
    inputs = resolve.resolve(["binary_ops/add@opt5"], LIBRARY, tmp_path)
    design = linker.link(inputs, platforms.load(platform))
    assert [cu.name for cu in design.cus] == [f"add_f32_{i}" for i in range(1, cus + 1)]

    def banks(cu: linker.ComputeUnit) -> tuple[str, ...]:
        return tuple(b.tag for _, (b,) in cu.port_banks)

    assert banks(design.cus[0]) == first and banks(design.cus[-1]) == last
    spelled = {(sp.cu, sp.port) for sp in design.to_config().sp}
    assert len(spelled) == 3 * cus  # every port of every CU placed


def test_rung3_keeps_its_build_placement(tmp_path):
    inputs = resolve.resolve(["binary_ops/add@opt3"], LIBRARY, tmp_path)
    design = linker.link(inputs, platforms.load("u250"))
    assert len(design.cus) == 4
    assert [{b.tag for _, banks in cu.port_banks for b in banks} for cu in design.cus] == [
        {f"DDR[{i}]"} for i in range(4)]
