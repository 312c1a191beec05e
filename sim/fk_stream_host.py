"""The host side of a simulated kernel with AXI4-Stream ports (a spec's ``streams:``).

Its stream inputs are driven by cocotbext-axi's AxiStreamSource and its stream outputs
collected by AxiStreamSink, on the wrapper's ``cu0_<name>_t*`` signals
(fpgakern/verify/rtlsim/wrapper.py); memory inputs and outputs live in the memory model
as for every kernel (sim/fk_host.py). A call sends each input stream's n elements as one
frame (TLAST on the last beat) and expects one frame of n elements on each output: a
TLAST anywhere but on beat n-1 shows as a frame of another length.

A kernel started by the host (ap_ctrl_chain) is programmed and started as fk_host.Host
does, and its cycles are the wrapper's ``run_cycles`` (ap_start to interrupt). A
free-running kernel has no control port: the call sends its input frames and waits for
its output frames, and its cycles run from the cycle the first input beat is offered to
the one the last output beat is taken (the wrapper's ``cycle`` counter).

``pause``: the probability that a source leaves a cycle without a beat or a sink
without TREADY, each cycle (random gaps and backpressure; 0: every stream at full rate).
"""

from __future__ import annotations

import random
import time

import numpy as np
from cocotb.triggers import ClockCycles, RisingEdge, SimTimeoutError, with_timeout
from cocotbext.axi import (
    AxiLiteBus,
    AxiLiteMaster,
    AxiStreamBus,
    AxiStreamFrame,
    AxiStreamSink,
    AxiStreamSource,
)
from fk_host import CLOCK_NS, POISON, Run, SimFailure, to_register

from fpgakern.interface import (
    CTRL_AP_CONTINUE,
    CTRL_AP_DONE,
    CTRL_AP_START,
    REG_CTRL,
    REG_GIE,
    REG_IER,
    REG_ISR,
    SIZE_ARG,
    KernelInterface,
)
from fpgakern.ladder import Plan


def _pauses(rng: random.Random, probability: float):
    while True:
        yield rng.random() < probability


