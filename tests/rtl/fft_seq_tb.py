"""cocotb testbench of the sequential FFT kernels (driven by test_fft_sequential.py).

It drives the kernel as XRT would: arguments over s_axi_control (x, out, scale, rows, n at
the offsets of fft_sequential.fft_interface), ap_start, polls CTRL for ap_done, writes
ap_continue. Memory is cocotbext-axi's AxiRam (optionally with random pauses on every
channel) or the lean fixed-latency model. Each run's output is compared bit for bit with
fpgakern.ir.fft.transform (any NaN equals any NaN), the input checked unchanged and the
bytes around the output untouched. The configuration comes as JSON in FK_FFT.
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

from fpgakern.ir import fft

CTRL = 0x00
AP_START, AP_DONE, AP_IDLE, AP_CONTINUE = 0x01, 0x02, 0x04, 0x10
GUARD = 64
SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -3e-42, 1.4e-45, 3.4e38,
                     -1.0], dtype=np.float32)


def _pauses(seed: int, probability: float):
    rng = random.Random(seed)
    while True:
        yield rng.random() < probability


def floats(rng, count: int, style: str) -> np.ndarray:
    """float32 values: "normal" (Gaussian), "wide" (exponents over the whole range,
    subnormals included), "special" (Gaussian with a few NaN, inf, zeros, subnormals) or
    "tiny" (signed zeros, subnormals and the smallest normals: the signs of zero sums)."""
    if style == "tiny":
        pool = np.array([0.0, -0.0, 1.4e-45, -1.4e-45, 3e-42, -5e-40, 1.2e-38, -1.1754944e-38],
                        dtype=np.float32)
        return rng.choice(pool, size=count)
    if style == "wide":
        bits = rng.integers(0, 2**32, size=count, dtype=np.uint64).astype(np.uint32)
        exps = rng.integers(0, 255, size=count).astype(np.uint32)  # no inf/NaN
        bits = (bits & np.uint32(0x807FFFFF)) | (exps << np.uint32(23))
        return bits.view(np.float32)
    out = rng.standard_normal(count).astype(np.float32)
    if style == "special":
        where = rng.choice(count, size=min(count, 4), replace=False)
        out[where] = rng.choice(SPECIALS, size=where.size)
    return out


def make_input(rng, transform: str, n: int, rows: int, styles: list[str],
               run: int = 0) -> np.ndarray:
    length = fft.input_length(transform, n)
    out = []
    for r in range(rows):
        style = styles[(r + run) % len(styles)]
        if transform == "rfft":
            out.append(floats(rng, length, style))
        else:
            re, im = floats(rng, length, style), floats(rng, length, style)
            row = np.empty(length, dtype=np.complex64)
            row.real, row.imag = re, im
            out.append(row)
    return np.stack(out)


def same_bits(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Per float32 component: equal bits, or both NaN."""
    g = np.ascontiguousarray(got).view(np.float32).reshape(-1)
    w = np.ascontiguousarray(want).view(np.float32).reshape(-1)
    return (g.view(np.uint32) == w.view(np.uint32)) | (np.isnan(g) & np.isnan(w))


class Cycles:
    def __init__(self, clock) -> None:
        self.clock, self.count = clock, 0

    async def run(self) -> None:
        while True:
            await RisingEdge(self.clock)
            self.count += 1


