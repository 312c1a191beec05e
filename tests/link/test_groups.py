"""GROUP_TOPOLOGY and GROUP_CONNECTIVITY (issue 18): the memory bank groups v++'s xclbins
carry, written as xclbinutil writes them (fpgakern/link/groups.py), for arguments on a
bank range (``sp=add_f32_1.a:HBM[0:3]``) and on single banks."""

from __future__ import annotations

import json
import struct
from dataclasses import replace

import pytest
from link_support import DATA
from test_link_samples import pynq_xclbin_parser

from fpgakern.link import axlf, config, groups, kernel_xml, linker, platforms, xclbin
from fpgakern.link.axlf import SECTION_IDS
from fpgakern.link.inspect import dump_section, format_report, inspect_bytes
from fpgakern.link.sections import Connection, MemData, decode, encode

MEM_HBM, MEM_DDR4, MEM_DRAM, MEM_STREAMING = 6, 1, 2, 3
GROUP_TOPOLOGY, GROUP_CONNECTIVITY = 26, 27  # enum axlf_section_kind, xclbin.h


def test_the_section_kinds_are_xclbin_hs():
    assert SECTION_IDS["ASK_GROUP_TOPOLOGY"] == GROUP_TOPOLOGY
    assert SECTION_IDS["ASK_GROUP_CONNECTIVITY"] == GROUP_CONNECTIVITY
    assert axlf.section_kind("group_topology") == GROUP_TOPOLOGY  # xclbinutil's names
    assert axlf.section_kind("GROUP_CONNECTIVITY") == GROUP_CONNECTIVITY


def test_v_plus_plus_2022_1_groups_are_reproduced_byte_for_byte():
    """kv260-smartcam.xclbin (v++ 2022.1): its GROUP sections are what groups.py derives
    from its MEM_TOPOLOGY and CONNECTIVITY (every DRAM bank at base 0: no group; the 14
    connections sorted, then the 14 again). dpu_RP_0.xclbin, a DFX file, carries the
    kv260 design's group sections unchanged, so it is no test of the algorithm."""
    image = axlf.read((DATA / "kv260-smartcam.xclbin").read_bytes())
    mems = decode(image.find(6).payload, MemData)
    conns = decode(image.find(7).payload, Connection)
    group_mems, group_conns = groups.bank_groups(mems, conns)
    assert encode(group_mems, MemData) == image.find(GROUP_TOPOLOGY).payload
    assert encode(group_conns, Connection) == image.find(GROUP_CONNECTIVITY).payload
    assert len(group_conns) == 2 * len(conns)


@pytest.mark.parametrize(("indexes", "tag"), [
    ([0, 1, 2, 3], "MBG[0:3]"), ([3, 2, 1], "MBG[1:3]"), ([5, 6], "MBG[5:6]"),
    ([0, 2, 3, 4, 6, 8, 9], "MBG[0,2:4,6,8:9"),  # xclbinutil's example, cut to 15
    ([30, 31], "MBG[30:31]"),
])
def test_group_tags(indexes, tag):
    assert groups.group_tag(indexes) == tag


def _mem(tag: str, base: int, size_kb: int = 1 << 18, kind: int = MEM_HBM,
         used: bool = True) -> MemData:
    return MemData(tag, kind, used, size_kb, base)


def test_only_an_arguments_one_contiguous_run_of_groupable_used_memories_is_grouped():
    size = 1 << 28  # 256 MiB, in bytes
    mems = [_mem(f"HBM[{i}]", i * size) for i in range(6)] + [
        _mem("gap", 100 * size), _mem("PLRAM[0]", 200 * size, 128, MEM_DRAM),
        _mem("PLRAM[1]", 200 * size + (128 << 10), 128, MEM_DRAM),
        _mem("S", 0, 0, MEM_STREAMING), _mem("HBM[9]", 6 * size, used=False)]
    conns = [
        Connection(0, 0, 1), Connection(0, 0, 0),  # arg 0: HBM[0:1], listed out of order
        Connection(1, 0, 2), Connection(1, 0, 6),  # arg 1: a gap: no group
        Connection(2, 0, 3), Connection(2, 0, 4), Connection(2, 0, 5),  # arg 2: HBM[3:5]
        Connection(3, 0, 7), Connection(3, 0, 8),  # arg 3: PLRAM, MEM_DRAM counts as HBM
        Connection(4, 0, 9),  # a stream: as it is, first
        Connection(0, 1, 0), Connection(0, 1, 1), Connection(0, 1, 3),  # two runs: none
        Connection(1, 1, 5), Connection(1, 1, 10),  # HBM[9] unused: not grouped
    ]
    group_mems, group_conns = groups.bank_groups(mems, conns)
    assert group_mems[:len(mems)] == mems
    added = group_mems[len(mems):]
    assert [(m.tag, m.base_address, m.size_kb) for m in added] == [
        ("MBG[0:1]", 0, 2 << 18), ("MBG[3:5]", 3 * size, 3 << 18), ("MBG[7:8]", 200 * size, 256)]
    assert added[2].type == MEM_DRAM  # the first member's entry, copied
    n = len(mems)
    head = [(c.arg_index, c.ip_layout_index, c.mem_data_index)
            for c in group_conns[:len(group_conns) - len(conns)]]
    assert head == [
        (4, 0, 9), (1, 1, 10),  # not groupable, in CONNECTIVITY's order
        (0, 0, n), (1, 0, 2), (1, 0, 6), (2, 0, n + 1), (3, 0, n + 2),
        (0, 1, 0), (0, 1, 1), (0, 1, 3), (1, 1, 5)]
    assert group_conns[len(head):] == conns  # CONNECTIVITY merged back in


