"""The binary section payloads: IP_LAYOUT, MEM_TOPOLOGY, CONNECTIVITY, CLOCK_FREQ_TOPOLOGY.

Each payload is a count followed by an array of fixed-size elements; the count's width and
the array's offset differ per section (``vitis-flow.md`` §1.7-1.10: ip_layout and
mem_topology have 4 pad bytes after an int32 count, connectivity none, the clock table an
int16 count). The group sections v++ adds (ASK_GROUP_TOPOLOGY, ASK_GROUP_CONNECTIVITY)
share the layouts of MEM_TOPOLOGY and CONNECTIVITY.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, Self, TypeVar

from fpgakern.link.axlf import SECTION_IDS, Field, Layout, XclbinError, cstr

IP_TYPES = dict(enumerate((
    "IP_MB", "IP_KERNEL", "IP_DNASC", "IP_DDR4_CONTROLLER", "IP_MEM_DDR4", "IP_MEM_HBM",
    "IP_MEM_HBM_ECC", "IP_PS_KERNEL",
)))
IP_KERNEL = 1
IP_CONTROLS = dict(enumerate((
    "AP_CTRL_HS", "AP_CTRL_CHAIN", "AP_CTRL_NONE", "AP_CTRL_ME", "ACCEL_ADAPTER",
    "FAST_ADAPTER",
)))
# kernel.xml's hwControlProtocol -> enum IP_CONTROL (user_managed kernels have no ap_ctrl)
CONTROL_PROTOCOLS = {"ap_ctrl_hs": 0, "ap_ctrl_chain": 1, "ap_ctrl_none": 2,
                     "user_managed": 2}
MEM_TYPES = dict(enumerate((
    "MEM_DDR3", "MEM_DDR4", "MEM_DRAM", "MEM_STREAMING", "MEM_PREALLOCATED_GLOB", "MEM_ARE",
    "MEM_HBM", "MEM_BRAM", "MEM_URAM", "MEM_STREAMING_CONNECTION", "MEM_HOST",
    "MEM_PS_KERNEL",
)))
MEM_TYPE_IDS = {name: i for i, name in MEM_TYPES.items()}
CLOCK_TYPES = dict(enumerate(("UNUSED", "DATA", "KERNEL", "SYSTEM")))
CLOCK_TYPE_IDS = {name: i for i, name in CLOCK_TYPES.items()}

# ip_data.properties for IP_KERNEL: bit 0 interrupt enable, bits 1-7 interrupt id,
# bits 8-15 the IP_CONTROL protocol.
IP_INT_ENABLE_MASK, IP_INTERRUPT_ID_MASK, IP_INTERRUPT_ID_SHIFT = 0x0001, 0x00FE, 1
IP_CONTROL_MASK, IP_CONTROL_SHIFT = 0xFF00, 8
MAX_INTERRUPT_ID = IP_INTERRUPT_ID_MASK >> IP_INTERRUPT_ID_SHIFT
IP_NAME_MAX = 63  # m_name is char[64] with its NUL
NO_ADDRESS = 0xFFFF_FFFF_FFFF_FFFF  # ip_data.m_base_address of an IP without one

IP_DATA = Layout("ip_data", 80, (
    Field("m_type", 0, "I"),
    Field("properties", 4, "I"),
    Field("m_base_address", 8, "Q"),
    Field("m_name", 16, "64s", b""),
))
MEM_DATA = Layout("mem_data", 40, (
    Field("m_type", 0, "B"),
    Field("m_used", 1, "B"),
    Field("m_size", 8, "Q"),  # KB for memories; route_id for streaming
    Field("m_base_address", 16, "Q"),  # flow_id for streaming
    Field("m_tag", 24, "16s", b""),
))
CONNECTION = Layout("connection", 12, (
    Field("arg_index", 0, "i"),
    Field("m_ip_layout_index", 4, "i"),
    Field("mem_data_index", 8, "i"),
))
CLOCK_FREQ = Layout("clock_freq", 136, (
    Field("m_freq_Mhz", 0, "H"),
    Field("m_type", 2, "B"),
    Field("m_name", 8, "128s", b""),
))


@dataclass(frozen=True)
class ArrayLayout:
    """A section payload: ``count`` (of ``count_fmt``) at 0, elements from ``array_offset``."""

    name: str
    count_fmt: str
    array_offset: int
    element: Layout

    def pack(self, items: list[dict[str, Any]]) -> bytes:
        head = bytearray(self.array_offset)
        struct.pack_into("<" + self.count_fmt, head, 0, len(items))
        return bytes(head) + b"".join(self.element.pack(**item) for item in items)

    def unpack(self, payload: bytes) -> list[dict[str, Any]]:
        if len(payload) < self.array_offset:
            raise XclbinError(f"{self.name}: payload of {len(payload)} bytes is shorter than "
                              f"its {self.array_offset}-byte header")
        count = struct.unpack_from("<" + self.count_fmt, payload)[0]
        end = self.array_offset + count * self.element.size
        if count < 0 or end > len(payload):
            raise XclbinError(f"{self.name}: m_count {count} needs {end} bytes, "
                              f"the section has {len(payload)}")
        return [self.element.unpack(payload, self.array_offset + i * self.element.size)
                for i in range(count)]


class _Entry(Protocol):
    """What every section entry class offers: its layout, and its fields both ways."""

    SECTION: ClassVar[ArrayLayout]

    def fields(self) -> dict[str, Any]: ...

    @classmethod
    def from_fields(cls, f: dict[str, Any]) -> Self: ...

    def to_json(self) -> dict[str, str]: ...


E = TypeVar("E", bound=_Entry)


@dataclass(frozen=True)
class IpData:
    """One IP_LAYOUT entry; for CUs the name is ``kernel:instance``."""

    SECTION: ClassVar[ArrayLayout] = ArrayLayout("ip_layout", "i", 8, IP_DATA)

    name: str
    base_address: int
    type: int = IP_KERNEL
    properties: int = 0

    @classmethod
    def kernel(cls, name: str, base_address: int, *, interrupt: bool, interrupt_id: int,
               control: int) -> Self:
        props = (int(interrupt) | (interrupt_id << IP_INTERRUPT_ID_SHIFT) & IP_INTERRUPT_ID_MASK
                 | (control << IP_CONTROL_SHIFT) & IP_CONTROL_MASK)
        return cls(name, base_address, IP_KERNEL, props)

    @property
    def int_enable(self) -> bool:
        return bool(self.properties & IP_INT_ENABLE_MASK)

    @property
    def interrupt_id(self) -> int:
        return (self.properties & IP_INTERRUPT_ID_MASK) >> IP_INTERRUPT_ID_SHIFT

    @property
    def control(self) -> int:
        return (self.properties & IP_CONTROL_MASK) >> IP_CONTROL_SHIFT

    @property
    def kernel_name(self) -> str:
        return self.name.partition(":")[0]

    @property
    def instance(self) -> str:
        return self.name.partition(":")[2]

    def fields(self) -> dict[str, Any]:
        if len(self.name.encode()) > IP_NAME_MAX:
            raise ValueError(f"IP name {self.name!r} is longer than {IP_NAME_MAX} bytes")
        return {"m_type": self.type, "properties": self.properties,
                "m_base_address": self.base_address, "m_name": self.name.encode()}

    @classmethod
    def from_fields(cls, f: dict[str, Any]) -> Self:
        return cls(cstr(f["m_name"]), f["m_base_address"], f["m_type"], f["properties"])

    def to_json(self) -> dict[str, str]:
        """xclbinutil's JSON form (string values)."""
        out = {"m_type": IP_TYPES.get(self.type, str(self.type))}
        if self.type == IP_KERNEL:
            out |= {"m_int_enable": str(int(self.int_enable)),
                    "m_interrupt_id": str(self.interrupt_id),
                    "m_ip_control": IP_CONTROLS.get(self.control, str(self.control))}
        else:
            out["properties"] = hex(self.properties)
        # xclbinutil's spelling of the all-ones base of a CU without control port
        base = "not_used" if self.base_address == NO_ADDRESS else hex(self.base_address)
        return out | {"m_base_address": base, "m_name": self.name}


