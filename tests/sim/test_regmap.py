"""The s_axi_control register map of generated kernels (sim/fk_regmap_tb.py).

ap_idle after reset, arguments read back and reserved words read 0, ap_start cleared by
the kernel, ap_done set once and cleared by the read that sees it, ap_ready,
ap_continue, auto_restart, and the interrupt through GIE, IER and ISR. Run on the
sequential (rung 0) and dataflow (rungs 2, 4) microarchitectures.
"""

from __future__ import annotations

import pytest

from fpgakern.ladder import plan
from fpgakern.verify.rtlsim import regmap_tests

TESTS = ["idle_after_reset", "arguments_read_back", "done_is_cleared_by_read",
         "second_run_after_continue", "interrupt_needs_gie_and_ier", "interrupt_on_done",
         "auto_restart_repeats_until_cleared"]
_outcomes: dict[int, dict[str, object]] = {}


def _run(library, rung: int, tmp_path_factory) -> dict[str, object]:
    if rung not in _outcomes:
        kernel = library.get("binary_ops/add")
        outcomes, log = regmap_tests(plan(kernel, rung, "int32"),
                                     run_dir=tmp_path_factory.mktemp(f"regmap{rung}"))
        assert outcomes, f"the register-map testbench did not run:\n{log[-3000:]}"
        _outcomes[rung] = {o.name: o for o in outcomes}
    return _outcomes[rung]


@pytest.mark.parametrize("rung", [0, 2, 4])
@pytest.mark.parametrize("test", TESTS)
def test_register_map(library, rung, test, tmp_path_factory):
    outcomes = _run(library, rung, tmp_path_factory)
    assert test in outcomes, f"{test} did not run: {sorted(outcomes)}"
    outcome = outcomes[test]
    assert outcome.passed, outcome.message


@pytest.mark.slow
def test_register_checks_can_fail(library, mutate_rtl, tmp_path):
    """A control slave whose ap_done never clears must fail the clear-on-read test."""
    mutate_rtl("fk_axil_ctrl.sv", r"else if \(rd_ctrl\) int_done <= 1'b0;",
               "else if (1'b0) int_done <= 1'b0;")
    outcomes, log = regmap_tests(plan(library.get("binary_ops/add"), 2, "int32"), run_dir=tmp_path)
    by_name = {o.name: o for o in outcomes}
    assert not by_name["done_is_cleared_by_read"].passed
    assert "ap_done still set" in by_name["done_is_cleared_by_read"].message
    assert by_name["idle_after_reset"].passed
