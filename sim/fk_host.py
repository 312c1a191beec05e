"""The host side of a simulated kernel: what XRT would do, in cocotb.

``Host`` drives the wrapper ``fk_sim_top`` (fpgakern/verify/rtlsim/wrapper.py): it
allocates buffers in the chosen memory model, writes the arguments of every compute
unit over its AXI4-Lite control port (cocotbext-axi's AxiLiteMaster), sets ap_start,
waits for the wrapper's ``all_done`` (the last started CU's interrupt), reads CTRL and
clears ISR as an interrupt handler would, and reads the outputs back. Cycles come from
the wrapper's ``run_cycles`` counter, measured in the HDL.

Two memory models (docs/sim.md):
* ``FastMemory``: the C++ model in sim/fkmem/ behind every AXI master; Python touches it
  through ctypes once per buffer, never per cycle.
* ``RamMemory``: cocotbext-axi's AxiRam per master, all sharing one bytearray, optionally
  with random backpressure on every channel; a poison pattern around every buffer shows
  any write outside it.
"""

from __future__ import annotations

import ctypes
import json
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from cocotb.triggers import ClockCycles, First, RisingEdge, Timer
from cocotbext.axi import AxiBus, AxiLiteBus, AxiLiteMaster, AxiRam

from fpgakern.interface import (
    CTRL_AP_CONTINUE,
    CTRL_AP_DONE,
    CTRL_AP_START,
    REG_CTRL,
    REG_GIE,
    REG_IER,
    REG_ISR,
    KernelInterface,
)
from fpgakern.ladder import Plan, Variant
from fpgakern.spec.library import Library

BASE = 0x4_0000_0000  # first buffer address: above 4 GiB, so the high pointer word matters
PAGE = 4096
POISON = 0xA5  # fill byte of output buffers and guard zones
CLOCK_NS = 10  # ap_clk period set by fk_verilator_main.cpp (5000 ps half period)


class SimFailure(Exception):
    """A run that cannot complete: timeout, AXI violation, bad control state."""


def load_job() -> tuple[dict, Plan]:
    """The job in the file FK_SIM_JOB names (``fpgakern.verify.rtlsim.testbench_job``)
    and the plan of its variant, from the kernel as the job's spec folder holds it."""
    job = json.loads(Path(os.environ["FK_SIM_JOB"]).read_text())
    variant = Variant.from_json(job["variant"])
    return job, Plan(Library(Path(job["specs"])).get(variant.kernel), variant)


# ----------------------------------------------------------------------------- memory


