"""XRT's axlf container (``xclbin.h``): struct layouts as data, a writer and a checked reader.

Layouts are tables of (field, offset, format) with the offsets of ``xclbin.h``
(``shared/reference/vitis-flow.md`` §1.2-1.10), not ctypes classes, so that the tests can
hold them against the reference tables and the reader can check every offset before it
trusts it. All integers are little-endian.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fpgakern.errors import FpgakernError

MAGIC = b"xclbin2\0"
SECTION_ALIGN = 8  # every payload starts on an 8-byte boundary (xclbinutil's writer)
MAX_SECTIONS = 0x10000  # XCLBIN_MAX_NUM_SECTION


class XclbinError(FpgakernError):
    """A file that is not a well-formed xclbin: the message says what and where."""


@dataclass(frozen=True)
class Field:
    name: str
    offset: int
    fmt: str  # a struct format code without byte order: "Q", "16s", ...
    default: Any = 0

    @property
    def size(self) -> int:
        return struct.calcsize("<" + self.fmt)


@dataclass(frozen=True)
class Layout:
    """A C struct as data: named fields at fixed offsets; bytes no field covers are padding."""

    name: str
    size: int
    fields: tuple[Field, ...]

    def __post_init__(self) -> None:
        end = 0
        for f in sorted(self.fields, key=lambda f: f.offset):
            if f.offset < end or f.offset + f.size > self.size:
                raise ValueError(f"{self.name}.{f.name}: overlaps or exceeds the struct")
            end = f.offset + f.size

    def get(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def pack(self, **values: Any) -> bytes:
        unknown = set(values) - {f.name for f in self.fields}
        if unknown:
            raise KeyError(f"{self.name} has no field {sorted(unknown)[0]!r}")
        buf = bytearray(self.size)
        for f in self.fields:
            struct.pack_into("<" + f.fmt, buf, f.offset, values.get(f.name, f.default))
        return bytes(buf)

    def unpack(self, data: bytes | bytearray | memoryview, offset: int = 0) -> dict[str, Any]:
        if offset < 0 or offset + self.size > len(data):
            raise XclbinError(f"{self.name} at offset {offset:#x} needs {self.size} bytes, "
                              f"only {max(0, len(data) - offset)} remain")
        return {f.name: struct.unpack_from("<" + f.fmt, data, offset + f.offset)[0]
                for f in self.fields}


# struct axlf with its inline axlf_header, flattened to absolute offsets (§1.2, §1.3).
# Pre-2020 XRT had m_cipher[32] where m_signature_length + reserved are: the same bytes.
HEADER = Layout("axlf", 0x1C8, (
    Field("m_magic", 0x000, "8s", MAGIC),
    Field("m_signature_length", 0x008, "i", -1),  # -1: unsigned
    Field("reserved", 0x00C, "28s", b"\xff" * 28),
    Field("m_keyBlock", 0x028, "256s", b"\xff" * 256),
    Field("m_uniqueId", 0x128, "Q"),
    Field("m_length", 0x130, "Q"),
    Field("m_timeStamp", 0x138, "Q"),
    Field("m_featureRomTimeStamp", 0x140, "Q"),
    Field("m_versionPatch", 0x148, "H"),
    Field("m_versionMajor", 0x14A, "B"),
    Field("m_versionMinor", 0x14B, "B"),
    Field("m_mode", 0x14C, "H"),
    Field("m_actionMask", 0x14E, "H"),
    Field("m_interface_uuid", 0x150, "16s", b""),
    Field("m_platformVBNV", 0x160, "64s", b""),
    Field("uuid", 0x1A0, "16s", b""),
    Field("m_debug_bin", 0x1B0, "16s", b""),
    Field("m_numSections", 0x1C0, "I"),
))
AXLF_HEADER_OFFSET = 0x130  # where struct axlf_header (152 bytes) starts inside struct axlf
SECTION_HEADER = Layout("axlf_section_header", 40, (
    Field("m_sectionKind", 0, "I"),
    Field("m_sectionName", 4, "16s", b""),
    Field("m_sectionOffset", 24, "Q"),
    Field("m_sectionSize", 32, "Q"),
))

# enum axlf_section_kind (§1.6)
SECTION_KINDS: dict[int, str] = dict(enumerate((
    "BITSTREAM", "CLEARING_BITSTREAM", "EMBEDDED_METADATA", "FIRMWARE", "DEBUG_DATA",
    "SCHED_FIRMWARE", "MEM_TOPOLOGY", "CONNECTIVITY", "IP_LAYOUT", "DEBUG_IP_LAYOUT",
    "DESIGN_CHECK_POINT", "CLOCK_FREQ_TOPOLOGY", "MCS", "BMC", "BUILD_METADATA",
    "KEYVALUE_METADATA", "USER_METADATA", "DNA_CERTIFICATE", "PDI", "BITSTREAM_PARTIAL_PDI",
    "PARTITION_METADATA", "EMULATION_DATA", "SYSTEM_METADATA", "SOFT_KERNEL", "ASK_FLASH",
    "AIE_METADATA", "ASK_GROUP_TOPOLOGY", "ASK_GROUP_CONNECTIVITY", "SMARTNIC",
    "AIE_RESOURCES", "OVERLAY", "VENDER_METADATA", "AIE_PARTITION", "IP_METADATA",
    "AIE_RESOURCES_BIN", "AIE_TRACE_METADATA",
)))
SECTION_IDS: dict[str, int] = {name: kind for kind, name in SECTION_KINDS.items()}

# enum XCLBIN_MODE (§1.5) and the v++ target that selects it
MODES: dict[int, str] = dict(enumerate((
    "XCLBIN_FLAT", "XCLBIN_PR", "XCLBIN_TANDEM_STAGE2", "XCLBIN_TANDEM_STAGE2_WITH_PR",
    "XCLBIN_HW_EMU", "XCLBIN_SW_EMU", "XCLBIN_HW_EMU_PR",
)))
TARGET_MODES = {"hw": 0, "hw_emu": 4, "sw_emu": 5}


# xclbinutil's names of the group sections (--dump-section GROUP_TOPOLOGY:JSON:...)
SECTION_ALIASES = {"GROUP_TOPOLOGY": "ASK_GROUP_TOPOLOGY",
                   "GROUP_CONNECTIVITY": "ASK_GROUP_CONNECTIVITY"}


def section_kind(name: str) -> int:
    try:
        return SECTION_IDS[SECTION_ALIASES.get(name.upper(), name.upper())]
    except KeyError:
        raise XclbinError(f"unknown section {name!r} (known: "
                          f"{', '.join(SECTION_IDS)})") from None


def section_name(kind: int) -> str:
    return SECTION_KINDS.get(kind, f"UNKNOWN({kind})")


def cstr(raw: bytes) -> str:
    """A fixed-size NUL-terminated char array as text."""
    return raw.split(b"\0", 1)[0].decode("utf-8", errors="replace")


def align(offset: int, to: int = SECTION_ALIGN) -> int:
    return -(-offset // to) * to


@dataclass(frozen=True)
class Section:
    kind: int
    payload: bytes
    name: str = ""  # m_sectionName, free text (16 bytes)
    offset: int = 0  # filled in by the reader

    @property
    def kind_name(self) -> str:
        return section_name(self.kind)


@dataclass(frozen=True)
class Axlf:
    """A parsed container: the header fields, its sections, and what was odd but readable."""

    header: dict[str, Any]
    sections: tuple[Section, ...]
    warnings: tuple[str, ...] = field(default=())

    def find(self, kind: int) -> Section | None:
        """The section of ``kind``; for duplicates the last one, as XRT and PYNQ take it."""
        found = [s for s in self.sections if s.kind == kind]
        return found[-1] if found else None


def write(sections: Iterable[Section], **header: Any) -> bytes:
    """An xclbin image: header, section headers, then 8-byte aligned payloads.

    ``header`` takes any HEADER field; m_length and m_numSections are computed.
    """
    sections = list(sections)
    table_end = HEADER.size + SECTION_HEADER.size * len(sections)
    body = bytearray()
    headers = bytearray()
    offset = table_end
    for s in sections:
        start = align(offset)
        body += b"\0" * (start - offset) + s.payload
        headers += SECTION_HEADER.pack(m_sectionKind=s.kind, m_sectionName=s.name.encode()[:15],
                                       m_sectionOffset=start, m_sectionSize=len(s.payload))
        offset = start + len(s.payload)
    fixed = HEADER.pack(**{**header, "m_length": offset, "m_numSections": len(sections)})
    return fixed + bytes(headers) + bytes(body)


def read(data: bytes) -> Axlf:
    """Parse and check an xclbin image; any structural fault raises one XclbinError."""
    if len(data) < HEADER.size:
        raise XclbinError(f"truncated: {len(data)} bytes, an axlf header needs {HEADER.size}")
    header = HEADER.unpack(data)
    # XRT compares 7 characters (strncmp "xclbin2"); zocl all 8: demand the stricter form.
    if header["m_magic"] != MAGIC:
        raise XclbinError(f"bad magic {header['m_magic']!r}: not an xclbin2 (axlf) file")
    count = header["m_numSections"]
    if count > MAX_SECTIONS:
        raise XclbinError(f"m_numSections is {count}, above XRT's limit {MAX_SECTIONS}")
    table_end = HEADER.size + SECTION_HEADER.size * count
    if table_end > len(data):
        raise XclbinError(f"truncated: {count} section headers end at {table_end:#x}, "
                          f"the file has {len(data):#x} bytes")
    warnings: list[str] = []
    length = header["m_length"]
    if length > len(data):
        raise XclbinError(f"truncated: the header's m_length is {length} bytes, "
                          f"the file has {len(data)}")
    if length < len(data):
        warnings.append(f"{len(data) - length} bytes after m_length ({length}) are ignored")
    sections: list[Section] = []
    spans: list[tuple[int, int, int]] = []
    for i in range(count):
        sh = SECTION_HEADER.unpack(data, HEADER.size + SECTION_HEADER.size * i)
        kind, offset, size = sh["m_sectionKind"], sh["m_sectionOffset"], sh["m_sectionSize"]
        what = f"section {i} ({section_name(kind)})"
        if offset == 0 and size == 0:  # "segments not present: offset and length 0"
            sections.append(Section(kind, b"", cstr(sh["m_sectionName"]), 0))
            continue
        if offset + size > length:
            raise XclbinError(f"{what}: payload {offset:#x}+{size:#x} runs past the end "
                              f"of the file ({length:#x})")
        if offset < table_end:
            raise XclbinError(f"{what}: payload at {offset:#x} overlaps the headers "
                              f"(they end at {table_end:#x})")
        if offset % SECTION_ALIGN:
            warnings.append(f"{what}: payload at {offset:#x} is not 8-byte aligned")
        for j, other_start, other_end in spans:
            if offset < other_end and other_start < offset + size:
                raise XclbinError(f"{what}: payload {offset:#x}..{offset + size:#x} overlaps "
                                  f"section {j} ({other_start:#x}..{other_end:#x})")
        spans.append((i, offset, offset + size))
        sections.append(Section(kind, bytes(data[offset:offset + size]),
                                cstr(sh["m_sectionName"]), offset))
    return Axlf(header, tuple(sections), tuple(warnings))
