"""The specs the backend writes for a few models match the checked-in ones byte for byte
(tests/compiler/golden_specs.py regenerates them)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from . import golden_specs  # noqa: E402


@pytest.mark.parametrize(("model", "target"), golden_specs.CASES)
def test_written_specs_match_the_golden_ones(model, target):
    want = golden_specs.path(model, target).read_text()
    assert golden_specs.render(model, target) == want, \
        f"regenerate with {golden_specs.COMMAND} if the change is intended"