class StreamHost:
    """One compute unit of a stream kernel (stream kernels are built at rung 2: one CU)."""

    def __init__(self, dut, plan: Plan, iface: KernelInterface, memory, seed: int = 1) -> None:
        self.dut = dut
        self.plan = plan
        self.iface = iface
        self.memory = memory
        self.clock = dut.ap_clk
        self.rng = random.Random(seed)
        self.buffer_offset = 0  # bytes into a page where each buffer starts
        kernel = plan.kernel
        self.control = None if kernel.free_running else AxiLiteMaster(
            AxiLiteBus.from_prefix(dut, "cu0_s_axi_control"), dut.ap_clk, dut.ap_rst_n,
            reset_active_level=False)
        self.sources = {
            x: AxiStreamSource(AxiStreamBus.from_prefix(dut, f"cu0_{x}"), dut.ap_clk,
                               dut.ap_rst_n, reset_active_level=False)
            for x in plan.streams if x in kernel.inputs}
        self.sinks = {
            y: AxiStreamSink(AxiStreamBus.from_prefix(dut, f"cu0_{y}"), dut.ap_clk,
                             dut.ap_rst_n, reset_active_level=False)
            for y in plan.streams if y in kernel.outputs}

    async def reset(self) -> None:
        self.dut.ap_rst_n.value = 0
        self.memory.start(self.dut, self.dut.ap_clk, self.dut.ap_rst_n)
        await ClockCycles(self.clock, 8)
        self.dut.ap_rst_n.value = 1
        await ClockCycles(self.clock, 4)

    def set_pause(self, probability: float) -> None:
        """Random gaps on every source and backpressure on every sink (0: none)."""
        for port in (*self.sources.values(), *self.sinks.values()):
            if probability > 0:
                port.set_pause_generator(_pauses(random.Random(self.rng.randrange(1 << 30)),
                                                 probability))
            else:
                port.clear_pause_generator()

    async def _write_reg(self, offset: int, value: int) -> None:
        assert self.control is not None
        await self.control.write_dword(offset, value & 0xFFFF_FFFF)

    async def _read_reg(self, offset: int) -> int:
        assert self.control is not None
        return int(await self.control.read_dword(offset))

    async def call(self, tensors: dict[str, np.ndarray], scalars: dict[str, float | int],
                   timeout_cycles: int) -> Run:
        """Run the kernel once on ``tensors``; the outputs are the output stream's frame
        or the output buffer."""
        plan, kernel = self.plan, self.plan.kernel
        out_dtype = kernel.output_dtype(plan.dtype.name).numpy
        n = next(iter(tensors.values())).size
        self.memory.reset()
        addresses = {}
        for x in kernel.inputs:
            if x not in self.sources:
                data = np.ascontiguousarray(tensors[x]).ravel()
                addresses[x] = self.memory.alloc(data.nbytes, False, f"cu0.{x}",
                                                 self.buffer_offset)
                self.memory.write(addresses[x], data)
        if kernel.output not in self.sinks:
            out_bytes = n * np.dtype(out_dtype).itemsize
            addresses[kernel.output] = self.memory.alloc(out_bytes, True,
                                                         f"cu0.{kernel.output}",
                                                         self.buffer_offset)
            self.memory.write(addresses[kernel.output],
                              np.full(out_bytes, POISON, dtype=np.uint8))
        if self.control is not None:
            for arg in self.iface.args:
                if arg.kind == "pointer":
                    await self._write_reg(arg.offset, addresses[arg.name])
                    await self._write_reg(arg.offset + 4, addresses[arg.name] >> 32)
                elif arg.kind == "scalar":
                    value = n if arg.name == SIZE_ARG else scalars[arg.name]
                    await self._write_reg(arg.offset, to_register(value, arg.ctype))
            await self._write_reg(REG_GIE, 1)
            await self._write_reg(REG_IER, 1)

        wall, cpu = time.perf_counter(), time.process_time()
        first_cycle = int(self.dut.cycle.value)
        if n:
            for x, source in self.sources.items():
                data = np.ascontiguousarray(tensors[x]).ravel()
                await source.send(AxiStreamFrame(data.tobytes()))
        if self.control is not None:
            await self._write_reg(REG_CTRL, CTRL_AP_START)
        frames = await self._receive(n, timeout_cycles)
        if self.control is not None:
            if not int(self.dut.all_done.value):
                try:
                    await with_timeout(RisingEdge(self.dut.all_done),
                                       timeout_cycles * CLOCK_NS, "ns")
                except SimTimeoutError:
                    status = await self._read_reg(REG_CTRL)
                    raise SimFailure(f"no ap_done within {timeout_cycles} cycles "
                                     f"(CTRL={status:#04x})") from None
            cycles = int(self.dut.run_cycles.value)
            status = await self._read_reg(REG_CTRL)
            if not status & CTRL_AP_DONE:
                raise SimFailure(f"interrupt raised but CTRL={status:#x} lacks ap_done")
            await self._write_reg(REG_ISR, 1)
            await self._write_reg(REG_CTRL, CTRL_AP_CONTINUE)
        else:
            cycles = int(self.dut.cycle.value) - first_cycle
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        for x, source in self.sources.items():
            if not source.empty():
                raise SimFailure(f"{x}: the kernel left beats of its input stream untaken")
        if kernel.output in self.sinks:
            output = frames[kernel.output]
        else:
            output = self.memory.read(addresses[kernel.output], n, out_dtype)
        problems = self.memory.violations()
        if problems:
            raise SimFailure("AXI violation: " + "; ".join(problems[:5]))
        return Run([output], cycles, wall, cpu, [n])

    async def _receive(self, n: int, timeout_cycles: int) -> dict[str, np.ndarray]:
        """Each output stream's frame of n elements (none when n is 0)."""
        out_dtype = self.plan.kernel.output_dtype(self.plan.dtype.name).numpy
        frames: dict[str, np.ndarray] = {}
        if not n:
            return {y: np.zeros(0, out_dtype) for y in self.sinks}
        waits = {y: sink.recv() for y, sink in self.sinks.items()}
        try:
            received = {y: await with_timeout(wait, timeout_cycles * CLOCK_NS, "ns")
                        for y, wait in waits.items()}
        except SimTimeoutError:
            got = {y: sink.count() for y, sink in self.sinks.items()}
            raise SimFailure(f"no TLAST within {timeout_cycles} cycles (beats waiting in "
                             f"the sinks: {got})") from None
        for y, frame in received.items():
            data = bytes(frame.tdata)
            beats = len(data) // 4
            if beats != n:
                raise SimFailure(f"{y}: TLAST on beat {beats - 1}, expected on beat {n - 1}")
            frames[y] = np.frombuffer(data, dtype=out_dtype).copy()
        await ClockCycles(self.clock, 1)
        for y, sink in self.sinks.items():
            if not sink.empty():
                raise SimFailure(f"{y}: beats after the last one (TLAST on beat {n - 1})")
        return frames

