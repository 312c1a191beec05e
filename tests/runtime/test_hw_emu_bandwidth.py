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
from fpgakern.link import config, linker, platforms, resolve, xclbin
from fpgakern.runtime import memory

N = 1 << 17  # elements: 8192 beats per port at rung 4
# Rung 5 add on u250 with its twelve ports spread over the four DDR4 channels in turn
# (the default keeps each CU's ports on its own SLR's channel): each CU spans every
# channel, so CUs run one after another would each have three channels to themselves,
# and only CUs stepped in lockstep share them.
ROUND_ROBIN = "[connectivity]\n" + "".join(
    f"sp=add_f32_{cu + 1}.m_axi_gmem{k}:DDR[{(3 * cu + k) % 4}]\n"
    for cu in range(4) for k in range(3))


def link(tmp_path, ref: str, platform: str, connectivity: str | None = None):
    design = linker.link(resolve.resolve([ref], LIBRARY, tmp_path / "build"),
                         platforms.load(platform),
                         None if connectivity is None else config.parse(connectivity),
                         "hw_emu")
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
    """Rung 4 on u55c without sp=: each of the three ports on a pseudo-channel of its own
    (HBM always spreads them), 47.9 bytes per 300 MHz cycle each; rung 5 on u250: an sp=
    per port, each CU's three ports on the DDR4 channel of its own SLR."""
    dev = rt.open(link(tmp_path, "binary_ops/add@opt4:float32", "u55c"), "hw_emu")
    v = dev.variants["add_f32"]
    banks = memory.from_xclbin(dev.xclbin, v.top, v.cu_names, v.plan)
    assert banks is not None and banks.platform == "u55c"
    assert set(banks.placement) == {(0, "gmem0"), (0, "gmem1"), (0, "gmem2")}
    used = set(banks.placement.values())
    assert len(used) == 3
    assert all(banks.bytes_per_cycle[b] == pytest.approx(14.375e9 / 300e6) for b in used)
    dev = rt.open(link(tmp_path, "binary_ops/add@opt5:float32", "u250"), "hw_emu")
    v = dev.variants["add_f32"]
    banks = memory.from_xclbin(dev.xclbin, v.top, v.cu_names, v.plan)
    assert banks is not None and len(v.cu_names) == 4
    tags = [banks.tags[banks.placement[(cu, f"gmem{k}")]] for cu in range(4) for k in range(3)]
    assert tags == [f"DDR[{cu}]" for cu in range(4) for _ in range(3)]  # its SLR's channel
    assert banks.bytes_per_cycle[banks.placement[(0, "gmem0")]] == pytest.approx(19.25e9 / 300e6)


def test_no_figures_no_limit():
    """A platform without bandwidth figures (kv260) leaves memory unlimited; so do the
    other targets."""
    p = variant("binary_ops/add", 4, "float32")
    assert memory.from_plan(p, "kv260") is None
    assert memory.from_plan(p, "u55c") is not None
    dev = rt.open_plans([p], "sw_emu", platform="u55c")
    assert dev.bank_map(dev.variants["add_f32"]) is None


def test_rung4_bank_bounds(tmp_path):
    """Rung 4 add with no limit: ~15.9 elements per cycle. On u55c a pseudo-channel per
    port (47.9 bytes per cycle each, 4 bytes per element on the busiest): 11.98 at most.
    On u250 without sp= every port on the CU's DDR4 channel (64.2 bytes per cycle, 12
    bytes per element): 5.35 at most; with a bank per port 16 (no channel is the limit)."""
    unlimited = rate(rt.open_plans([variant("binary_ops/add", 4, "float32")], "hw_emu"))
    assert unlimited > 15
    hbm = rate(rt.open(link(tmp_path, "binary_ops/add@opt4:float32", "u55c"), "hw_emu"))
    assert 11.5 < hbm <= 11.98 * 1.01
    ddr = rate(rt.open(link(tmp_path, "binary_ops/add@opt4:float32", "u250"), "hw_emu"))
    assert 5.1 < ddr <= 5.35 * 1.01
    spread = rate(rt.open_plans([variant("binary_ops/add", 4, "float32")], "hw_emu",
                                platform="u250", bank_per_port=True))
    assert spread > 15


def test_cus_share_banks_in_lockstep(tmp_path):
    """Rung 5 add on u250: four CUs, twelve ports on four DDR4 channels in turn
    (ROUND_ROBIN; 64.2 bytes per cycle each), so the call moves at most 4 x 64.2 / 12 =
    21.39 elements per cycle. Run one after another, each CU would have its three
    channels to itself (16 per cycle each, 64 for the call); together they share them."""
    dev = rt.open(link(tmp_path, "binary_ops/add@opt5:float32", "u250", ROUND_ROBIN),
                  "hw_emu")
    add = dev.kernel("binary_ops/add")
    got = rate(dev)
    assert add.last_call is not None and add.last_call.compute_units == 4
    assert 20 < got <= 21.39 * 1.01
    cu_cycles = [c for c in add.last_call.cu_cycles if c is not None]
    assert max(cu_cycles) < 1.05 * min(cu_cycles)  # side by side, sharing fairly
    target = add.target("float32")
    moved = target.bank_bytes()  # type: ignore[attr-defined]
    assert len(moved) == 4 and sum(moved.values()) >= 12 * N