class FastMemory:
    """The C++ memory model (sim/fkmem/fk_axi_mem.cpp), reached through ctypes."""

    name = "fast"
    per_cycle_python = False  # no Python coroutine needs the clock while a kernel runs

    def __init__(self, latency: int, stall_permille: int = 0, seed: int = 1,
                 write_latency: int | None = None,
                 bank_bytes_per_cycle: list[float] | None = None,
                 placement: dict[str, int] | None = None) -> None:
        lib = ctypes.CDLL(None)  # the simulation executable exports fk_mem_* (-rdynamic)
        u64, c = ctypes.c_ulonglong, ctypes
        lib.fk_mem_alloc.restype = u64
        lib.fk_mem_alloc.argtypes = [u64, c.c_int, c.c_char_p, u64]
        lib.fk_mem_write.argtypes = [u64, c.c_void_p, u64]
        lib.fk_mem_read.argtypes = [u64, c.c_void_p, u64]
        lib.fk_mem_configure.argtypes = [c.c_uint, c.c_uint, c.c_uint, c.c_uint, u64]
        lib.fk_mem_violation_count.restype = u64
        lib.fk_mem_violation.restype = c.c_char_p
        lib.fk_mem_violation.argtypes = [u64]
        lib.fk_mem_port_name.restype = c.c_char_p
        lib.fk_mem_port_describe.restype = c.c_char_p
        lib.fk_mem_port_stats.argtypes = [c.c_int, c.POINTER(u64), c.c_int]
        lib.fk_mem_banks.argtypes = [c.c_int, c.POINTER(c.c_double)]
        lib.fk_mem_place.argtypes = [c.c_char_p, c.c_int]
        lib.fk_mem_bank_bytes.restype = u64
        lib.fk_mem_bank_bytes.argtypes = [c.c_int]
        self.lib = lib
        # Banks with their bytes per cycle and each port's bank (sim/fkmem/fk_axi_mem.h):
        # the platform's bandwidth; none: no limit.
        self.bank_bytes_per_cycle = list(bank_bytes_per_cycle or [])
        self.placement = dict(placement or {})
        self.latency = latency
        self.write_latency = latency if write_latency is None else write_latency
        self.stall_permille = stall_permille
        self.seed = seed

    def start(self, dut, clock, reset) -> None:  # the signature of RamMemory.start
        self.reset()

    def reset(self) -> None:
        self.lib.fk_mem_reset()
        self.lib.fk_mem_configure(self.latency, self.write_latency, 64, self.stall_permille,
                                  self.seed)
        rates = self.bank_bytes_per_cycle
        self.lib.fk_mem_banks(len(rates), (ctypes.c_double * max(len(rates), 1))(*rates))
        for port, bank in self.placement.items():
            self.lib.fk_mem_place(port.encode(), bank)

    def bank_bytes(self) -> list[int]:
        """Bytes each bank moved since the last reset (counted on limited banks)."""
        return [int(self.lib.fk_mem_bank_bytes(i))
                for i in range(len(self.bank_bytes_per_cycle))]

    def alloc(self, size: int, writable: bool, name: str, offset: int = 0) -> int:
        return int(self.lib.fk_mem_alloc(size, int(writable), name.encode(), offset))

    def write(self, addr: int, data: np.ndarray) -> None:
        data = np.ascontiguousarray(data)
        if self.lib.fk_mem_write(addr, data.ctypes.data, data.nbytes):
            raise SimFailure(f"host write outside the memory model at {addr:#x}")

    def read(self, addr: int, count: int, dtype: np.dtype) -> np.ndarray:
        out = np.empty(count, dtype=dtype)
        if count and self.lib.fk_mem_read(addr, out.ctypes.data, out.nbytes):
            raise SimFailure(f"host read outside the memory model at {addr:#x}")
        return out

    def port_beats(self) -> dict[str, dict[str, int]]:
        """Beats each AXI port read and wrote since the last reset (every CU's ports)."""
        out = {}
        for i in range(self.lib.fk_mem_port_count()):
            stats = (ctypes.c_ulonglong * 6)()
            self.lib.fk_mem_port_stats(i, stats, 6)
            name = self.lib.fk_mem_port_name(i).decode()
            out[name] = {"read_beats": int(stats[2]), "write_beats": int(stats[5])}
        return out

    def violations(self) -> list[str]:
        count = int(self.lib.fk_mem_violation_count())
        kept = [self.lib.fk_mem_violation(i) for i in range(count)]
        messages = [m.decode() for m in kept if m]
        if count > len(messages):
            messages.append(f"... {count - len(messages)} more")
        return messages

    def describe(self) -> str:
        return "; ".join(self.lib.fk_mem_port_describe(i).decode()
                         for i in range(self.lib.fk_mem_port_count()))


@dataclass
class _Region:
    base: int
    size: int
    end: int  # end of its pages (guard zone is [base + size, end))


