"""cocotb testbench of the FFT cores fk_fft_sdf and fk_fft_lanes (driven by
test_fft_cores.py; configuration as JSON in FK_FFT).

One loop per clock cycle drives the input (with random gaps when asked), out_ready (random
backpressure when asked) and samples both handshakes in the ReadOnly phase before the
edge, so accepted samples and cycle numbers are exact. Every case sends `count`
transforms back to back and checks every output bit for bit against
fpgakern.ir.fft.complex_transform (any NaN equals any NaN), then waits for idle.
Per case it prints a RESULT line: cycles from the first input to the first and to the last
output, and samples per cycle.
"""

from __future__ import annotations

import json
import os
import random

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from fpgakern.ir import fft

SPECIAL = np.array([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001,
                    0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x7F7FFFFF,
                    0xFF7FFFFF, 0x3F800000, 0xBF800000], dtype=np.uint32)


def transforms(kind: str, count: int, n: int, seed: int) -> np.ndarray:
    """count rows of n complex64 samples of a data kind."""
    rng = np.random.default_rng(seed)
    out = np.empty((count, n), dtype=np.complex64)
    kinds = ["normal", "wide", "subnormal", "zeros", "inf", "nan", "special"]
    for t in range(count):
        k = kinds[t % len(kinds)] if kind == "mixed" else kind
        if k in ("normal", "inf", "nan"):
            scale = 10.0 ** rng.uniform(-3, 3, size=(n, 2))
            parts = (rng.standard_normal((n, 2)) * scale).astype(np.float32)
        elif k == "wide":  # any finite float32 bits: overflow to inf, NaN from inf - inf
            bits = rng.integers(0, 1 << 32, size=(n, 2), dtype=np.uint64).astype(np.uint32)
            bits[(bits & 0x7F800000) == 0x7F800000] &= 0xBFFFFFFF
            parts = bits.view(np.float32)
        elif k == "subnormal":
            bits = rng.integers(0, 1 << 23, size=(n, 2), dtype=np.uint64).astype(np.uint32)
            bits |= (rng.integers(0, 2, size=(n, 2)).astype(np.uint32) << 31)
            bits[rng.random((n, 2)) < 0.2] &= 0x80000000  # some +-0
            parts = bits.view(np.float32)
        elif k == "zeros":
            bits = (rng.integers(0, 2, size=(n, 2)).astype(np.uint32) << 31)
            parts = bits.view(np.float32)
        else:  # special: every special value somewhere, the rest small normals
            parts = rng.standard_normal((n, 2)).astype(np.float32)
            where = rng.choice(n * 2, size=min(len(SPECIAL), 2 * n), replace=False)
            flat = parts.reshape(-1).view(np.uint32)
            flat[where] = SPECIAL[: len(where)]
        if k == "inf":
            parts[rng.integers(n), rng.integers(2)] = np.float32(rng.choice([np.inf, -np.inf]))
        if k == "nan":
            parts[rng.integers(n), rng.integers(2)] = np.float32(np.nan)
        out[t].real = parts[:, 0]
        out[t].imag = parts[:, 1]
    return out


def beats(x: np.ndarray, lanes: int) -> list[int]:
    """The input beats: lanes consecutive samples, sample l in bits [64l +: 64]."""
    raw = np.ascontiguousarray(x).reshape(-1).view(np.uint64).reshape(-1, lanes)
    return [int.from_bytes(row.tobytes(), "little") for row in raw]


def unbeat(values: list[int], lanes: int) -> np.ndarray:
    data = b"".join(v.to_bytes(8 * lanes, "little") for v in values)
    return np.frombuffer(data, dtype=np.uint32).reshape(-1, 2)


