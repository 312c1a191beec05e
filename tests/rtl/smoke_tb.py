"""cocotb testbench for the RTL generator's own smoke test (driven by test_smoke_sim.py).

It drives a generated int32 kernel as XRT would: writes arguments over s_axi_control,
sets ap_start, polls CTRL for ap_done, writes ap_continue. Memory is cocotbext-axi's AxiRam
(one per bundle), optionally with random backpressure on every channel. It checks the
output against numpy, that no byte outside the output was written, and the cycle count.
The configuration comes as JSON in FK_SMOKE (see test_smoke_sim.py).
"""

from __future__ import annotations

import json
import os
import random

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiBus, AxiLiteBus, AxiLiteMaster, AxiRam
from lean_mem import LeanAxiMemory

from fpgakern.ir.ops import OPS

CTRL, GIE, IER, ISR = 0x00, 0x04, 0x08, 0x0C
AP_START, AP_DONE, AP_IDLE, AP_READY, AP_CONTINUE = 0x01, 0x02, 0x04, 0x08, 0x10
GUARD = 64  # bytes checked untouched around every output


def _pauses(seed: int, probability: float):
    rng = random.Random(seed)
    while True:
        yield rng.random() < probability


class Cycles:
    def __init__(self, clock) -> None:
        self.clock = clock
        self.count = 0

    async def run(self) -> None:
        while True:
            await RisingEdge(self.clock)
            self.count += 1


@cocotb.test()
async def smoke(dut) -> None:
    cfg = json.loads(os.environ["FK_SMOKE"])
    rng = np.random.default_rng(cfg.get("seed", 1))
    cocotb.start_soon(Clock(dut.ap_clk, 4, unit="ns").start())
    cycles = Cycles(dut.ap_clk)
    cocotb.start_soon(cycles.run())
    dut.ap_rst_n.value = 0
    control = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axi_control"), dut.ap_clk,
                            dut.ap_rst_n, reset_active_level=False)
    rams = {}
    for bundle in sorted(set(cfg["bundles"].values())):
        if cfg.get("memory") == "lean":
            rams[bundle] = LeanAxiMemory(dut, f"m_axi_{bundle}", dut.ap_clk, 1 << 22,
                                         read_latency=cfg.get("read_latency", 64))
            cocotb.start_soon(rams[bundle].run())
            continue
        ram = AxiRam(AxiBus.from_prefix(dut, f"m_axi_{bundle}"), dut.ap_clk, dut.ap_rst_n,
                     reset_active_level=False, size=1 << 22)
        if cfg.get("backpressure"):
            for i, channel in enumerate((ram.write_if.aw_channel, ram.write_if.w_channel,
                                         ram.write_if.b_channel, ram.read_if.ar_channel,
                                         ram.read_if.r_channel)):
                channel.set_pause_generator(_pauses(17 * i + len(rams), 0.3))
        rams[bundle] = ram
    await ClockCycles(dut.ap_clk, 8)
    dut.ap_rst_n.value = 1
    await ClockCycles(dut.ap_clk, 4)

    ctrl = await control.read_dword(CTRL)
    assert ctrl & AP_IDLE, f"not idle after reset: CTRL={ctrl:#x}"
    await control.write_dword(GIE, 1)
    await control.write_dword(IER, 1)  # ap_done only

    inputs = [name for name in cfg["bundles"] if name != "out"]
    is_float = cfg.get("dtype") == "float32"
    for run, n in enumerate(cfg["sizes"]):
        alpha = int(rng.integers(-5, 6))
        if is_float:  # normal numbers: the check is the datapath, not subnormal handling
            data = {name: rng.uniform(-1e3, 1e3, size=n).astype(np.float32) for name in inputs}
        else:
            data = {name: rng.integers(-2**31, 2**31, size=n, dtype=np.int64).astype(np.int32)
                    for name in inputs}
        if cfg["kernel"] == "add":  # fma(alpha, b, a): one rounding; int32 wraps
            alphas = np.full(n, alpha, dtype=data["a"].dtype)
            expected = OPS["fma"].reference(alphas, data["b"], data["a"])
        else:  # sum: one element in out[0]; nothing at all is written when n == 0
            total = np.array([data["x"].astype(np.int64).sum()]).astype(np.int32)
            expected = total if n else np.zeros(0, np.int32)
        written = expected.size
        # Buffers start just below a 4 KiB boundary (element-aligned, 64-byte-aligned at
        # 512 bit) so bursts must split there.
        addresses = {}
        align = cfg["align"]
        for i, name in enumerate((*inputs, "out")):
            addresses[name] = 0x10000 * (i + 1) + 0x1000 - 3 * align + 0x20000 * run
        for name, array in data.items():
            rams[cfg["bundles"][name]].write(addresses[name], array.tobytes())
        out_ram = rams[cfg["bundles"]["out"]]
        sentinel = bytes([0xA5]) * (written * 4 + 2 * GUARD)
        out_ram.write(addresses["out"] - GUARD, sentinel)

        for name in (*inputs, "out"):
            offset = cfg["offsets"][name]
            await control.write_dword(offset, addresses[name] & 0xFFFF_FFFF)
            await control.write_dword(offset + 4, addresses[name] >> 32)
        if "alpha" in cfg["offsets"]:
            bits = int(np.float32(alpha).view(np.uint32)) if is_float else alpha & 0xFFFF_FFFF
            await control.write_dword(cfg["offsets"]["alpha"], bits)
        await control.write_dword(cfg["offsets"]["n"], n)

        start = cycles.count
        await control.write_dword(CTRL, AP_START)
        while True:
            ctrl = await control.read_dword(CTRL)
            if ctrl & AP_DONE:
                break
        elapsed = cycles.count - start
        # ap_done is clear-on-read; the done interrupt stays until ISR is toggled.
        again = await control.read_dword(CTRL)
        assert not again & AP_DONE, f"ap_done not cleared by the read: CTRL={again:#x}"
        assert int(dut.interrupt.value) == 1, "no interrupt with GIE and IER.done set"
        assert await control.read_dword(ISR) == 1
        await control.write_dword(ISR, 1)
        await ClockCycles(dut.ap_clk, 2)
        assert int(dut.interrupt.value) == 0, "interrupt not cleared by the ISR toggle"
        await control.write_dword(CTRL, AP_CONTINUE)

        got = np.frombuffer(out_ram.read(addresses["out"], written * 4), dtype=expected.dtype)
        bad = np.nonzero(got.view(np.uint32) != expected.view(np.uint32))[0]
        assert bad.size == 0, (
            f"n={n}: {bad.size} mismatches, first at {bad[:5].tolist()}: "
            f"got {got[bad[:5]].tolist()} expected {expected[bad[:5]].tolist()}"
        )
        before = out_ram.read(addresses["out"] - GUARD, GUARD)
        after = out_ram.read(addresses["out"] + written * 4, GUARD)
        assert before == sentinel[:GUARD] and after == sentinel[:GUARD], "wrote outside out"
        for ram in rams.values():
            assert not getattr(ram, "violations", []), ram.violations[:5]
        rate = n / elapsed if elapsed else 0.0
        dut._log.info(f"RESULT n={n} cycles={elapsed} elements_per_cycle={rate:.4f}")
        await ClockCycles(dut.ap_clk, 4)
        ctrl = await control.read_dword(CTRL)
        assert ctrl & AP_IDLE, f"not idle after ap_continue: CTRL={ctrl:#x}"