@dataclass(frozen=True)
class MemData:
    """One MEM_TOPOLOGY entry: a memory bank (sizes in KB) or a streaming endpoint."""

    SECTION: ClassVar[ArrayLayout] = ArrayLayout("mem_topology", "i", 8, MEM_DATA)

    tag: str
    type: int
    used: bool
    size_kb: int
    base_address: int

    @property
    def type_name(self) -> str:
        return MEM_TYPES.get(self.type, str(self.type))

    def fields(self) -> dict[str, Any]:
        return {"m_type": self.type, "m_used": int(self.used), "m_size": self.size_kb,
                "m_base_address": self.base_address, "m_tag": self.tag.encode()[:15]}

    @classmethod
    def from_fields(cls, f: dict[str, Any]) -> Self:
        return cls(cstr(f["m_tag"]), f["m_type"], bool(f["m_used"]), f["m_size"],
                   f["m_base_address"])

    def to_json(self) -> dict[str, str]:
        return {"m_type": self.type_name, "m_used": str(int(self.used)),
                "m_sizeKB": hex(self.size_kb), "m_tag": self.tag,
                "m_base_address": hex(self.base_address)}


@dataclass(frozen=True)
class Connection:
    """One CONNECTIVITY entry: argument ``arg_index`` of IP ``ip_layout_index`` -> a bank."""

    SECTION: ClassVar[ArrayLayout] = ArrayLayout("connectivity", "i", 4, CONNECTION)

    arg_index: int
    ip_layout_index: int
    mem_data_index: int

    def fields(self) -> dict[str, Any]:
        return {"arg_index": self.arg_index, "m_ip_layout_index": self.ip_layout_index,
                "mem_data_index": self.mem_data_index}

    @classmethod
    def from_fields(cls, f: dict[str, Any]) -> Self:
        return cls(f["arg_index"], f["m_ip_layout_index"], f["mem_data_index"])

    def to_json(self) -> dict[str, str]:
        return {k: str(v) for k, v in self.fields().items()}


