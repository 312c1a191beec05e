"""cocotb tests of the s_axi_control register map of a generated kernel.

Started by fpgakern.verify.rtlsim.run_regmap_tests (tests/sim/test_regmap.py) with the
job in FK_SIM_JOB: an elementwise kernel with one compute unit, on the fast memory
model. Each test drives the control port the way XRT does and checks the HLS register
semantics (shared/reference/vitis-flow.md §4): ap_idle after reset, ap_start cleared by
the kernel, ap_done set once and cleared by the read that sees it, ap_ready, ap_continue
(ap_ctrl_chain), auto_restart, and the interrupt through GIE, IER and ISR.
"""

from __future__ import annotations

import cocotb
import numpy as np
from cocotb.triggers import ClockCycles, First, RisingEdge, Timer
from fk_host import CLOCK_NS, POISON, FastMemory, Host, load_job, to_register

from fpgakern.interface import (
    CTRL_AP_CONTINUE,
    CTRL_AP_DONE,
    CTRL_AP_IDLE,
    CTRL_AP_READY,
    CTRL_AP_START,
    CTRL_AUTO_RESTART,
    REG_CTRL,
    REG_GIE,
    REG_IER,
    REG_ISR,
    interface,
)
from fpgakern.verify import reference, stimulus

N = 256  # elements per run: short, but long enough to be seen running
POLL_LIMIT = 4000
POLL_GAP = 40  # cycles between CTRL reads: rung 0 takes ~200 cycles per element


class Bench:
    """One CU with its buffers programmed, ready to be started by hand."""

    def __init__(self, dut) -> None:
        job, self.plan = load_job()
        self.iface = interface(self.plan)
        self.memory = FastMemory(job["latency"])
        self.host = Host(dut, self.plan, self.iface, self.memory, 1)
        self.dut = dut
        self.rng = np.random.default_rng(7)
        self.out_addr = 0
        self.expected = np.zeros(0)

    async def setup(self) -> None:
        await self.host.reset()
        await self.program()

    async def program(self) -> None:
        """Fresh inputs and output; arguments written; interrupts left as they are."""
        kernel, dtype = self.plan.kernel, self.plan.dtype.numpy
        self.memory.reset()
        inputs = {x: self.rng.integers(-1000, 1000, N).astype(dtype) for x in kernel.inputs}
        addresses = {}
        for name, data in inputs.items():
            addresses[name] = self.memory.alloc(data.nbytes, False, name)
            self.memory.write(addresses[name], data)
        out_bytes = N * np.dtype(dtype).itemsize
        self.out_addr = self.memory.alloc(out_bytes, True, kernel.output)
        self.memory.write(self.out_addr, np.full(out_bytes, POISON, dtype=np.uint8))
        addresses[kernel.output] = self.out_addr
        scalars = {s.name: s.default for s in kernel.scalars}
        for arg in self.iface.args:
            if arg.kind == "pointer":
                await self.write(arg.offset, addresses[arg.name])
                await self.write(arg.offset + 4, addresses[arg.name] >> 32)
            elif arg.name in scalars:
                await self.write(arg.offset, to_register(scalars[arg.name], arg.ctype))
            else:
                await self.write(arg.offset, N)
        case = stimulus.Case("regmap", inputs, scalars)
        self.expected = reference.expected_output(kernel, self.plan.dtype.name, case)

    async def write(self, offset: int, value: int) -> None:
        await self.host.write_reg(0, offset, value)

    async def read(self, offset: int) -> int:
        return await self.host.read_reg(0, offset)

    def output_ok(self) -> bool:
        out = self.memory.read(self.out_addr, N, self.plan.dtype.numpy)
        return bool(np.array_equal(out, self.expected))

    async def poll_done(self) -> list[int]:
        """CTRL reads until one shows ap_done; returns every value read."""
        seen = []
        for _ in range(POLL_LIMIT):
            value = await self.read(REG_CTRL)
            seen.append(value)
            if value & CTRL_AP_DONE:
                return seen
            await ClockCycles(self.dut.ap_clk, POLL_GAP)
        raise AssertionError(f"ap_done never seen in {POLL_LIMIT} CTRL reads; last {seen[-1]:#x}")

    async def wait_interrupt(self, cycles: int = 200_000) -> bool:
        if int(self.dut.cu0_interrupt.value):
            return True
        rose = RisingEdge(self.dut.cu0_interrupt)
        return await First(rose, Timer(cycles * CLOCK_NS, unit="ns")) is rose


