"""The hardware interface of a plan: arguments, control registers and AXI ports.

This is the contract every layer shares (HLS C++, RTL, kernel.xml, xclbin metadata,
host code), computed once here with the Vitis HLS conventions
(``shared/reference/vitis-flow.md`` §2.2, §4): pointers become 64-bit ``m_axi`` masters
with their address in ``s_axi_control``; scalars and the element count live in
``s_axi_control``; registers start at 0x10 and each argument is followed by one reserved
word (a pointer advances 0x0C, a 32-bit scalar 0x08). A stream argument is an AXI4-Stream
port of its own name (``axis``; RTL signals ``<name>_TDATA``, ``_TVALID``, ``_TREADY``,
``_TLAST``) and takes no register. A free-running kernel (``ap_ctrl_none``) has no
control port at all: it has no scalars and no element count.

A register kernel (``control: auto_restart``) has the auto-restart counter and the two
mailbox control registers HLS adds with ``s_axilite_auto_restart_counter`` and
``s_axilite_mailbox both`` at 0x10, 0x14 and 0x18 (UG1399, "S_AXILITE Control Register
Map"; XRT's xrt_kernel.cpp reads them there), so its arguments start at 0x1C: its scalars,
then its results, each a 32-bit register and a reserved word, in the signature's order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from fpgakern.ir.dtypes import DTYPES
from fpgakern.ladder import Plan

CONTROL_PORT = "s_axi_control"
CONTROL_RANGE = 0x1000  # bytes of AXI-Lite address space a CU occupies
FIRST_ARG_OFFSET = 0x10
HW_CONTROL_PROTOCOL = "ap_ctrl_chain"  # Vitis HLS's default block protocol
FREE_RUNNING_PROTOCOL = "ap_ctrl_none"  # no control registers: runs from reset
SIZE_ARG = "n"  # every kernel takes its element count last
CONTRACTION_UNIT_ARGS = ("unit", "units")  # after a multi-CU contraction's sizes

# Control register map (CTRL bits and the interrupt registers), as HLS generates it.
REG_CTRL, REG_GIE, REG_IER, REG_ISR = 0x00, 0x04, 0x08, 0x0C
CTRL_AP_START, CTRL_AP_DONE, CTRL_AP_IDLE, CTRL_AP_READY = 0x01, 0x02, 0x04, 0x08
CTRL_AP_CONTINUE, CTRL_AUTO_RESTART = 0x10, 0x80
# A register kernel's: the auto-restart counter (restarts left, 0 for ever) and the
# mailboxes. In each mailbox register, bit 0 is the host's (1: the input copy is written,
# or: the results are wanted) and bit 1 reads 1 while the kernel has not yet taken the
# inputs, or not yet written the results, at the start or the end of a run.
REG_AUTO_RESTART_COUNTER, REG_MAILBOX_IN, REG_MAILBOX_OUT = 0x10, 0x14, 0x18
MAILBOX_REQUEST, MAILBOX_BUSY = 0x1, 0x2
MAILBOX_FIRST_ARG_OFFSET = 0x1C


@dataclass(frozen=True)
class Arg:
    """One kernel argument as kernel.xml and the xclbin metadata describe it."""

    name: str
    id: int
    kind: Literal["pointer", "scalar", "stream"]
    ctype: str  # the C type: "float*", "float", "int", "int&" (a register kernel's
    # result), "stream<ap_axiu<32, 0, 0, 0> >&"
    port: str  # "m_axi_gmem0" for pointers, "s_axi_control" for scalars, a stream's name
    offset: int  # register offset in s_axi_control (0 for a stream)
    size: int  # bytes the value occupies in the register map (0 for a stream)
    direction: Literal["in", "out"] | None = None  # pointers, streams, scalar results

    @property
    def address_qualifier(self) -> int:
        """kernel.xml's addressQualifier: 1 global memory pointer, 0 scalar, 4 stream."""
        return {"pointer": 1, "scalar": 0, "stream": 4}[self.kind]

    @property
    def host_size(self) -> int:
        # HLS writes hostSize 0x8 for an axis argument (the size of a stream handle).
        return 8 if self.kind == "stream" else self.size

    @property
    def bundle(self) -> str | None:
        return self.port.removeprefix("m_axi_") if self.kind == "pointer" else None


@dataclass(frozen=True)
class AxiPort:
    """An AXI interface of the kernel."""

    name: str
    mode: Literal["master", "slave", "read_only", "write_only"]
    data_width: int
    range: int  # 0 for a stream

    @property
    def port_type(self) -> str:
        return "stream" if self.is_stream else "addressable"

    @property
    def is_stream(self) -> bool:
        return self.mode in ("read_only", "write_only")


@dataclass(frozen=True)
class KernelInterface:
    top: str
    args: tuple[Arg, ...]
    ports: tuple[AxiPort, ...]
    hw_control_protocol: str = HW_CONTROL_PROTOCOL
    mailbox: bool = False  # a register kernel's auto-restart counter and mailboxes

    @property
    def pointers(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.kind == "pointer")

    @property
    def scalars(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.kind == "scalar")

    @property
    def streams(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.kind == "stream")

    @property
    def masters(self) -> tuple[AxiPort, ...]:
        return tuple(p for p in self.ports if p.mode == "master")

    @property
    def has_control(self) -> bool:
        """Whether the kernel has its s_axi_control port (a free-running one has none)."""
        return any(p.name == CONTROL_PORT for p in self.ports)

    def arg(self, name: str) -> Arg:
        for a in self.args:
            if a.name == name:
                return a
        raise KeyError(name)


