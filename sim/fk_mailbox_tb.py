"""cocotb tests of a register kernel (control: auto_restart): its runs, its auto-restart
counter and its mailboxes (docs/rtl.md, "Register kernels").

Started by fpgakern.verify.rtlsim.simulate_registers with the job in FK_SIM_JOB. The
host side speaks to s_axi_control as XRT's xrt::mailbox does (xrt_kernel.cpp,
mailbox_impl): to write, wait until the input mailbox is not busy, clear its bit 0,
write the scalars, set bit 0; to read, set the output mailbox's bit 0, wait until it is
not busy, clear bit 0, read the results. Every result of every case of
fpgakern.verify.registers.cases is held to the reference, the same cases C simulation
runs.
"""

from __future__ import annotations

import cocotb
import numpy as np
from cocotb.triggers import ClockCycles, First, RisingEdge, Timer
from fk_host import CLOCK_NS, Host, load_job

from fpgakern.interface import (
    CTRL_AP_CONTINUE,
    CTRL_AP_DONE,
    CTRL_AP_IDLE,
    CTRL_AP_START,
    CTRL_AUTO_RESTART,
    MAILBOX_BUSY,
    MAILBOX_REQUEST,
    REG_AUTO_RESTART_COUNTER,
    REG_CTRL,
    REG_GIE,
    REG_IER,
    REG_ISR,
    REG_MAILBOX_IN,
    REG_MAILBOX_OUT,
    interface,
)
from fpgakern.verify import registers

POLL_LIMIT = 1000
MAILBOX_CASES = 48  # cases exchanged through the mailbox while the kernel restarts


class FastMemoryless:
    """A register kernel has no memory port: nothing to serve."""

    def start(self, dut, clock, reset) -> None:
        pass


class Bench:
    def __init__(self, dut) -> None:
        _, self.plan = load_job()
        self.kernel, self.dtype = self.plan.kernel, self.plan.dtype
        self.iface = interface(self.plan)
        self.host = Host(dut, self.plan, self.iface, FastMemoryless(), 1)
        self.dut = dut
        self.scalars = registers.cases(self.kernel, self.dtype.name)
        self.expected = registers.expected(self.kernel, self.dtype.name, self.scalars)
        self.count = len(next(iter(self.scalars.values())))

    async def write(self, offset: int, value: int) -> None:
        await self.host.write_reg(0, offset, value)

    async def read(self, offset: int) -> int:
        return await self.host.read_reg(0, offset)

    def bits(self, value: np.generic) -> int:
        return int(np.asarray(value, self.dtype.numpy).view(np.uint32))

    async def write_scalars(self, case: int) -> None:
        for s in self.kernel.scalars:
            await self.write(self.iface.arg(s.name).offset, self.bits(self.scalars[s.name][case]))

    async def read_results(self) -> dict[str, np.ndarray]:
        got = {}
        for name in self.kernel.outputs:
            word = np.array([await self.read(self.iface.arg(name).offset)], np.uint32)
            got[name] = word.view(self.dtype.numpy)
        return got

    def check(self, cases: list[int], got: dict[str, np.ndarray], what: str) -> None:
        want = {name: values[cases] for name, values in self.expected.items()}
        verdict = registers.judge(self.kernel, self.dtype.name, want, got)
        assert verdict.passed, f"{what}: {verdict.message}"

    async def wait_idle_mailbox(self, offset: int) -> None:
        for _ in range(POLL_LIMIT):
            if not await self.read(offset) & MAILBOX_BUSY:
                return
        raise AssertionError(f"mailbox {offset:#x} still busy after {POLL_LIMIT} reads")

    async def mailbox_write(self, case: int) -> None:
        await self.wait_idle_mailbox(REG_MAILBOX_IN)
        await self.write(REG_MAILBOX_IN, 0)  # acquire
        await self.write_scalars(case)
        await self.write(REG_MAILBOX_IN, MAILBOX_REQUEST)  # release: taken at the next start

    async def mailbox_read(self) -> dict[str, np.ndarray]:
        await self.write(REG_MAILBOX_OUT, MAILBOX_REQUEST)
        await self.wait_idle_mailbox(REG_MAILBOX_OUT)
        await self.write(REG_MAILBOX_OUT, 0)  # acquire: the copy stays as it is
        return await self.read_results()

    async def wait_done(self) -> int:
        for _ in range(POLL_LIMIT):
            ctrl = await self.read(REG_CTRL)
            if ctrl & CTRL_AP_DONE:
                return ctrl
        raise AssertionError(f"ap_done never seen; CTRL={ctrl:#x}")

    async def autostart(self, runs: int = 0) -> None:
        """As XRT's start(xrt::autostart{runs}): the counter (0xFFFFFFFF for 0), ap_start."""
        await self.write(REG_AUTO_RESTART_COUNTER, runs or 0xFFFF_FFFF)
        await self.write(REG_CTRL, CTRL_AP_START)

    async def stop(self) -> None:
        """As XRT's run.stop(): the counter cleared, the current run the last; acknowledge
        its ap_done."""
        await self.write(REG_AUTO_RESTART_COUNTER, 0)
        ctrl = await self.wait_done()
        await self.write(REG_ISR, await self.read(REG_ISR))
        await self.write(REG_CTRL, CTRL_AP_CONTINUE)
        assert not ctrl & CTRL_AUTO_RESTART, f"auto_restart still set: CTRL={ctrl:#x}"
        for _ in range(20):
            if await self.read(REG_CTRL) & CTRL_AP_IDLE:
                return
        raise AssertionError("not idle after the last run")