@cocotb.test()
async def idle_after_reset(dut) -> None:
    bench = Bench(dut)
    await bench.host.reset()
    ctrl = await bench.read(REG_CTRL)
    assert ctrl & CTRL_AP_IDLE, f"CTRL={ctrl:#x} after reset: ap_idle expected"
    assert not ctrl & (CTRL_AP_START | CTRL_AP_DONE), f"CTRL={ctrl:#x} after reset"
    for reg in (REG_GIE, REG_IER, REG_ISR):
        value = await bench.read(reg)
        assert value == 0, f"register {reg:#x} reads {value:#x} after reset, expected 0"
    assert not int(dut.cu0_interrupt.value), "interrupt high after reset"


@cocotb.test()
async def arguments_read_back(dut) -> None:
    bench = Bench(dut)
    await bench.host.reset()
    for i, arg in enumerate(bench.iface.args):
        words = arg.size // 4
        values = [(0x1234_5670 + 0x1111 * i + w) & 0xFFFF_FFFF for w in range(words)]
        for w, value in enumerate(values):
            await bench.write(arg.offset + 4 * w, value)
        for w, value in enumerate(values):
            got = await bench.read(arg.offset + 4 * w)
            assert got == value, f"{arg.name} word {w} at {arg.offset + 4 * w:#x}: " \
                                 f"wrote {value:#x}, read {got:#x}"
        reserved = arg.offset + arg.size
        await bench.write(reserved, 0xFFFF_FFFF)
        got = await bench.read(reserved)
        assert got == 0, f"reserved word {reserved:#x} after {arg.name} reads {got:#x}"


@cocotb.test()
async def done_is_cleared_by_read(dut) -> None:
    bench = Bench(dut)
    await bench.setup()
    await bench.write(REG_CTRL, CTRL_AP_START)
    seen = await bench.poll_done()
    assert any(not v & CTRL_AP_IDLE for v in seen), \
        f"ap_idle never low while running: {[hex(v) for v in seen]}"
    assert not seen[-1] & CTRL_AP_START, f"ap_start still set with ap_done: {seen[-1]:#x}"
    assert any(v & CTRL_AP_READY for v in seen), \
        f"ap_ready never seen: {[hex(v) for v in seen]}"
    again = await bench.read(REG_CTRL)
    assert not again & CTRL_AP_DONE, f"ap_done still set on the next read: {again:#x}"
    assert bench.output_ok(), "wrong output"
    await bench.write(REG_CTRL, CTRL_AP_CONTINUE)
    for _ in range(50):
        ctrl = await bench.read(REG_CTRL)
        if ctrl & CTRL_AP_IDLE:
            break
    assert ctrl & CTRL_AP_IDLE, f"not idle after ap_continue: CTRL={ctrl:#x}"
    assert not ctrl & CTRL_AP_DONE, f"ap_done back after it was read: CTRL={ctrl:#x}"


@cocotb.test()
async def second_run_after_continue(dut) -> None:
    bench = Bench(dut)
    await bench.setup()
    for run in range(2):
        await bench.write(REG_CTRL, CTRL_AP_START)
        await bench.poll_done()
        assert bench.output_ok(), f"wrong output on run {run + 1}"
        await bench.write(REG_CTRL, CTRL_AP_CONTINUE)
        await bench.program()


