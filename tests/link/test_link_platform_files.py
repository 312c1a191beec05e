"""A malformed platform file given to --platform is one clear line naming the file."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from fpgakern.cli import main
from fpgakern.errors import FpgakernError
from fpgakern.link import platforms

GOOD = (platforms.PLATFORMS_DIR / "u250.yaml").read_text()


@pytest.mark.parametrize("edit", [
    ("  - {name: DATA_CLK, type: DATA, mhz: 300}", "  - {name: DATA_CLK, type: DATA}"),
    ("  - {name: DATA_CLK, type: DATA, mhz: 300}", "  - DATA_CLK"),
    ("count: 4, type: MEM_DDR4", "count: four, type: MEM_DDR4"),
    ("resources: {LUT: 1728000", "resources: {LUT: lots"),
    ("slrs: [SLR0, SLR1, SLR2, SLR3]", "slrs: 7"),
    ("memories:\n", "memories: 5\nunused:\n"),
    ("board: {name:", "board: [name:"),
], ids=["clock-no-mhz", "clock-not-mapping", "count-word", "resource-word", "slrs-number",
        "memories-number", "board-list"])
def test_malformed_platform_is_one_line(tmp_path, edit):
    old, new = edit
    assert old in GOOD
    bad = tmp_path / "bad.yaml"
    bad.write_text(GOOD.replace(old, new, 1))
    with pytest.raises(FpgakernError) as caught:
        platforms.load(bad)
    message = str(caught.value)
    assert "bad.yaml" in message and "\n" not in message
    result = CliRunner().invoke(main, ["link", "--platform", str(bad), "-o",
                                       str(tmp_path / "x.xclbin"), "binary_ops/add"])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "bad.yaml" in result.output
    assert "Traceback" not in result.output