@cocotb.test()
async def one_run_per_start(dut) -> None:
    """Without auto_restart: every case one run (ap_start, the interrupt, ap_continue),
    its results in the result registers at its end."""
    bench = Bench(dut)
    await bench.host.reset()
    await bench.write(REG_GIE, 1)
    await bench.write(REG_IER, 1)
    for case in range(0, bench.count, max(1, bench.count // 16)):
        await bench.write_scalars(case)
        await bench.write(REG_CTRL, CTRL_AP_START)
        rose = RisingEdge(dut.cu0_interrupt)
        if not int(dut.cu0_interrupt.value):
            assert await First(rose, Timer(2000 * CLOCK_NS, unit="ns")) is rose, "no interrupt"
        ctrl = await bench.read(REG_CTRL)
        assert ctrl & CTRL_AP_DONE, f"interrupt without ap_done: CTRL={ctrl:#x}"
        await bench.write(REG_ISR, 1)
        await bench.write(REG_CTRL, CTRL_AP_CONTINUE)
        bench.check([case], await bench.read_results(), f"case {case}, one run")


@cocotb.test()
async def mailbox_while_restarting(dut) -> None:
    """Started once restarting for ever (xrt::autostart{0}): the scalars of each case
    through the input mailbox and the results through the output mailbox, the one right
    after the other (each reflects the case), then stopped; the first results are the
    ap_start's scalars'."""
    bench = Bench(dut)
    await bench.host.reset()
    await bench.write_scalars(0)
    await bench.autostart()
    bench.check([0], await bench.mailbox_read(), "the started run's scalars")
    step = max(1, bench.count // MAILBOX_CASES)
    for case in range(1, bench.count, step):
        await bench.mailbox_write(case)
        bench.check([case], await bench.mailbox_read(), f"case {case} through the mailbox")
    await bench.stop()


@cocotb.test()
async def results_stay_until_asked(dut) -> None:
    """New scalars released without a read request leave the result registers alone; the
    next request shows them."""
    bench = Bench(dut)
    await bench.host.reset()
    await bench.write_scalars(1)
    await bench.write(REG_CTRL, CTRL_AP_START | CTRL_AUTO_RESTART)  # CTRL's own restart
    bench.check([1], await bench.mailbox_read(), "first request")
    await bench.mailbox_write(2)
    await ClockCycles(dut.ap_clk, 100)  # many runs with the new scalars
    bench.check([1], await bench.read_results(), "results changed without a request")
    bench.check([2], await bench.mailbox_read(), "second request")
    await bench.write(REG_CTRL, 0)  # auto_restart cleared: the current run is the last
    await bench.wait_done()
    await bench.write(REG_CTRL, CTRL_AP_CONTINUE)
    # Idle: a write and a read complete at once (XRT's mailbox on an idle kernel).
    await bench.write(REG_MAILBOX_IN, 0)
    await bench.write_scalars(3)
    await bench.write(REG_MAILBOX_IN, MAILBOX_REQUEST)
    assert not await bench.read(REG_MAILBOX_IN) & MAILBOX_BUSY, "an idle kernel's mailbox is busy"
    await bench.write(REG_MAILBOX_OUT, MAILBOX_REQUEST)
    assert not await bench.read(REG_MAILBOX_OUT) & MAILBOX_BUSY, "an idle kernel's mailbox is busy"
    bench.check([2], await bench.read_results(), "an idle kernel's results")


@cocotb.test()
async def counter_ends_the_restarts(dut) -> None:
    """xrt::autostart{5}: the kernel runs 5 times and stops by itself (one ap_done) with
    the last run's results in place; the inputs released meanwhile are taken."""
    bench = Bench(dut)
    await bench.host.reset()
    await bench.write(REG_AUTO_RESTART_COUNTER, 7)
    assert await bench.read(REG_AUTO_RESTART_COUNTER) == 7, "the counter does not read back"
    await bench.write_scalars(3)
    await bench.autostart(5)
    ctrl = await bench.wait_done()
    assert await bench.read(REG_AUTO_RESTART_COUNTER) == 0, "the counter did not run out"
    await bench.write(REG_CTRL, CTRL_AP_CONTINUE)
    bench.check([3], await bench.read_results(), "the last run's results")
    await ClockCycles(dut.ap_clk, 50)
    ctrl = await bench.read(REG_CTRL)
    assert ctrl & CTRL_AP_IDLE and not ctrl & CTRL_AP_START, f"restarted: CTRL={ctrl:#x}"