class RamMemory:
    """cocotbext-axi AxiRam on every master, sharing one bytearray, optional backpressure."""

    name = "axiram"
    per_cycle_python = True  # AxiRam's coroutines run on every clock edge

    def __init__(self, prefixes: list[str], size: int, backpressure: float = 0.0,
                 seed: int = 1) -> None:
        self.prefixes = prefixes
        self.mem = bytearray(size)  # AxiRam maps address % size, so BASE lands at 0
        self.size = size
        self.backpressure = backpressure
        self.seed = seed
        self.rams: list[AxiRam] = []
        self.regions: list[_Region] = []
        self.next = 0

    def start(self, dut, clock, reset) -> None:
        rng = random.Random(self.seed)
        for prefix in self.prefixes:
            ram = AxiRam(AxiBus.from_prefix(dut, prefix), clock, reset,
                         reset_active_level=False, mem=self.mem)
            if self.backpressure:
                channels = (ram.write_if.aw_channel, ram.write_if.w_channel,
                            ram.write_if.b_channel, ram.read_if.ar_channel,
                            ram.read_if.r_channel)
                for channel in channels:
                    channel.set_pause_generator(pauses(rng.randrange(1 << 30),
                                                        self.backpressure))
            self.rams.append(ram)
        self.reset()

    def reset(self) -> None:
        self.regions = []
        self.next = 0

    def alloc(self, size: int, writable: bool, name: str, offset: int = 0) -> int:
        start = self.next + offset
        end = -(-(start + max(size, 1)) // PAGE) * PAGE + PAGE  # one guard page after
        if end > self.size:
            raise SimFailure(f"AxiRam of {self.size} bytes is too small for buffer {name!r}")
        self.mem[self.next:end] = bytes([POISON]) * (end - self.next)
        self.regions.append(_Region(start, size, end))
        self.next = end
        return BASE + start

    def write(self, addr: int, data: np.ndarray) -> None:
        raw = np.ascontiguousarray(data).tobytes()
        self.mem[addr - BASE: addr - BASE + len(raw)] = raw

    def read(self, addr: int, count: int, dtype: np.dtype) -> np.ndarray:
        n = count * np.dtype(dtype).itemsize
        return np.frombuffer(bytes(self.mem[addr - BASE: addr - BASE + n]), dtype=dtype).copy()

    def violations(self) -> list[str]:
        """Bytes changed outside every buffer (each buffer's guard zone kept its poison)."""
        found = []
        for r in self.regions:
            guard = np.frombuffer(bytes(self.mem[r.base + r.size: r.end]), dtype=np.uint8)
            bad = np.flatnonzero(guard != POISON)
            if bad.size:
                first = BASE + r.base + r.size + int(bad[0])
                found.append(f"{bad.size} bytes written past a {r.size}-byte buffer, "
                             f"first at {first:#x}")
        return found

    def describe(self) -> str:
        return "AxiRam (no queue state available)"


def _turbo(on: bool) -> None:
    """Tell the simulation's main loop (sim/fkmem/fk_verilator_main.cpp) that Python only
    waits for all_done: it then runs cycles without any VPI work in between."""
    ctypes.CDLL(None).fk_sim_turbo(int(on))


def pauses(seed: int, probability: float):
    """A cocotbext-axi pause generator: True (pause this cycle) with ``probability``."""
    rng = random.Random(seed)
    while True:
        yield rng.random() < probability


# ----------------------------------------------------------------------------- host


@dataclass
class Run:
    """One kernel call across its compute units."""

    outputs: list[np.ndarray]  # per CU that ran
    cycles: int
    wall_seconds: float
    cpu_seconds: float
    sizes: list[int] = field(default_factory=list)


def to_register(value: float | int, ctype: str) -> int:
    """The 32-bit register image of a scalar argument."""
    if ctype == "float":
        return int(np.array([value], dtype=np.float32).view(np.uint32)[0])
    return int(np.array([value], dtype=np.int64).astype(np.int32).view(np.uint32)[0])


def split(n: int, cus: int, granule: int = 16) -> list[tuple[int, int]]:
    """The host's work split: contiguous chunks, a multiple of ``granule`` elements each
    (whole 64-byte lines) except the last; CUs without work are left out."""
    if cus == 1 or n == 0:
        return [(0, n)]
    per_cu = -(-n // cus)  # ceil
    chunk = -(-per_cu // granule) * granule
    return [(lo, min(n, lo + chunk)) for lo in range(0, n, chunk)] or [(0, 0)]


@dataclass
class Share:
    """One compute unit's part of a call: its input buffers' contents, its size arguments
    (Kernel.size_args) and the elements of its output buffer."""

    inputs: dict[str, np.ndarray]
    sizes: dict[str, int]
    count: int


def shares(plan: Plan, tensors: dict[str, np.ndarray], cus: int) -> list[Share]:
    """The work of each compute unit, as a multi-CU host splits it. Flat kernels split
    their n elements (:func:`split`). A broadcast kernel's CUs take whole channel runs of
    ``inner`` elements (docs/rtl.md): each gets its run of the full tensors, every
    per-channel operand whole, and the channel its first element belongs to."""
    kernel = plan.kernel
    if kernel.kind in ROW_KINDS:
        return row_shares(plan, tensors, cus)
    if kernel.kind == "transform":
        return transform_shares(plan, tensors, cus)
    if kernel.kind != "broadcast":
        n = next(iter(tensors.values())).size
        return [Share({x: np.ascontiguousarray(tensors[x]).ravel()[lo:hi]
                       for x in kernel.inputs}, {"n": hi - lo},
                      1 if kernel.is_reduction else hi - lo)
                for lo, hi in split(n, cus)]
    from fpgakern.ir import shapes

    layout = kernel.layout
    main = np.asarray(tensors[kernel.inputs[0]])
    whole = shapes.sizes(kernel.kind, layout, main.shape)
    inner, channels = whole["inner"], whole["channels"]
    runs = main.size // inner if inner else 0
    out = []
    for lo, hi in split(runs, cus, granule=1):
        first, last = lo * inner, hi * inner
        inputs = {x: (np.ascontiguousarray(tensors[x]).ravel() if x in layout.channel_inputs
                      else np.ascontiguousarray(tensors[x]).ravel()[first:last])
                  for x in kernel.inputs}
        sizes = {"n": last - first, "inner": inner, "channels": channels,
                 "channel0": lo % channels if channels else 0}
        out.append(Share(inputs, sizes, last - first))
    return out


ROW_KINDS = ("row_map", "row_reduction")


def row_pitch(plan: Plan, cols: int) -> int:
    """Elements from one row's start to the next's: cols rounded up to the lanes."""
    return -(-cols // plan.arch.lanes) * plan.arch.lanes


def row_shares(plan: Plan, tensors: dict[str, np.ndarray], cus: int) -> list[Share]:
    """A row kernel's CUs take whole rows; every row is padded to the row pitch with NaN
    (which the kernel must not rely on), per-column inputs go whole to each CU."""
    kernel = plan.kernel
    layout = kernel.layout
    main = np.asarray(tensors[kernel.inputs[0]])
    cols = main.shape[-1]
    rows = int(np.prod(main.shape[:-1]))
    pitch = row_pitch(plan, cols)

    def padded(a: np.ndarray, count: int) -> np.ndarray:
        out = np.full((count, pitch), np.nan, dtype=a.dtype)
        out[:, :cols] = a.reshape(count, cols)
        return out.ravel()

    out = []
    for lo, hi in split(rows, cus, granule=1):
        inputs = {x: (padded(np.asarray(tensors[x]), 1) if x in layout.channel_inputs
                      else padded(np.asarray(tensors[x]).reshape(rows, cols)[lo:hi], hi - lo))
                  for x in kernel.inputs}
        count = hi - lo if layout.row_output else (hi - lo) * pitch
        out.append(Share(inputs, {"rows": hi - lo, "cols": cols}, count))
    return out


def transform_pitches(plan: Plan, cols: int) -> tuple[int, int, int]:
    """A transform's length n for input rows of ``cols``, and the input and output row
    pitches: each row in whole words of its pointer's lanes (runtime/transform.py)."""
    from fpgakern.ir import fft

    kernel = plan.kernel
    n = fft.default_length(kernel.transform, cols)
    out_cols = fft.output_length(kernel.transform, n)

    def pitch(count: int, pointer: str) -> int:
        lanes = plan.arch.pointer_lanes(pointer)
        return -(-count // lanes) * lanes

    return n, pitch(cols, kernel.inputs[0]), pitch(out_cols, kernel.output)


def transform_shares(plan: Plan, tensors: dict[str, np.ndarray], cus: int) -> list[Share]:
    """A transform's CUs take whole rows, each row padded to its pitch with NaN (which
    the kernel must not read)."""
    kernel = plan.kernel
    x = np.asarray(tensors[kernel.inputs[0]])
    rows, cols = x.shape
    n, in_pitch, out_pitch = transform_pitches(plan, cols)
    out = []
    for lo, hi in split(rows, cus, granule=1):
        padded = np.full((hi - lo, in_pitch), np.nan, dtype=x.dtype)
        padded[:, :cols] = x[lo:hi]
        out.append(Share({kernel.inputs[0]: padded.ravel()}, {"rows": hi - lo, "n": n},
                         (hi - lo) * out_pitch))
    return out


class Host:
    def __init__(self, dut, plan: Plan, iface: KernelInterface, memory,
                 cus: int) -> None:
        self.dut = dut
        self.plan = plan
        self.iface = iface
        self.memory = memory
        self.cus = cus
        self.clock = dut.ap_clk
        self.controls = [
            AxiLiteMaster(AxiLiteBus.from_prefix(dut, f"cu{i}_s_axi_control"), dut.ap_clk,
                          dut.ap_rst_n, reset_active_level=False)
            for i in range(cus)
        ]
        self.buffer_offset = 0  # bytes into a page where each buffer starts

    async def reset(self) -> None:
        self.dut.ap_rst_n.value = 0
        self.memory.start(self.dut, self.dut.ap_clk, self.dut.ap_rst_n)
        await ClockCycles(self.clock, 8)
        self.dut.ap_rst_n.value = 1
        await ClockCycles(self.clock, 4)

    async def write_reg(self, cu: int, offset: int, value: int) -> None:
        await self.controls[cu].write_dword(offset, value & 0xFFFF_FFFF)

    async def read_reg(self, cu: int, offset: int) -> int:
        return int(await self.controls[cu].read_dword(offset))

    async def program(self, cu: int, sizes: dict[str, int], addresses: dict[str, int],
                      scalars: dict[str, float | int]) -> None:
        """Write CU ``cu``'s argument registers and enable its interrupt on ap_done (a
        stream argument has no register)."""
        for arg in self.iface.args:
            if arg.kind == "pointer":
                await self.write_reg(cu, arg.offset, addresses[arg.name])
                await self.write_reg(cu, arg.offset + 4, addresses[arg.name] >> 32)
            elif arg.name in scalars:
                await self.write_reg(cu, arg.offset, to_register(scalars[arg.name], arg.ctype))
            elif arg.kind == "scalar":
                await self.write_reg(cu, arg.offset, sizes[arg.name])  # a size argument
        await self.write_reg(cu, REG_GIE, 1)
        await self.write_reg(cu, REG_IER, 1)  # interrupt on ap_done

    async def acknowledge(self, cu: int) -> None:
        """After CU ``cu``'s interrupt: check ap_done and acknowledge, as XRT's handler does."""
        status = await self.read_reg(cu, REG_CTRL)
        if not status & CTRL_AP_DONE:
            raise SimFailure(f"cu{cu}: interrupt raised but CTRL={status:#x} lacks ap_done")
        await self.write_reg(cu, REG_ISR, 1)
        # ap_ctrl_chain: the CU holds its output until the host lets it continue.
        await self.write_reg(cu, REG_CTRL, CTRL_AP_CONTINUE)

    async def call(self, tensors: dict[str, np.ndarray], scalars: dict[str, float | int],
                   timeout_cycles: int) -> Run:
        """Run the kernel on ``tensors`` split across the CUs and wait for the last."""
        plan = self.plan
        out_dtype = plan.kernel.output_dtype(plan.dtype.name).numpy
        self.memory.reset()
        jobs = []
        for cu, share in enumerate(shares(plan, tensors, self.cus)):
            addresses = {}
            for name, data in share.inputs.items():
                addr = self.memory.alloc(data.nbytes, False, f"cu{cu}.{name}",
                                         self.buffer_offset)
                self.memory.write(addr, data)
                addresses[name] = addr
            count = share.count
            out_bytes = count * np.dtype(out_dtype).itemsize
            addr = self.memory.alloc(out_bytes, True, f"cu{cu}.{plan.kernel.output}",
                                     self.buffer_offset)
            self.memory.write(addr, np.full(out_bytes, POISON, dtype=np.uint8))
            addresses[plan.kernel.output] = addr
            jobs.append((cu, share.sizes, addresses, count))

        for cu, sizes, addresses, _ in jobs:
            await self.program(cu, sizes, addresses, scalars)

        # Start every CU in the same cycle (the wrapper counts from the first ap_start).
        starts = [self.controls[cu].init_write(REG_CTRL, CTRL_AP_START.to_bytes(4, "little"))
                  for cu, *_ in jobs]
        wall, cpu = time.perf_counter(), time.process_time()
        for event in starts:
            await event.wait()
        if not int(self.dut.all_done.value):
            done = RisingEdge(self.dut.all_done)
            if self.memory.per_cycle_python is False:
                _turbo(True)  # nothing but all_done or the timeout matters until then
            expired = Timer(timeout_cycles * CLOCK_NS, unit="ns")
            if await First(done, expired) is expired:
                raise SimFailure(await self._timeout_report(timeout_cycles, jobs))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        cycles = int(self.dut.run_cycles.value)

        outputs = []
        for cu, _, addresses, count in jobs:
            await self.acknowledge(cu)
            outputs.append(self.memory.read(addresses[plan.kernel.output], count, out_dtype))
        problems = self.memory.violations()
        if problems:
            raise SimFailure("AXI violation: " + "; ".join(problems[:5]))
        return Run(outputs, cycles, wall, cpu,
                   [sizes.get("n", sizes.get("rows", 0)) for _, sizes, _, _ in jobs])

    async def call_rows(self, tensors: dict[str, np.ndarray],
                        scalars: dict[str, float | int], timeout_cycles: int
                        ) -> tuple[Run, np.ndarray]:
        """Run a row kernel on whole tensors (:func:`row_shares`); returns the run and the
        output with its real shape, the rows' padding stripped."""
        kernel = self.plan.kernel
        main = np.asarray(tensors[kernel.inputs[0]])
        cols = main.shape[-1]
        pitch = row_pitch(self.plan, cols)
        run = await self.call(tensors, scalars, timeout_cycles)
        out_dtype = kernel.output_dtype(self.plan.dtype.name).numpy
        if kernel.layout.row_output:
            return run, np.concatenate(run.outputs).reshape(main.shape[:-1])
        if pitch == 0:
            return run, np.zeros(main.shape, dtype=out_dtype)  # no element to write
        parts = [o.reshape(-1, pitch)[:, :cols] for o in run.outputs]
        return run, np.concatenate(parts).reshape(main.shape)

    async def call_transform(self, tensors: dict[str, np.ndarray],
                             scalars: dict[str, float | int], timeout_cycles: int
                             ) -> tuple[Run, np.ndarray]:
        """Run a transform kernel on rows (:func:`transform_shares`); returns the run and
        the output rows, their padding stripped."""
        from fpgakern.ir import fft

        kernel = self.plan.kernel
        x = np.asarray(tensors[kernel.inputs[0]])
        n, _, out_pitch = transform_pitches(self.plan, x.shape[-1])
        out_cols = fft.output_length(kernel.transform, n)
        run = await self.call(tensors, scalars, timeout_cycles)
        parts = [o.reshape(-1, out_pitch)[:, :out_cols] for o in run.outputs]
        out_dtype = kernel.output_dtype(self.plan.dtype.name).numpy
        if not parts:
            return run, np.zeros((0, out_cols), dtype=out_dtype)
        return run, np.concatenate(parts)

    async def _timeout_report(self, timeout_cycles: int, jobs: list) -> str:
        states = []
        for cu, *_ in jobs:
            status = await self.read_reg(cu, REG_CTRL)
            states.append(f"cu{cu} CTRL={status:#04x}")
        return (f"no ap_done within {timeout_cycles} cycles ({', '.join(states)}); "
                f"memory: {self.memory.describe()}")