@cocotb.test()
async def interrupt_needs_gie_and_ier(dut) -> None:
    bench = Bench(dut)
    await bench.setup()
    # IER on, GIE off: ISR records the event, the line stays low.
    await bench.write(REG_IER, 1)
    await bench.write(REG_CTRL, CTRL_AP_START)
    await bench.poll_done()
    await ClockCycles(dut.ap_clk, 5)
    isr = await bench.read(REG_ISR)
    assert isr & 1, f"ISR={isr:#x}: ap_done not recorded with IER set"
    assert not int(dut.cu0_interrupt.value), "interrupt raised with GIE clear"
    # GIE on: the pending ISR bit raises the line; writing 1 to ISR clears both.
    await bench.write(REG_GIE, 1)
    assert await bench.wait_interrupt(100), "GIE set with ISR pending, but no interrupt"
    await bench.write(REG_ISR, 1)
    await ClockCycles(dut.ap_clk, 3)
    isr = await bench.read(REG_ISR)
    assert not isr & 1, f"ISR={isr:#x} after writing 1 to clear it"
    assert not int(dut.cu0_interrupt.value), "interrupt still high after ISR was cleared"
    # IER off: a run sets nothing.
    await bench.write(REG_CTRL, CTRL_AP_CONTINUE)
    await bench.write(REG_IER, 0)
    await bench.program()
    await bench.write(REG_CTRL, CTRL_AP_START)
    await bench.poll_done()
    await ClockCycles(dut.ap_clk, 5)
    isr = await bench.read(REG_ISR)
    assert isr == 0, f"ISR={isr:#x} with IER clear"
    assert not int(dut.cu0_interrupt.value), "interrupt with IER clear"
    # IER bit 1: ap_ready raises the interrupt too.
    await bench.write(REG_CTRL, CTRL_AP_CONTINUE)
    await bench.write(REG_IER, 2)
    await bench.program()
    await bench.write(REG_CTRL, CTRL_AP_START)
    assert await bench.wait_interrupt(), "no interrupt on ap_ready with IER bit 1"
    isr = await bench.read(REG_ISR)
    assert isr & 2, f"ISR={isr:#x}: ap_ready not recorded with IER bit 1"
    await bench.poll_done()
    assert bench.output_ok(), "wrong output"


@cocotb.test()
async def interrupt_on_done(dut) -> None:
    bench = Bench(dut)
    await bench.setup()
    await bench.write(REG_GIE, 1)
    await bench.write(REG_IER, 1)
    await bench.write(REG_CTRL, CTRL_AP_START)
    assert await bench.wait_interrupt(), "no interrupt after ap_start"
    ctrl = await bench.read(REG_CTRL)
    assert ctrl & CTRL_AP_DONE, f"interrupt, but CTRL={ctrl:#x} lacks ap_done"
    assert bench.output_ok(), "interrupt raised before the output was complete"


@cocotb.test()
async def auto_restart_repeats_until_cleared(dut) -> None:
    bench = Bench(dut)
    await bench.setup()
    await bench.write(REG_GIE, 1)
    await bench.write(REG_IER, 1)
    await bench.write(REG_CTRL, CTRL_AP_START | CTRL_AUTO_RESTART)
    ctrl = await bench.read(REG_CTRL)
    assert ctrl & CTRL_AUTO_RESTART, f"auto_restart does not read back: CTRL={ctrl:#x}"
    for runs in range(3):
        assert await bench.wait_interrupt(), f"no ap_done interrupt after {runs} runs"
        await bench.write(REG_ISR, 1)  # acknowledge; the kernel goes on by itself
        await ClockCycles(dut.ap_clk, 2)
    assert bench.output_ok(), "wrong output under auto_restart"
    # Clear auto_restart (and ap_start): the current run ends, no further one starts.
    await bench.write(REG_CTRL, 0)
    for _ in range(POLL_LIMIT):
        ctrl = await bench.read(REG_CTRL)
        if ctrl & CTRL_AP_IDLE:
            break
        if ctrl & CTRL_AP_DONE:
            await bench.write(REG_CTRL, CTRL_AP_CONTINUE)
        await ClockCycles(dut.ap_clk, POLL_GAP)
    assert ctrl & CTRL_AP_IDLE, f"still busy after auto_restart was cleared: CTRL={ctrl:#x}"
    await bench.write(REG_ISR, await bench.read(REG_ISR))  # clear whatever is pending
    await ClockCycles(dut.ap_clk, 300 * N)  # longer than a run of the slowest rung
    ctrl = await bench.read(REG_CTRL)
    assert ctrl & CTRL_AP_IDLE and not ctrl & CTRL_AP_START, \
        f"kernel restarted after auto_restart was cleared: CTRL={ctrl:#x}"
