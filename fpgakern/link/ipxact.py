"""The IP-XACT ``component.xml`` of a kernel's packaged RTL, as ``package_xo`` expects it.

It describes what Vivado's ``ipx::package_project`` records for an RTL kernel
(``vitis-flow.md`` §2.3): the VLNV (equal to kernel.xml's), the clock, reset and interrupt
signals, one AXI4 master bus interface per ``m_axi_*`` port, the ``s_axi_control`` slave
with its register map (CTRL, GIER, IP_IER, IP_ISR, then one register per argument), one
AXI4-Stream bus interface per stream port (``axis``: a slave for a read_only port, a
master for a write_only one), and the RTL files. RTL port names follow the Vitis
RTL-kernel convention ``<interface>_<signal>`` in lower case (``m_axi_gmem0_awvalid``);
stream signals are ``<stream>_TDATA``, ``_TVALID``, ``_TREADY``, ``_TLAST`` as HLS names
them (fpgakern/interface.py). A free-running kernel (ap_ctrl_none) has neither control
slave nor interrupt.
"""

from __future__ import annotations

from dataclasses import dataclass

from fpgakern.interface import (
    CTRL_AP_CONTINUE,
    CTRL_AP_DONE,
    CTRL_AP_IDLE,
    CTRL_AP_READY,
    CTRL_AP_START,
    CTRL_AUTO_RESTART,
    REG_AUTO_RESTART_COUNTER,
    REG_CTRL,
    REG_GIE,
    REG_IER,
    REG_ISR,
    REG_MAILBOX_IN,
    REG_MAILBOX_OUT,
)
from fpgakern.link._render import render
from fpgakern.link.kernel_xml import KernelDesc

ADDR_BITS = 64  # Vitis requires 64-bit m_axi addresses

# AXI4 signals a memory-mapped master drives ("out") or receives ("in"); width None means
# the data width, "strb" the data width / 8.
AXI4_MASTER_SIGNALS: tuple[tuple[str, str, int | str | None], ...] = (
    ("AWVALID", "out", 1), ("AWREADY", "in", 1), ("AWADDR", "out", ADDR_BITS),
    ("AWLEN", "out", 8), ("AWSIZE", "out", 3), ("AWBURST", "out", 2), ("AWCACHE", "out", 4),
    ("AWPROT", "out", 3), ("WVALID", "out", 1), ("WREADY", "in", 1), ("WDATA", "out", None),
    ("WSTRB", "out", "strb"), ("WLAST", "out", 1), ("BVALID", "in", 1), ("BREADY", "out", 1),
    ("BRESP", "in", 2), ("ARVALID", "out", 1), ("ARREADY", "in", 1),
    ("ARADDR", "out", ADDR_BITS), ("ARLEN", "out", 8), ("ARSIZE", "out", 3),
    ("ARBURST", "out", 2), ("ARCACHE", "out", 4), ("ARPROT", "out", 3), ("RVALID", "in", 1),
    ("RREADY", "out", 1), ("RDATA", "in", None), ("RRESP", "in", 2), ("RLAST", "in", 1),
)
# AXI4-Lite signals as the control slave sees them ("in" = driven by the host side).
AXI4LITE_SLAVE_SIGNALS: tuple[tuple[str, str, int | str | None], ...] = (
    ("AWVALID", "in", 1), ("AWREADY", "out", 1), ("AWADDR", "in", "addr"),
    ("WVALID", "in", 1), ("WREADY", "out", 1), ("WDATA", "in", None), ("WSTRB", "in", "strb"),
    ("BVALID", "out", 1), ("BREADY", "in", 1), ("BRESP", "out", 2), ("ARVALID", "in", 1),
    ("ARREADY", "out", 1), ("ARADDR", "in", "addr"), ("RVALID", "out", 1),
    ("RREADY", "in", 1), ("RDATA", "out", None), ("RRESP", "out", 2),
)
# AXI4-Stream signals of a write_only (master) port ("out" = driven by the kernel); a
# read_only (slave) port has every direction reversed.
AXIS_MASTER_SIGNALS: tuple[tuple[str, str, int | str | None], ...] = (
    ("TDATA", "out", None), ("TVALID", "out", 1), ("TREADY", "in", 1), ("TLAST", "out", 1),
)
CTRL_FIELDS = (  # (name, bit, access) of the CTRL register, as package_xo scripts declare it
    ("AP_START", CTRL_AP_START, "read-write"), ("AP_DONE", CTRL_AP_DONE, "read-only"),
    ("AP_IDLE", CTRL_AP_IDLE, "read-only"), ("AP_READY", CTRL_AP_READY, "read-only"),
    ("AP_CONTINUE", CTRL_AP_CONTINUE, "read-write"),
    ("AUTO_RESTART", CTRL_AUTO_RESTART, "read-write"),
)


