"""Register kernels (control: auto_restart) in C simulation and in RTL simulation: AMD's
mailbox example's kernel (int32) and one a user writes (float32), every result of the
scalar cases of fpgakern.verify.registers held to the reference; the mailbox protocol
(sim/fk_mailbox_tb.py) as XRT's xrt::mailbox drives it. The checks can fail: a kernel
computing the wrong thing fails C simulation, a mailbox that never takes new scalars
fails RTL simulation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fpgakern.backends import hls
from fpgakern.ladder import plan
from fpgakern.spec.library import Library
from fpgakern.verify import registers, registers_csim
from fpgakern.verify.rtlsim import simulate_registers

EXAMPLES = Path(__file__).parents[1] / "data" / "xrt_examples_project" / "kernel_specs"
# A user's register kernel, written from docs/spec-format.md: float32, a sqrt and a
# literal, three scalars (one not paired with specials by the cases).
POLAR = """\
kernel: polar
doc: The radius of (x, y) and a scaled difference, recomputed on every restart.
inputs: []
scalars: {x: 1.0, y: 0.0, gain: 0.5}
outputs: [radius, scaled]
expression: {radius: sqrt(x * x + y * y), scaled: gain * (x - y)}
dtypes: [float32]
control: auto_restart
"""
MAILBOX_TESTS = {"one_run_per_start", "mailbox_while_restarting", "results_stay_until_asked",
                 "counter_ends_the_restarts"}


@pytest.fixture(scope="module")
def user_specs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("registers") / "kernel_specs"
    shutil.copytree(EXAMPLES / "xrt_examples", root / "xrt_examples")
    (root / "my_regs").mkdir()
    (root / "my_regs" / "polar.yaml").write_text(POLAR)
    return root


KERNELS = [("xrt_examples/mbox_autorestart", "int32"), ("my_regs/polar", "float32")]


@pytest.mark.parametrize(("name", "dtype"), KERNELS)
def test_c_simulation(user_specs, name, dtype, tmp_path):
    p = plan(Library(user_specs).get(name), 0, dtype)
    assert p.kernel.kind == "registers"
    result = registers_csim.csim(p, hls.generate(p, tmp_path / "hls"), tmp_path / "csim")
    assert result.passed, result.summary()
    assert result.cases[0].size == len(next(iter(registers.cases(p.kernel, dtype).values())))


def test_c_simulation_can_fail(user_specs, tmp_path):
    """The kernel subtracting where it should add: every case but the zero ones differs."""
    p = plan(Library(user_specs).get("xrt_examples/mbox_autorestart"), 0, "int32")
    sources = hls.generate(p, tmp_path / "hls")
    text = sources.kernel.read_text()
    assert "add = (in1 + in2);" in text
    sources.kernel.write_text(text.replace("add = (in1 + in2);", "add = (in1 - in2);"))
    result = registers_csim.csim(p, sources, tmp_path / "csim")
    assert not result.passed and not result.error, result.summary()


# The float32 kernel's RTL waits for -m slow: the default tier's mailbox is the int32 one.
@pytest.mark.parametrize(("name", "dtype"), [KERNELS[0], pytest.param(*KERNELS[1],
                                                                     marks=pytest.mark.slow)])
def test_rtl_simulation(user_specs, name, dtype, tmp_path):
    """The "registers" kind's default-tier RTL simulation (tests/variant_selection.py)."""
    result = simulate_registers(plan(Library(user_specs).get(name), 0, dtype), run_dir=tmp_path)
    assert {case["label"] for case in result.cases} == MAILBOX_TESTS, result.message
    assert result.passed, result.message


@pytest.mark.slow
def test_rtl_simulation_can_fail(user_specs, mutate_rtl, tmp_path):
    """A mailbox that never takes released scalars: the restarting kernel keeps its first
    inputs, so the mailbox test fails while the plain runs still pass."""
    mutate_rtl("fk_mailbox.sv", r"if \(in_busy \|\| in_release \|\| start_asked\)",
               "if (start_asked)")
    result = simulate_registers(plan(Library(user_specs).get("xrt_examples/mbox_autorestart"),
                                     0, "int32"), run_dir=tmp_path)
    by_name = {case["label"]: case for case in result.cases}
    assert not result.passed
    assert not by_name["mailbox_while_restarting"]["passed"]
    assert by_name["one_run_per_start"]["passed"]