def _pointer_ctype(plan: Plan, pointer: str) -> str:
    """A pointer's element type in host C++ (Microarchitecture.pointer_dtype): the
    variant's dtype for an input, the kernel's result type for the output (rfft's
    complex64, irfft's and complex64 abs's float32, argmax's int64)."""
    return plan.arch.pointer_dtype(pointer).host_ctype.replace("int32_t", "int")


def stream_ctype(bits: int) -> str:
    """A stream argument's C type as HLS writes it into kernel.xml."""
    return f"stream<ap_axiu<{bits}, 0, 0, 0> >&"


def interface(plan: Plan) -> KernelInterface:
    """The interface of ``plan``'s kernel: C argument order is the spec's ``args``, by
    default inputs, output, scalars, then the size arguments (``n``; a shaped kernel's are
    ``Kernel.size_args``). Inputs and the
    output are pointers, or streams (``Kernel.streams``) that take no register."""
    # The host's spelling (complex64: std::complex<float>); a complex64 kernel's scalars
    # are float.
    scalar_ctype = DTYPES[plan.dtype.scalar_dtype].host_ctype.replace("int32_t", "int")
    if plan.kernel.auto_restart:
        return _register_interface(plan, scalar_ctype)
    args: dict[str, Arg] = {}
    stream_ports: list[AxiPort] = []
    for name in (*plan.kernel.inputs, *plan.kernel.outputs):
        direction: Literal["in", "out"] = "out" if name in plan.kernel.outputs else "in"
        if name in plan.kernel.streams:
            bits = plan.arch.pointer_bits(name)
            args[name] = Arg(name, 0, "stream", stream_ctype(bits), name, 0, 0, direction)
            stream_ports.append(AxiPort(name, "write_only" if direction == "out"
                                        else "read_only", bits, 0))
            continue
        port = f"m_axi_{plan.arch.bundle(name)}"
        args[name] = Arg(name, 0, "pointer", f"{_pointer_ctype(plan, name)}*", port, 0, 8,
                         direction)
    for s in plan.kernel.scalars:
        args[s.name] = Arg(s.name, 0, "scalar", scalar_ctype, CONTROL_PORT, 0, 4)
    for name in plan.kernel.size_args:  # (SIZE_ARG,) but shaped kinds
        args[name] = Arg(name, 0, "scalar", "int", CONTROL_PORT, 0, 4)
    order = plan.kernel.arguments
    if plan.kernel.contraction is not None and plan.rung.multi_cu:
        # A contraction's compute units split the output tiles among themselves: unit u
        # of `units` takes every units-th tile (backends/hls/matrix.py).
        for name in CONTRACTION_UNIT_ARGS:
            args[name] = Arg(name, 0, "scalar", "int", CONTROL_PORT, 0, 4)
        order = (*order, *CONTRACTION_UNIT_ARGS)
    # Ids and registers follow the C signature's order (Kernel.arguments: the spec's
    # ``args``, or inputs, output, scalars, sizes): a pointer advances 0x0C, a 32-bit
    # scalar 0x08, a stream nothing.
    ordered: list[Arg] = []
    offset = FIRST_ARG_OFFSET
    for name in order:
        arg = args[name]
        if arg.kind == "stream":
            ordered.append(replace(arg, id=len(ordered)))
            continue
        ordered.append(replace(arg, id=len(ordered), offset=offset))
        offset += 0x0C if arg.kind == "pointer" else 0x08
    masters = tuple(
        AxiPort(f"m_axi_{bundle}", "master", plan.arch.bundle_bits(bundle), 0xFFFF_FFFF_FFFF_FFFF)
        for bundle in plan.arch.bundles
    )
    if plan.kernel.free_running:
        return KernelInterface(plan.top, tuple(ordered), (*masters, *stream_ports),
                               FREE_RUNNING_PROTOCOL)
    control = AxiPort(CONTROL_PORT, "slave", 32, CONTROL_RANGE)
    return KernelInterface(plan.top, tuple(ordered), (*masters, *stream_ports, control))


def _register_interface(plan: Plan, ctype: str) -> KernelInterface:
    """A register kernel's: scalars and results from 0x1C in the signature's order, the
    control port only."""
    args = {s.name: Arg(s.name, 0, "scalar", ctype, CONTROL_PORT, 0, 4)
            for s in plan.kernel.scalars}
    args |= {name: Arg(name, 0, "scalar", f"{ctype}&", CONTROL_PORT, 0, 4, "out")
             for name in plan.kernel.outputs}
    ordered = tuple(replace(args[name], id=i, offset=MAILBOX_FIRST_ARG_OFFSET + 8 * i)
                    for i, name in enumerate(plan.kernel.arguments))
    control = AxiPort(CONTROL_PORT, "slave", 32, CONTROL_RANGE)
    return KernelInterface(plan.top, ordered, (control,), mailbox=True)