def test_equal_groups_are_one_entry():
    mems = [_mem(f"HBM[{i}]", i << 28) for i in range(4)]
    conns = [Connection(a, ip, m) for ip in (0, 1) for a in (0,) for m in (0, 1)]
    group_mems, group_conns = groups.bank_groups(mems, conns)
    assert [m.tag for m in group_mems[4:]] == ["MBG[0:1]"]
    assert [c.mem_data_index for c in group_conns[:2]] == [4, 4]


HBM_CONFIG = """\
[connectivity]
nk=add_f32:2
sp=add_f32_1.a:HBM[0:3]
sp=add_f32_1.b:HBM[4]
sp=add_f32_1.out:HBM[5:6]
sp=add_f32_2.a:HBM[0:3]
sp=add_f32_2.b:HBM[8]
sp=add_f32_2.out:HBM[9]
"""


@pytest.fixture
def hbm_xclbin(make_plan) -> bytes:
    p = make_plan("binary_ops/add", 2)
    design = linker.link([linker.LinkInput(kernel_xml.from_plan(p), 1, origin="add")],
                         platforms.load("u55c"), config.parse(HBM_CONFIG, "hbm.cfg"), "sw_emu")
    return xclbin.to_xclbin(design, project="hbm")


def _mem_data(m_type: int, used: int, size_kb: int, base: int, tag: str) -> bytes:
    """struct mem_data (xclbin.h): u8 m_type, u8 m_used, 6 bytes of the union's padding,
    u64 m_size (KB), u64 m_base_address, char m_tag[16]: 40 bytes."""
    return struct.pack("<BB6xQQ16s", m_type, used, size_kb, base, tag.encode())


def test_a_bank_range_link_writes_per_bank_connections_and_a_group(hbm_xclbin):
    image = axlf.read(hbm_xclbin)
    assert [s.kind for s in image.sections][-2:] == [GROUP_CONNECTIVITY, GROUP_TOPOLOGY]
    mems = decode(image.find(6).payload, MemData)
    assert len(mems) == 38  # 32 HBM pseudo-channels and 6 PLRAMs
    conns = [(c.arg_index, c.ip_layout_index, c.mem_data_index)
             for c in decode(image.find(7).payload, Connection)]
    # CONNECTIVITY: one entry per bank, as before (a=0, b=1, out=2)
    assert conns == [(0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 0, 3), (1, 0, 4), (2, 0, 5),
                     (2, 0, 6), (0, 1, 0), (0, 1, 1), (0, 1, 2), (0, 1, 3), (1, 1, 8),
                     (2, 1, 9)]
    # GROUP_TOPOLOGY: MEM_TOPOLOGY's 38 entries, then the groups, bytes as xclbin.h lays
    # them out: int32 m_count, 4 bytes of padding, mem_data[m_count]
    topology = image.find(6).payload
    half_gib_kb = 512 << 10
    expected = (struct.pack("<i4x", 40) + topology[8:]
                + _mem_data(MEM_HBM, 1, 4 * half_gib_kb, 0, "MBG[0:3]")
                + _mem_data(MEM_HBM, 1, 2 * half_gib_kb, 5 * (512 << 20), "MBG[5:6]"))
    assert image.find(GROUP_TOPOLOGY).payload == expected
    # GROUP_CONNECTIVITY: int32 m_count, then connection[m_count] (3 x int32: arg_index,
    # m_ip_layout_index, mem_data_index): a and out on their groups, the rest as they are,
    # then CONNECTIVITY's entries again
    grouped = [(0, 0, 38), (1, 0, 4), (2, 0, 39), (0, 1, 38), (1, 1, 8), (2, 1, 9)]
    entries = grouped + conns
    assert image.find(GROUP_CONNECTIVITY).payload == struct.pack(
        f"<i{3 * len(entries)}i", len(entries), *(x for e in entries for x in e))


def test_a_link_on_single_banks_copies_mem_topology(lib_xclbin):
    image = axlf.read(lib_xclbin)
    assert [s.kind for s in image.sections] == [6, 8, 7, 11, 14, 2, 27, 26]
    assert image.find(GROUP_TOPOLOGY).payload == image.find(6).payload
    conns = image.find(7).payload
    count = struct.unpack_from("<i", conns)[0]
    # every connection kept its bank (the DDR banks are 16 GiB apart, each its own run)
    assert image.find(GROUP_CONNECTIVITY).payload == \
        struct.pack("<i", 2 * count) + conns[4:] + conns[4:]


