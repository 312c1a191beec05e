"""hw_emu's memory system: banks with the platform's bytes per kernel cycle, ports placed
as the .xclbin's CONNECTIVITY (or the link config) places them, and the CUs of one call
stepped in lockstep so that CUs sharing a bank share its credit.

The figures the rates are held to are the bandwidth-bounded ideals of docs/sim.md (the
RTL simulation's fast model measures the same within a few per cent)."""

from __future__ import annotations

import numpy as np
import pytest
from runtime_support import LIBRARY, variant

from fpgakern import runtime as rt
from fpgakern.link import linker, platforms, resolve, xclbin
from fpgakern.runtime import memory

N = 1 << 17  # elements: 8192 beats per port at rung 4


def link(tmp_path, ref: str, platform: str):
    design = linker.link(resolve.resolve([ref], LIBRARY, tmp_path / "build"),
                         platforms.load(platform), None, "hw_emu")
    path = tmp_path / f"{platform}.xclbin"
    path.write_bytes(xclbin.to_xclbin(design))
    return path


def inputs(n: int = N) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(13)
    return (rng.standard_normal(n).astype(np.float32),
            rng.standard_normal(n).astype(np.float32))


def rate(dev: rt.Device) -> float:
    add = dev.kernel("binary_ops/add")
    a, b = inputs()
    np.testing.assert_array_equal(add(a, b), a + b)
    assert add.last_call is not None and add.last_call.cycles
    return N / add.last_call.cycles


def test_bank_map_from_the_xclbin(tmp_path):
    """Rung 4 on u55c without sp=: all three ports on the CU's pseudo-channel, 47.9 bytes
    per 300 MHz cycle; rung 5 on u250: an sp= per port, the four DDR4 channels in turn."""
    dev = rt.open(link(tmp_path, "binary_ops/add@opt4:float32", "u55c"), "hw_emu")
    v = dev.variants["add_f32"]
    banks = memory.from_xclbin(dev.xclbin, v.top, v.cu_names, v.plan)
    assert banks is not None and banks.platform == "u55c"
    assert set(banks.placement) == {(0, "gmem0"), (0, "gmem1"), (0, "gmem2")}
    (only,) = set(banks.placement.values())
    assert banks.bytes_per_cycle[only] == pytest.approx(14.375e9 / 300e6)
    dev = rt.open(link(tmp_path, "binary_ops/add@opt5:float32", "u250"), "hw_emu")
    v = dev.variants["add_f32"]
    banks = memory.from_xclbin(dev.xclbin, v.top, v.cu_names, v.plan)
    assert banks is not None and len(v.cu_names) == 4
    tags = [banks.tags[banks.placement[(cu, f"gmem{k}")]] for cu in range(4) for k in range(3)]
    assert tags == [f"DDR[{i % 4}]" for i in range(12)]
    assert banks.bytes_per_cycle[banks.placement[(0, "gmem0")]] == pytest.approx(19.25e9 / 300e6)


def test_no_figures_no_limit():
    """A platform without bandwidth figures (kv260) leaves memory unlimited; so do the
    other targets."""
    p = variant("binary_ops/add", 4, "float32")
    assert memory.from_plan(p, "kv260") is None
    assert memory.from_plan(p, "u55c") is not None
    dev = rt.open_plans([p], "sw_emu", platform="u55c")
    assert dev.bank_map(dev.variants["add_f32"]) is None


def test_rung4_on_one_pseudo_channel(tmp_path):
    """Rung 4 add moves 12 bytes per element through one 47.9-byte-per-cycle bank: 3.99
    elements per cycle at most, against ~15.9 with no limit (and 11.98 with a bank per
    port: the busiest pseudo-channel carries one port's 4 bytes per element)."""
    unlimited = rate(rt.open_plans([variant("binary_ops/add", 4, "float32")], "hw_emu"))
    assert unlimited > 15
    limited = rate(rt.open(link(tmp_path, "binary_ops/add@opt4:float32", "u55c"), "hw_emu"))
    assert 3.9 < limited <= 3.99 * 1.01
    spread = rate(rt.open_plans([variant("binary_ops/add", 4, "float32")], "hw_emu",
                                platform="u55c", bank_per_port=True))
    assert 11.5 < spread <= 11.98 * 1.01


def test_cus_share_banks_in_lockstep(tmp_path):
    """Rung 5 add on u250: four CUs, twelve ports on four DDR4 channels (64.2 bytes per
    cycle each), so the call moves at most 4 x 64.2 / 12 = 21.39 elements per cycle. Run
    one after another, each CU would have its three channels to itself (16 per cycle
    each, 64 for the call); together they share them."""
    dev = rt.open(link(tmp_path, "binary_ops/add@opt5:float32", "u250"), "hw_emu")
    add = dev.kernel("binary_ops/add")
    got = rate(dev)
    assert add.last_call is not None and add.last_call.compute_units == 4
    assert 20 < got <= 21.39 * 1.01
    cu_cycles = [c for c in add.last_call.cu_cycles if c is not None]
    assert max(cu_cycles) < 1.05 * min(cu_cycles)  # side by side, sharing fairly
    target = add.target("float32")
    moved = target.bank_bytes()  # type: ignore[attr-defined]
    assert len(moved) == 4 and sum(moved.values()) >= 12 * N
