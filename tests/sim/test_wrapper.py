"""The simulation wrapper and build plumbing, without running a simulation."""

from __future__ import annotations

import sys

import pytest

from fpgakern.backends.rtl.generate import generate
from fpgakern.ladder import plan
from fpgakern.tools import verilator
from fpgakern.verify.rtlsim import models
from fpgakern.verify.rtlsim.wrapper import MEM_SIGNALS, WRAPPER, kernel_ports, render, sim_dir

sys.path.insert(0, str(sim_dir()))
from fk_host import split, to_register  # noqa: E402


@pytest.fixture(scope="module")
def add4(library, tmp_path_factory):
    p = plan(library.get("binary_ops/add"), 3, "float32")
    rtl = generate(p, tmp_path_factory.mktemp("rtl"))
    return p, rtl


def test_kernel_ports_are_parsed(add4):
    p, rtl = add4
    ports = {x.name: x for x in kernel_ports(rtl.files[-1], rtl.top)}
    assert ports["ap_clk"].direction == "input" and ports["interrupt"].direction == "output"
    for bundle in p.arch.bundles:
        for signal in MEM_SIGNALS:
            assert f"m_axi_{bundle}_{signal}" in ports
    assert ports["m_axi_gmem0_araddr"].width == "[63:0]"


@pytest.mark.parametrize("memory", ["fast", "axiram"])
def test_wrapper_instantiates_every_cu(add4, memory):
    p, rtl = add4
    text = render(rtl.top, rtl.files[-1], {b: p.arch.port_bits for b in p.arch.bundles},
                  p.placement.compute_units, memory)
    assert p.placement.compute_units == 4
    for cu in range(4):
        assert f"{rtl.top} cu{cu} (" in text
        assert f"cu{cu}_s_axi_control_awvalid" in text
    if memory == "fast":
        assert text.count("fk_axi_mem #(") == 4 * len(p.arch.bundles)
    else:
        assert "fk_axi_mem" not in text and "cu3_m_axi_gmem2_awvalid," in text


def test_wrapper_and_memory_model_lint_clean(add4, tmp_path):
    """The simulation-side SV is lint-clean under -Wall (kernel warnings are part A's)."""
    p, rtl = add4
    wrapper = tmp_path / f"{WRAPPER}.sv"
    wrapper.write_text(render(rtl.top, rtl.files[-1], {b: p.arch.port_bits for b in p.arch.bundles},
                              p.placement.compute_units, "fast"))
    result = verilator.lint([*rtl.files, sim_dir() / "hdl" / "fk_axi_mem.sv", wrapper],
                            top=WRAPPER)
    ours = [line for line in result.output.splitlines()
            if line.startswith("%") and ("fk_axi_mem.sv" in line or WRAPPER in line)]
    assert not ours, "\n".join(ours)


def test_build_key_follows_content_and_options():
    texts = {"a.sv": b"module a; endmodule", "b.sv": b"module b; endmodule"}
    key = models.build_key("x", texts, False, "-O2")
    assert key == models.build_key("x", dict(reversed(texts.items())), False, "-O2")
    assert key != models.build_key("x", {**texts, "a.sv": b"module a ; endmodule"}, False,
                                   "-O2")
    assert key != models.build_key("x", texts, True, "-O2")
    assert key != models.build_key("x", texts, False, "-O0")


def test_host_split_and_registers():
    assert split(100, 1) == [(0, 100)]
    assert split(100, 4) == [(0, 32), (32, 64), (64, 96), (96, 100)]
    assert split(5, 4) == [(0, 5)]  # whole 64-byte lines: one CU is enough
    assert split(0, 4) == [(0, 0)]
    assert to_register(1.0, "float") == 0x3F80_0000
    assert to_register(-1, "int") == 0xFFFF_FFFF