def compare(got: np.ndarray, want: np.ndarray, n: int, label: str) -> None:
    """got, want: (samples, 2) uint32 (re, im); NaN == NaN, else equal bits."""
    nan_g = (got & 0x7F800000) == 0x7F800000
    nan_g &= (got & 0x007FFFFF) != 0
    nan_w = (want & 0x7F800000) == 0x7F800000
    nan_w &= (want & 0x007FFFFF) != 0
    bad = ~((got == want) | (nan_g & nan_w))
    if bad.any():
        rows = np.nonzero(bad.any(axis=1))[0]
        first = rows[0]
        raise AssertionError(
            f"{label}: {len(rows)} samples differ; first: transform {first // n} bin "
            f"{first % n}: got {got[first, 0]:08x} {got[first, 1]:08x}, want "
            f"{want[first, 0]:08x} {want[first, 1]:08x}")


async def run_case(dut, case: dict, lanes: int, cycle0: list[int]) -> None:
    log2n, inverse, count = case["log2n"], case["inverse"], case["count"]
    n = 1 << log2n
    scale = np.float32(case.get("scale", 1.0))
    x = transforms(case.get("data", "mixed"), count, n, case.get("seed", 1))
    want = fft.complex_transform(x, inverse, scale).reshape(-1).view(np.uint32).reshape(-1, 2)
    send = beats(x, lanes)
    total = len(send)
    rng = random.Random(case.get("seed", 1) * 7 + 3)
    in_gap, out_gap = case.get("in_gap", 0.0), case.get("out_gap", 0.0)
    dut.log2n.value = log2n
    dut.inverse.value = int(inverse)
    dut.scale.value = int(np.array(scale, dtype=np.float32).view(np.uint32))
    dut.flush.value = 1
    got: list[int] = []
    sent = 0
    cycle = 0
    t_in = t_first_out = t_last_out = t_last_in = None
    limit = 20 * total + 4 * n + 5000
    while len(got) < total:
        valid = sent < total and not (in_gap and rng.random() < in_gap)
        dut.in_valid.value = int(valid)
        if valid:
            dut.in_data.value = send[sent]
        ready = not (out_gap and rng.random() < out_gap)
        dut.out_ready.value = int(ready)
        await ReadOnly()
        if valid and dut.in_ready.value:
            if t_in is None:
                t_in = cycle
            t_last_in = cycle
            sent += 1
        if ready and dut.out_valid.value:
            got.append(int(dut.out_data.value))
            if t_first_out is None:
                t_first_out = cycle
            t_last_out = cycle
        await RisingEdge(dut.clk)
        cycle += 1
        assert cycle < limit, f"case {case}: stuck after {sent} in, {len(got)} out"
    dut.in_valid.value = 0
    dut.out_ready.value = 1
    for _ in range(8):  # nothing extra comes out, and the core goes idle
        await ReadOnly()
        assert not dut.out_valid.value, "output beyond the last transform"
        await RisingEdge(dut.clk)
    for _ in range(4 * n + 1000):
        await ReadOnly()
        if dut.idle.value:
            break
        await RisingEdge(dut.clk)
    else:
        raise AssertionError("not idle after the last output")
    await RisingEdge(dut.clk)
    label = f"n={n} inverse={int(inverse)} count={count}"
    compare(unbeat(got, lanes), want, n, label)
    span = t_last_out - t_in + 1
    dut._log.info(
        f"RESULT lanes={lanes} n={n} inverse={int(inverse)} count={count} "
        f"in_gap={in_gap} out_gap={out_gap} latency={t_first_out - t_in} cycles={span} "
        f"in_cycles={t_last_in - t_in + 1} samples_per_cycle={count * n / span:.4f}")
    cycle0[0] += cycle


@cocotb.test()
async def fft_core(dut) -> None:
    cfg = json.loads(os.environ["FK_FFT"])
    lanes = cfg["lanes"]
    cocotb.start_soon(Clock(dut.clk, 2, unit="ns").start())
    dut.rst_n.value = 0
    dut.in_valid.value = 0
    dut.out_ready.value = 0
    dut.flush.value = 1
    dut.log2n.value = 3
    dut.inverse.value = 0
    dut.scale.value = 0x3F800000
    dut.in_data.value = 0
    await ClockCycles(dut.clk, 4)
    dut.rst_n.value = 1
    await ClockCycles(dut.clk, 2)
    cycles = [0]
    for case in cfg["cases"]:
        await run_case(dut, case, lanes, cycles)