def test_no_group_connectivity_without_connections(make_plan, u250):
    """xclbinutil writes no GROUP_CONNECTIVITY for an empty CONNECTIVITY."""
    desc = kernel_xml.from_plan(make_plan("binary_ops/add"))
    scalars_only = replace(desc, args=tuple(a for a in desc.args if not a.is_memory),
                           ports=tuple(p for p in desc.ports if p.mode != "master"))
    design = linker.link([linker.LinkInput(scalars_only, 1, origin="add")], u250)
    image = axlf.read(xclbin.to_xclbin(design))
    assert [s.kind for s in image.sections] == [6, 8, 7, 11, 14, 2, 26]
    assert image.find(GROUP_TOPOLOGY).payload == image.find(6).payload


def test_inspect_shows_the_groups(hbm_xclbin):
    report = inspect_bytes(hbm_xclbin)
    assert report["errors"] == [] and report["warnings"] == []
    assert [m["tag"] for m in report["group_memories"][38:]] == ["MBG[0:3]", "MBG[5:6]"]
    assert report["group_memories"][38]["size"] == hex(2 << 30)
    assert len(report["group_connectivity"]) == 19
    args = {a["name"]: a for a in report["kernels"][0]["instances"][0]["args"]}
    assert args["a"]["memory"] == ["HBM[0]", "HBM[1]", "HBM[2]", "HBM[3]"]
    assert args["a"]["memory_groups"] == ["MBG[0:3]"]
    assert args["b"]["memory_groups"] == []
    text = format_report(report)
    assert "Memory Groups (GROUP_TOPOLOGY, GROUP_CONNECTIVITY)" in text
    assert "MBG[0:3]" in text and "(group MBG[0:3])" in text
    doc = json.loads(dump_section(hbm_xclbin, "GROUP_TOPOLOGY:JSON"))
    assert doc["group_topology"]["m_count"] == "40"
    assert doc["group_topology"]["m_mem_data"][38]["m_tag"] == "MBG[0:3]"
    doc = json.loads(dump_section(hbm_xclbin, "group_connectivity:json"))
    assert doc["group_connectivity"]["m_connection"][0] == \
        {"arg_index": "0", "m_ip_layout_index": "0", "mem_data_index": "38"}


def test_pynq_reads_the_group_sections(hbm_xclbin):
    """PYNQ's parser takes MEM_TOPOLOGY and CONNECTIVITY when present, else the group
    sections: both files parse, and without the plain sections PYNQ finds the groups."""
    parser = pynq_xclbin_parser()
    full = parser.XclBin(xclbin_data=bytearray(hbm_xclbin))
    assert full.ip_dict["add_f32_1"]["registers"]["a"]["memory"] == "HBM[3]"
    image = axlf.read(hbm_xclbin)
    groups_only = axlf.write([s for s in image.sections if s.kind not in (6, 7)],
                             **{k: v for k, v in image.header.items()
                                if k not in ("m_length", "m_numSections")})
    parsed = parser.XclBin(xclbin_data=bytearray(groups_only))
    assert list(parsed.mem_dict)[38:] == ["MBG[0:3]", "MBG[5:6]"]
    assert parsed.mem_dict["MBG[0:3]"]["size"] == 2 << 30
    assert parsed.ip_dict["add_f32_2"]["registers"]["b"]["memory"] == "HBM[8]"


def test_stale_groups_are_a_warning():
    """dpu_RP_0.xclbin's group sections are the kv260 design's (4 memories, not its 7)."""
    report = inspect_bytes((DATA / "dpu_RP_0.xclbin").read_bytes())
    assert any(w.startswith("GROUP_TOPOLOGY does not start with MEM_TOPOLOGY's")
               for w in report["warnings"])
    kv260 = inspect_bytes((DATA / "kv260-smartcam.xclbin").read_bytes())
    assert not any("GROUP_TOPOLOGY" in w for w in kv260["warnings"])
    assert "GROUP_TOPOLOGY: 4 memories, 0 beyond MEM_TOPOLOGY's 4; GROUP_CONNECTIVITY: 28 " \
        "connections" in format_report(kv260)


def test_stream_entries_carry_route_and_flow_id_0_in_group_topology():
    """Two stream_connect lines: MEM_TOPOLOGY's stream entries have route/flow ids 0/0
    and 1/1; GROUP_TOPOLOGY's copies have 0/0, as xclbinutil writes them."""
    link = 9  # MEM_STREAMING_CONNECTION, what stream_connect adds
    mems = [_mem("DDR[0]", 0, 1 << 24, MEM_DDR4), _mem("stream_conn0", 0, 0, link),
            _mem("stream_conn1", 1, 1, link)]
    conns = [Connection(0, 0, 0), Connection(1, 0, 1), Connection(0, 1, 1),
             Connection(1, 1, 2), Connection(0, 2, 2)]
    group_mems, _ = groups.bank_groups(mems, conns)
    assert [(m.tag, m.size_kb, m.base_address) for m in group_mems] == [
        ("DDR[0]", 1 << 24, 0), ("stream_conn0", 0, 0), ("stream_conn1", 0, 0)]