@dataclass(frozen=True)
class Signal:
    name: str
    direction: str  # in / out
    width: int


@dataclass(frozen=True)
class BusInterface:
    name: str
    mode: str  # master / slave
    data_width: int
    signals: tuple[tuple[str, Signal], ...]  # (logical AXI name, RTL port)
    bus_type: str = "aximm"  # or "axis" (AXI4-Stream)


@dataclass(frozen=True)
class Register:
    name: str
    offset: int
    size: int  # bits
    description: str
    fields: tuple[tuple[str, int, str], ...] = ()  # (name, bit offset, access)
    bus: str | None = None  # ASSOCIATED_BUSIF of a pointer register


def _bus(name: str, mode: str, width: int, addr_bits: int) -> BusInterface:
    table = AXI4_MASTER_SIGNALS if mode == "master" else AXI4LITE_SLAVE_SIGNALS
    signals = []
    for logical, direction, w in table:
        bits = w if isinstance(w, int) else {None: width, "strb": width // 8, "addr": addr_bits}[w]
        signals.append((logical, Signal(f"{name}_{logical.lower()}", direction, bits)))
    return BusInterface(name, mode, width, tuple(signals))


def _stream_bus(name: str, mode: str, width: int) -> BusInterface:
    """The axis bus of a stream port: master for write_only, slave for read_only."""
    master = mode == "write_only"
    flip = {"in": "out", "out": "in"}
    signals = tuple(
        (logical, Signal(f"{name}_{logical}", direction if master else flip[direction],
                         width if w is None else int(w)))
        for logical, direction, w in AXIS_MASTER_SIGNALS)
    return BusInterface(name, "master" if master else "slave", width, signals, "axis")


def registers(kernel: KernelDesc) -> tuple[Register, ...]:
    chain = kernel.hw_control_protocol == "ap_ctrl_chain"  # only chain has ap_continue
    ctrl = tuple((name, mask.bit_length() - 1, access) for name, mask, access in CTRL_FIELDS
                 if chain or mask != CTRL_AP_CONTINUE)
    regs = [
        Register("CTRL", REG_CTRL, 32, "Control signals", ctrl),
        Register("GIER", REG_GIE, 32, "Global Interrupt Enable Register"),
        Register("IP_IER", REG_IER, 32, "IP Interrupt Enable Register"),
        Register("IP_ISR", REG_ISR, 32, "IP Interrupt Status Register"),
    ]
    if kernel.mailbox != "none":  # a register kernel's (fpgakern.interface)
        regs += [Register("AUTO_RESTART_COUNTER", REG_AUTO_RESTART_COUNTER, 32,
                          "Auto-restart counter (runs left, 0: for ever)"),
                 Register("MAILBOX_IN", REG_MAILBOX_IN, 32, "Input mailbox write",
                          (("WRITE", 0, "read-write"), ("BUSY", 1, "read-only"))),
                 Register("MAILBOX_OUT", REG_MAILBOX_OUT, 32, "Output mailbox read",
                          (("READ", 0, "read-write"), ("BUSY", 1, "read-only")))]
    for a in kernel.args:
        if a.address_qualifier in (0, 1):
            regs.append(Register(a.name, a.offset, a.size * 8, f"argument {a.id}: {a.type}",
                                 bus=a.port if a.is_memory else None))
    return tuple(regs)


def component_xml(kernel: KernelDesc, rtl_files: list[str]) -> str:
    """component.xml for ``kernel``; ``rtl_files`` are paths relative to the IP folder."""
    vendor, library, name, version = kernel.vlnv.split(":")
    control_range = kernel.control_range or 0x1000
    buses = [_bus(p.name, p.mode, p.data_width, (control_range - 1).bit_length())
             if not p.is_stream else _stream_bus(p.name, p.mode, p.data_width)
             for p in kernel.ports]
    return render(
        "component.xml.j2", vendor=vendor, library=library, name=name, version=version,
        kernel=kernel, buses=buses, registers=registers(kernel), control_range=control_range,
        addr_bits=ADDR_BITS, files=sorted(rtl_files),
    )