@dataclass(frozen=True)
class ClockFreq:
    SECTION: ClassVar[ArrayLayout] = ArrayLayout("clock_freq_topology", "h", 2, CLOCK_FREQ)

    name: str
    freq_mhz: int
    type: int

    @property
    def type_name(self) -> str:
        return CLOCK_TYPES.get(self.type, str(self.type))

    def fields(self) -> dict[str, Any]:
        return {"m_freq_Mhz": self.freq_mhz, "m_type": self.type,
                "m_name": self.name.encode()[:127]}

    @classmethod
    def from_fields(cls, f: dict[str, Any]) -> Self:
        return cls(cstr(f["m_name"]), f["m_freq_Mhz"], f["m_type"])

    def to_json(self) -> dict[str, str]:
        return {"m_freq_Mhz": str(self.freq_mhz), "m_type": self.type_name,
                "m_name": self.name}


# Section kind -> the entry class its payload holds.
ENTRY_TYPES: dict[int, type[_Entry]] = {
    SECTION_IDS["IP_LAYOUT"]: IpData,
    SECTION_IDS["MEM_TOPOLOGY"]: MemData,
    SECTION_IDS["ASK_GROUP_TOPOLOGY"]: MemData,
    SECTION_IDS["CONNECTIVITY"]: Connection,
    SECTION_IDS["ASK_GROUP_CONNECTIVITY"]: Connection,
    SECTION_IDS["CLOCK_FREQ_TOPOLOGY"]: ClockFreq,
}


def encode(entries: list[E], entry_type: type[E]) -> bytes:
    return entry_type.SECTION.pack([e.fields() for e in entries])


def decode(payload: bytes, entry_type: type[E]) -> list[E]:
    return [entry_type.from_fields(f) for f in entry_type.SECTION.unpack(payload)]