@cocotb.test()
async def fft_runs(dut) -> None:
    cfg = json.loads(os.environ["FK_FFT"])
    transform = cfg["transform"]
    rng = np.random.default_rng(cfg.get("seed", 7))
    cocotb.start_soon(Clock(dut.ap_clk, 4, unit="ns").start())
    cycles = Cycles(dut.ap_clk)
    cocotb.start_soon(cycles.run())
    dut.ap_rst_n.value = 0
    control = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axi_control"), dut.ap_clk,
                            dut.ap_rst_n, reset_active_level=False)
    size = 1 << 22
    if cfg.get("memory") == "lean":
        ram = LeanAxiMemory(dut, "m_axi_gmem", dut.ap_clk, size,
                            read_latency=cfg.get("read_latency", 64))
        cocotb.start_soon(ram.run())
    else:
        ram = AxiRam(AxiBus.from_prefix(dut, "m_axi_gmem"), dut.ap_clk, dut.ap_rst_n,
                     reset_active_level=False, size=size)
        if cfg.get("backpressure"):
            for i, channel in enumerate((ram.write_if.aw_channel, ram.write_if.w_channel,
                                         ram.write_if.b_channel, ram.read_if.ar_channel,
                                         ram.read_if.r_channel)):
                channel.set_pause_generator(_pauses(31 * i + 5, 0.3))
    await ClockCycles(dut.ap_clk, 8)
    dut.ap_rst_n.value = 1
    await ClockCycles(dut.ap_clk, 4)
    assert await control.read_dword(CTRL) & AP_IDLE

    offsets = cfg["offsets"]
    for run, case in enumerate(cfg["runs"]):
        n, rows = case["n"], case["rows"]
        scale = np.float32(case["scale"])
        valid = rows > 0 and n >= 8 and n <= fft.MAX_FFT and n & (n - 1) == 0
        x = make_input(rng, transform, n, max(rows, 1), case.get("styles", ["normal"]), run)
        want = (fft.transform(transform, x, n, scale) if valid
                else np.zeros((0,), dtype=np.float32))
        x_bytes = x.tobytes() if valid else b""
        out_bytes = want.nbytes
        # Input just below a 4 KiB boundary (8-byte aligned) so bursts split there.
        x_addr = 0x10000 + 0x1000 - 0x48 + 0x80000 * (run % 2)
        out_addr = x_addr + len(x_bytes) + 0x1000 * (run % 3 + 1) + 0x38  # 8-byte aligned
        ram.write(x_addr, x_bytes)
        sentinel = bytes([0xA5]) * (out_bytes + 2 * GUARD)
        ram.write(out_addr - GUARD, sentinel)

        for name, value in (("x", x_addr), ("out", out_addr)):
            await control.write_dword(offsets[name], value & 0xFFFF_FFFF)
            await control.write_dword(offsets[name] + 4, value >> 32)
        await control.write_dword(offsets["scale"], int(scale.view(np.uint32)))
        await control.write_dword(offsets["rows"], rows & 0xFFFF_FFFF)
        await control.write_dword(offsets["n"], n & 0xFFFF_FFFF)

        start = cycles.count
        await control.write_dword(CTRL, AP_START)
        while not await control.read_dword(CTRL) & AP_DONE:
            pass
        elapsed = cycles.count - start
        await control.write_dword(CTRL, AP_CONTINUE)

        got = np.frombuffer(ram.read(out_addr, out_bytes), dtype=want.dtype).reshape(want.shape)
        ok = same_bits(got, want)
        if not ok.all():
            bad = np.nonzero(~ok)[0]
            g = got.view(np.float32).reshape(-1)
            w = want.view(np.float32).reshape(-1)
            raise AssertionError(
                f"{transform} n={n} rows={rows}: {bad.size} of {ok.size} float32 parts "
                f"differ, first at {bad[:6].tolist()}: got {g[bad[:6]].tolist()} "
                f"expected {w[bad[:6]].tolist()}")
        assert ram.read(x_addr, len(x_bytes)) == x_bytes, "the input was written"
        assert ram.read(out_addr - GUARD, GUARD) == sentinel[:GUARD], "wrote below out"
        assert ram.read(out_addr + out_bytes, GUARD) == sentinel[:GUARD], "wrote past out"
        assert not getattr(ram, "violations", []), ram.violations[:5]
        per = elapsed / rows if valid else 0
        dut._log.info(f"RESULT n={n} rows={rows} cycles={elapsed} per_transform={per:.1f}")
        await ClockCycles(dut.ap_clk, 4)
        assert await control.read_dword(CTRL) & AP_IDLE
