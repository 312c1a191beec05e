"""Where a call runs: emulation models (sw_emu, hw_emu) or a card through pyxrt (hw).

Each target opens the compute units of one variant and runs prepared shares on them: all
CUs started first, then each waited for, as the generated C++ host does with XRT. On
hw_emu the CUs started by one call run in lockstep while any of them is waited for (one
cycle of every running CU per emulated cycle), and with a :class:`~fpgakern.runtime.memory.BankMap`
each port sits on its bank, whose bytes per cycle all ports placed on it share.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import numpy as np

from fpgakern.errors import ToolError, UsageError
from fpgakern.interface import SIZE_ARG, interface
from fpgakern.ir.dtypes import DTYPES
from fpgakern.runtime import host, models
from fpgakern.runtime._abi import ModelBank, ModelCU
from fpgakern.runtime.memory import BankMap
from fpgakern.runtime.program import ProgramVariant

TARGETS = ("sw_emu", "hw_emu", "hw")
# Device addresses of the buffers an emulated CU sees: above 4 GiB (a kernel that drops
# the pointer's high word fails) and far apart (a stray access hits no other buffer).
DEVICE_BASE = 1 << 36


class Target(Protocol):
    name: str
    compute_units: int

    def run(self, prepared: host.Prepared) -> list[int | None]: ...


class EmulationTarget:
    """sw_emu or hw_emu: a model library with one :class:`ModelCU` per compute unit."""

    def __init__(self, variant: ProgramVariant, name: str, read_latency: int = 64,
                 write_latency: int = 64, banks: BankMap | None = None) -> None:
        self.name = name
        self.variant = variant
        self.library: Path = models.model(variant.plan, name, variant.hls_dir).path
        self.cus = [ModelCU(self.library, f"{variant.top}:{cu}", read_latency, write_latency)
                    for cu in variant.cu_names]
        self.compute_units = len(self.cus)
        self.iface = interface(variant.plan)
        # hw_emu's banks with a bandwidth (None: no limit), the ports placed on them.
        self.bank_map = banks if name == "hw_emu" else None
        self.banks: dict[int, ModelBank] = {}
        if self.bank_map is not None:
            for (cu, bundle), index in sorted(self.bank_map.placement.items()):
                rate = self.bank_map.bytes_per_cycle[index]
                if rate is None or cu >= len(self.cus):
                    continue
                if index not in self.banks:
                    self.banks[index] = ModelBank(self.library, rate)
                self.cus[cu].place(bundle, self.banks[index])

    def bank_bytes(self) -> dict[str, int]:
        """Bytes each limited bank has moved, by tag (hw_emu with a bank map)."""
        if self.bank_map is None:
            return {}
        return {self.bank_map.tags[i]: bank.bytes for i, bank in sorted(self.banks.items())}

    def run(self, prepared: host.Prepared) -> list[int | None]:
        plan = prepared.plan
        pointers = self.iface.pointers
        for share in prepared.shares:
            cu = self.cus[share.cu]
            cu.unmap_all()
            # By name: the C order (the spec's args) may put the output first.
            names = (*plan.kernel.inputs, plan.kernel.output)
            buffers = dict(zip(names, [*share.inputs, share.output], strict=True))
            for i, arg in enumerate(pointers):
                buf = buffers[arg.name]
                address = DEVICE_BASE * (i + 1)
                cu.map(address, buf, writable=arg.direction == "out")
                cu.write(arg.offset, address & 0xFFFF_FFFF)
                cu.write(arg.offset + 4, address >> 32)
            for name, value in host.register_values(prepared, share).items():
                cu.write(self.iface.arg(name).offset, value)
            cu.start()
        cycles: list[int | None] = []
        # hw_emu: a wait advances every CU of the call that is still running, together.
        running = [self.cus[share.cu] for share in prepared.shares] \
            if self.name == "hw_emu" else None
        for share in prepared.shares:
            ran = self.cus[share.cu].wait(host.timeout_cycles(plan, share), running)
            cycles.append(ran if self.name == "hw_emu" else None)
        return cycles


class XrtTarget:
    """hw: a card through XRT's Python binding (pyxrt), one xrt.kernel per CU."""

    name = "hw"

    def __init__(self, variant: ProgramVariant, xclbin: Path | None, device_index: int = 0) -> None:
        try:
            import pyxrt
        except ImportError:
            raise ToolError("target hw needs XRT's Python binding pyxrt: install XRT and "
                            "source /opt/xilinx/xrt/setup.sh (or use sw_emu / hw_emu)") from None
        if xclbin is None:
            raise UsageError("target hw runs an .xclbin: link one (fpgakern link ... "
                             "--toolchain vitis) and open it instead of a build folder")
        self.pyxrt = pyxrt
        self.variant = variant
        self.device = pyxrt.device(device_index)
        self.uuid = self.device.load_xclbin(pyxrt.xclbin(str(xclbin)))
        # One kernel object per CU: each CU's buffers sit in its own bank, and group_id
        # of a kernel spanning CUs with different banks is ambiguous (vitis-flow.md §6.1).
        self.kernels = [pyxrt.kernel(self.device, self.uuid, f"{variant.top}:{{{cu}}}",
                                     pyxrt.kernel.shared) for cu in variant.cu_names]
        self.compute_units = len(self.kernels)
        self.iface = interface(variant.plan)

    def run(self, prepared: host.Prepared) -> list[int | None]:
        pyxrt = self.pyxrt
        to_dev = pyxrt.xclBOSyncDirection.XCL_BO_SYNC_BO_TO_DEVICE
        from_dev = pyxrt.xclBOSyncDirection.XCL_BO_SYNC_BO_FROM_DEVICE
        runs = []
        for share in prepared.shares:
            kernel = self.kernels[share.cu]
            names = (*prepared.plan.kernel.inputs, prepared.plan.kernel.output)
            buffers = dict(zip(names, [*share.inputs, share.output], strict=True))
            bos = {}
            for arg in self.iface.pointers:
                buf = buffers[arg.name]
                bo = pyxrt.bo(self.device, buf.nbytes, pyxrt.bo.normal, kernel.group_id(arg.id))
                if arg.direction == "in":
                    bo.write(buf.view(np.uint8), 0)
                    bo.sync(to_dev, buf.nbytes, 0)
                bos[arg.name] = bo
            values = host.register_values(prepared, share)
            # Positional, in the C order (interface(): the spec's args).
            call = [bos[a.name] if a.kind == "pointer" else self._scalar(a.name, values[a.name])
                    for a in self.iface.args]
            runs.append((kernel(*call), bos[prepared.plan.kernel.output], share))
        for run, out_bo, share in runs:
            run.wait()
            out_bo.sync(from_dev, share.output.nbytes, 0)
            share.output.view(np.uint8)[:] = np.frombuffer(
                out_bo.read(share.output.nbytes, 0), dtype=np.uint8)
        return [None] * len(runs)

    def _scalar(self, name: str, bits: int) -> object:
        if name in (SIZE_ARG, *self.variant.plan.kernel.size_args) or \
                not DTYPES[self.variant.plan.dtype.scalar_dtype].is_float:
            return int(np.array(bits, dtype=np.uint32).view(np.int32))
        return float(np.array(bits, dtype=np.uint32).view(np.float32))


def open_target(variant: ProgramVariant, name: str, xclbin: Path | None,
                read_latency: int = 64, banks: BankMap | None = None) -> Target:
    if name in models.TARGETS:
        return EmulationTarget(variant, name, read_latency, banks=banks)
    if name == "hw":
        return XrtTarget(variant, xclbin)
    raise UsageError(f"unknown target {name!r} (targets: {', '.join(TARGETS)})")
