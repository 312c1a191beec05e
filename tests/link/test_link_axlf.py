"""The axlf container: layouts against the reference tables, writer/reader round trip."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from fpgakern.link import axlf, sections
from fpgakern.link.axlf import HEADER, SECTION_HEADER, Section, XclbinError

REFERENCE = Path("/work/shared/reference/vitis-flow.md")

# (heading of the reference table, layout, what the table's first column counts from)
TABLES = [
    ("### 1.2", HEADER, 0),
    ("### 1.3", HEADER, 0),  # the "Abs off" column
    ("### 1.4", SECTION_HEADER, 0),
    ("### 1.7", sections.IP_DATA, 0),
    ("### 1.8", sections.MEM_DATA, 0),
    ("### 1.9", sections.CONNECTION, 0),
]


def _rows(text: str, heading: str) -> list[list[str]]:
    start = text.index(heading)
    end = text.index("\n### ", start + 1)
    rows = []
    for line in text[start:end].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and re.match(r"^(0x[0-9A-Fa-f]+|\d+)$", cells[0]):
            rows.append(cells)
    return rows


@pytest.mark.skipif(not REFERENCE.is_file(), reason="shared reference not on this machine")
@pytest.mark.parametrize(("heading", "layout", "base"), TABLES, ids=[t[0] for t in TABLES])
def test_offsets_match_reference_tables(heading, layout, base):
    text = REFERENCE.read_text()
    checked = 0
    for cells in _rows(text, heading):
        offset = int(cells[0], 0)
        # 1.3 has Abs off | Rel off | Size | Field; the others Offset | Size | Field
        size_cell, field_cell = (cells[2], cells[3]) if heading == "### 1.3" else cells[1:3]
        names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", field_cell))
        matches = [f for f in layout.fields if f.name in names]
        if not matches:
            continue
        field = matches[0]
        assert field.offset + base == offset, (heading, field.name)
        assert field.size == int(size_cell, 0), (heading, field.name)
        checked += 1
    assert checked >= {"### 1.2": 5, "### 1.3": 12, "### 1.4": 4}.get(heading, 3)


def test_struct_sizes_match_xclbin_h_static_asserts():
    assert HEADER.size == 456 and HEADER.size - axlf.AXLF_HEADER_OFFSET == 152
    assert SECTION_HEADER.size == 40
    assert (sections.IP_DATA.size, sections.MEM_DATA.size, sections.CONNECTION.size,
            sections.CLOCK_FREQ.size) == (80, 40, 12, 136)
    assert sections.IpData.SECTION.array_offset == 8
    assert sections.MemData.SECTION.array_offset == 8
    assert sections.Connection.SECTION.array_offset == 4
    assert sections.ClockFreq.SECTION.array_offset == 2


def test_header_defaults_are_an_unsigned_xclbin2():
    raw = HEADER.pack()
    assert raw[:8] == b"xclbin2\0"
    assert struct.unpack_from("<i", raw, 8)[0] == -1
    assert raw[0x0C:0x128] == b"\xff" * (0x128 - 0x0C)


def test_round_trip_aligns_payloads_and_counts_length():
    payloads = [Section(2, b"<project/>", "meta"), Section(6, b"x" * 13), Section(8, b"")]
    image = axlf.write(payloads, m_mode=4, uuid=bytes(range(16)),
                       m_platformVBNV=b"xilinx_u250")
    parsed = axlf.read(image)
    assert parsed.header["m_length"] == len(image)
    assert parsed.header["m_numSections"] == 3
    assert parsed.header["m_mode"] == 4 and parsed.header["uuid"] == bytes(range(16))
    assert [(s.kind, s.payload, s.name) for s in parsed.sections] == \
        [(s.kind, s.payload, s.name) for s in payloads]
    first = parsed.sections[0].offset
    assert first == HEADER.size + 3 * SECTION_HEADER.size
    assert all(s.offset % 8 == 0 for s in parsed.sections if s.payload)
    assert parsed.warnings == ()


def test_section_codecs_round_trip():
    ips = [sections.IpData.kernel("add_f32:add_f32_1", 0x1800000, interrupt=True,
                                  interrupt_id=5, control=1)]
    assert ips[0].properties == 0x1 | (5 << 1) | (1 << 8)
    mems = [sections.MemData("DDR[0]", 1, True, 16 << 20, 0)]
    conns = [sections.Connection(0, 0, 0), sections.Connection(2, 0, 0)]
    clocks = [sections.ClockFreq("KERNEL_CLK", 500, 2)]
    for entries, kind in ((ips, sections.IpData), (mems, sections.MemData),
                          (conns, sections.Connection), (clocks, sections.ClockFreq)):
        assert sections.decode(sections.encode(entries, kind), kind) == entries
    assert len(sections.encode(conns, sections.Connection)) == 4 + 2 * 12


@pytest.mark.parametrize(("data", "message"), [
    (b"xclbin2\0" + b"\0" * 100, "truncated"),
    (b"xclbin1\0" + b"\0" * 600, "bad magic"),
])
def test_reader_rejects_broken_headers(data, message):
    with pytest.raises(XclbinError, match=message):
        axlf.read(data)


def _patched(image: bytes, offset: int, fmt: str, value: int) -> bytes:
    buf = bytearray(image)
    struct.pack_into(fmt, buf, offset, value)
    return bytes(buf)


def test_reader_rejects_offsets_past_end_and_overlaps():
    image = axlf.write([Section(2, b"a" * 16), Section(6, b"b" * 16)])
    sh1 = HEADER.size + SECTION_HEADER.size  # the second section header
    with pytest.raises(XclbinError, match="past the end"):
        axlf.read(_patched(image, sh1 + 24, "<Q", len(image) + 8))
    first = axlf.read(image).sections[0].offset
    with pytest.raises(XclbinError, match="overlaps section 0"):
        axlf.read(_patched(image, sh1 + 24, "<Q", first + 8))
    with pytest.raises(XclbinError, match="overlaps the headers"):
        axlf.read(_patched(image, sh1 + 24, "<Q", 0x100))
    with pytest.raises(XclbinError, match="m_length"):
        axlf.read(_patched(image, 0x130, "<Q", len(image) + 1))
    with pytest.raises(XclbinError, match="section headers"):
        axlf.read(_patched(image, 0x1C0, "<I", 1000))


def test_section_count_past_payload_is_an_error():
    payload = struct.pack("<i4x", 3) + bytes(80)  # claims 3 entries, holds 1
    with pytest.raises(XclbinError, match="m_count 3"):
        sections.decode(payload, sections.IpData)
