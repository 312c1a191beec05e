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
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource
from fk_host import CLOCK_NS, POISON, Host, Run, SimFailure, pauses

from fpgakern.interface import CTRL_AP_START, REG_CTRL, SIZE_ARG, KernelInterface
from fpgakern.ladder import Plan


class StreamHost(Host):
    """One compute unit of a stream kernel (stream kernels are built at rung 2: one CU),
    with no control port when it is free-running."""

    def __init__(self, dut, plan: Plan, iface: KernelInterface, memory, seed: int = 1) -> None:
        kernel = plan.kernel
        super().__init__(dut, plan, iface, memory, 0 if kernel.free_running else 1)
        self.rng = random.Random(seed)
        self.sources = {
            x: AxiStreamSource(AxiStreamBus.from_prefix(dut, f"cu0_{x}"), dut.ap_clk,
                               dut.ap_rst_n, reset_active_level=False)
            for x in plan.arch.streams if x in kernel.inputs}
        self.sinks = {
            y: AxiStreamSink(AxiStreamBus.from_prefix(dut, f"cu0_{y}"), dut.ap_clk,
                             dut.ap_rst_n, reset_active_level=False)
            for y in plan.arch.streams if y in kernel.outputs}

    def set_pause(self, probability: float) -> None:
        """Random gaps on every source and backpressure on every sink (0: none)."""
        for port in (*self.sources.values(), *self.sinks.values()):
            if probability > 0:
                port.set_pause_generator(pauses(self.rng.randrange(1 << 30), probability))
            else:
                port.clear_pause_generator()

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
        started = bool(self.controls)  # a free-running kernel has no control port
        if started:
            await self.program(0, {SIZE_ARG: n}, addresses, scalars)

        wall, cpu = time.perf_counter(), time.process_time()
        first_cycle = int(self.dut.cycle.value)
        if n:
            for x, source in self.sources.items():
                data = np.ascontiguousarray(tensors[x]).ravel()
                await source.send(AxiStreamFrame(data.tobytes()))
        if started:
            await self.write_reg(0, REG_CTRL, CTRL_AP_START)
        frames = await self._receive(n, timeout_cycles)
        if started:
            if not int(self.dut.all_done.value):
                try:
                    await with_timeout(RisingEdge(self.dut.all_done),
                                       timeout_cycles * CLOCK_NS, "ns")
                except SimTimeoutError:
                    status = await self.read_reg(0, REG_CTRL)
                    raise SimFailure(f"no ap_done within {timeout_cycles} cycles "
                                     f"(CTRL={status:#04x})") from None
            cycles = int(self.dut.run_cycles.value)
            await self.acknowledge(0)
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

