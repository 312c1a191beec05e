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
    # DDR: each CU's ports on the bank of its SLR (issue 29, item 5), not spread over SLRs.
    ("u250", 4, ("DDR[0]", "DDR[0]", "DDR[0]"), ("DDR[3]", "DDR[3]", "DDR[3]")),
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


@pytest.mark.parametrize(("ref", "rung", "cus"), [("binary_ops/add@opt5", 5, 10),
                                                  ("binary_ops/add@opt4", 4, 1),
                                                  ("binary_ops/add@opt3", 3, 4),
                                                  ("binary_ops/add@opt2", 2, 1)])
def test_an_xclbin_reads_back_as_its_rung(tmp_path, ref, rung, cus):
    """Rungs 4 and 5 (2 and 3) have the same ports: the CU count tells them apart."""
    from click.testing import CliRunner

    from fpgakern.cli import main
    from fpgakern.runtime import program

    target = tmp_path / "k.xclbin"
    result = CliRunner().invoke(main, ["link", ref, "--platform", "u55c", "-o", str(target),
                                       "--build-dir", str(tmp_path / "build")])
    assert result.exit_code == 0, result.output
    variants = program.from_xclbin(target, LIBRARY).variants
    assert [(v.plan.rung.index, v.compute_units) for v in variants.values()] == [(rung, cus)]


def test_show_link_config_follows_the_flags():
    from click.testing import CliRunner

    from fpgakern.cli import main

    def show(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(main, ["show", "binary_ops/add", "--what", "link-config",
                                           "--plain", *args])
        return result.exit_code, result.output

    code, text = show("--opt", "5", "--platform", "u250")
    assert code == 0 and "nk=add_f32:4" in text and text.count("\nsp=") == 12
    assert text.count("\nslr=") == 4
    code, text = show("--opt", "1")
    assert code == 2 and "one CU with one port" in text
    code, text = show("--opt", "4")  # HBM: a pseudo-channel per port, asked or not
    assert code == 0 and "nk=add_f32:1" in text and "sp=add_f32_1.b:HBM[1]" in text
    code, text = show("--opt", "4", "--platform", "u250")
    assert code == 0 and "sp=add_f32_1.b:DDR[0]" in text
    code, text = show("--opt", "4", "--bank-per-port", "--platform", "u250")
    assert code == 0 and "sp=add_f32_1.b:DDR[1]" in text
