"""A linked design as xclbin bytes: the sections v++ writes for a metadata-only image.

The image holds MEM_TOPOLOGY, IP_LAYOUT, CONNECTIVITY, CLOCK_FREQ_TOPOLOGY,
BUILD_METADATA, EMBEDDED_METADATA, then GROUP_CONNECTIVITY and GROUP_TOPOLOGY (the memory
bank groups xclbinutil adds for v++, groups.py), in the order v++ 2022.1 wrote them in
the kv260 sample. It has no BITSTREAM: the open flow cannot place and route; a real v++
(``--toolchain vitis``) produces the loadable file.

A kernel-to-kernel stream (``stream_connect``) is one MEM_TOPOLOGY entry of type
MEM_STREAMING_CONNECTION after the platform's banks (so bank indexes do not move), and
two CONNECTIVITY entries on it: the producer's stream argument and the consumer's. XRT's
readers skip such entries when they look for an argument's memory (xrt_kernel.cpp
``ip_context::connectivity``: "disregard memory indices that do not map to a memory
mapped bank, this could be streaming connections"; xocl: "skip kernel to kernel
stream"). Its route_id (m_size) and flow_id (m_base_address) are the connection's index
here: what v++ puts there is not confirmed (docs/link.md); GROUP_TOPOLOGY's copies of
these entries carry 0/0, as xclbinutil writes them (groups.py).
"""

from __future__ import annotations

import time
import uuid as uuid_mod

from fpgakern.errors import UsageError
from fpgakern.link import axlf, groups, metadata, repro
from fpgakern.link.axlf import SECTION_IDS, Section
from fpgakern.link.linker import Design
from fpgakern.link.sections import (
    CONTROL_PROTOCOLS,
    IP_NAME_MAX,
    MEM_TYPE_IDS,
    ClockFreq,
    Connection,
    IpData,
    MemData,
    encode,
)

# Header version fields: the XRT release of the v++ 2022.1 files fpgakern was checked
# against (the kv260 sample says 2.13.477; xclbinutil writes its own XRT version here).
XRT_VERSION = (2, 13, 0)
STREAM_TAG = "stream_conn"  # MEM_STREAMING_CONNECTION tags: stream_conn0, stream_conn1 ...


def stamp_text(timestamp: int) -> str:
    """v++'s BUILD_METADATA time stamp spelling, or "" when no time is recorded."""
    return time.strftime("%Y-%m-%d-%H:%M:%S", time.gmtime(timestamp)) if timestamp else ""


def sections(design: Design, project: str, options: str, timestamp: int) -> list[Section]:
    ips = []
    for cu in design.cus:
        if len(cu.ip_name.encode()) > IP_NAME_MAX:
            raise UsageError(f"CU name {cu.ip_name!r} is longer than IP_LAYOUT's "
                             f"{IP_NAME_MAX} bytes: give a shorter name with nk=")
        ips.append(IpData.kernel(
            cu.ip_name, cu.base, interrupt=cu.kernel.interrupt, interrupt_id=cu.interrupt_id,
            control=CONTROL_PROTOCOLS.get(cu.kernel.hw_control_protocol, 0)))
    used = design.used_banks
    mems = [MemData(b.tag, b.type, b.index in used, b.size_kb, b.base)
            for b in design.platform.banks]
    connections = [Connection(arg.id, ip_index, bank.index)
                   for ip_index, cu in enumerate(design.cus)
                   for arg in cu.kernel.memory_args
                   for bank in cu.banks_of_port(arg.port)]
    stream_mems, stream_connections = _stream_entries(design, len(mems))
    mems += stream_mems
    connections += stream_connections
    clocks = [ClockFreq(c.name, c.mhz, c.type) for c in design.platform.clocks]
    group_mems, group_connections = groups.bank_groups(mems, connections)
    # xclbinutil adds the group sections last, GROUP_CONNECTIVITY first; no
    # GROUP_CONNECTIVITY for an empty CONNECTIVITY, neither for an empty MEM_TOPOLOGY
    grouped = [Section(SECTION_IDS["ASK_GROUP_CONNECTIVITY"],
                       encode(group_connections, Connection))] if connections else []
    grouped.append(Section(SECTION_IDS["ASK_GROUP_TOPOLOGY"], encode(group_mems, MemData)))
    if not mems:
        grouped = []
    return [
        Section(SECTION_IDS["MEM_TOPOLOGY"], encode(mems, MemData)),
        Section(SECTION_IDS["IP_LAYOUT"], encode(ips, IpData)),
        Section(SECTION_IDS["CONNECTIVITY"], encode(connections, Connection)),
        Section(SECTION_IDS["CLOCK_FREQ_TOPOLOGY"], encode(clocks, ClockFreq)),
        Section(SECTION_IDS["BUILD_METADATA"],
                metadata.build_metadata(design, options, stamp_text(timestamp)),
                f"{project}_build"[:15]),
        Section(SECTION_IDS["EMBEDDED_METADATA"], metadata.embedded_metadata(design, project),
                project[:15]),
        *grouped,
    ]


def _stream_entries(design: Design, first_index: int
                    ) -> tuple[list[MemData], list[Connection]]:
    """MEM_STREAMING_CONNECTION entries (numbered from ``first_index``) and the
    CONNECTIVITY of both ends, one pair per stream_connect of ``design``."""
    ip_index = {cu.name: i for i, cu in enumerate(design.cus)}
    mems, connections = [], []
    for k, s in enumerate(design.streams):
        mems.append(MemData(f"{STREAM_TAG}{k}", MEM_TYPE_IDS["MEM_STREAMING_CONNECTION"],
                            True, k, k))
        for cu_name, port in ((s.src_cu, s.src_port), (s.dst_cu, s.dst_port)):
            cu = design.cus[ip_index[cu_name]]
            arg = cu.kernel.stream_arg(port)
            if arg is None:  # the linker checked the port; an .xo may lack its argument
                raise UsageError(f"{cu.kernel.name} has no argument on AXI4-Stream port "
                                 f"{port!r} (its kernel.xml names none)")
            connections.append(Connection(arg.id, ip_index[cu_name], first_index + k))
    return mems, connections


def to_xclbin(design: Design, *, project: str = "fpgakern", options: str = "",
              timestamp: int | None = None, uuid: uuid_mod.UUID | None = None) -> bytes:
    """The xclbin of ``design``. ``timestamp`` goes to m_timeStamp and BUILD_METADATA
    (default: :func:`repro.build_time`, SOURCE_DATE_EPOCH or fpgakern's release date);
    ``uuid`` defaults to a hash of every section and the header's identity fields, and
    m_uniqueId follows the uuid (repro.py)."""
    if timestamp is None:
        timestamp = repro.build_time()
    payloads = sections(design, project, options, timestamp)
    mode = axlf.TARGET_MODES[design.target]
    vbnv = design.platform.vbnv.encode()
    if uuid is None:
        uuid = repro.content_uuid(vbnv, bytes([mode]), *(s.payload for s in payloads))
    major, minor, patch = XRT_VERSION
    return axlf.write(
        payloads, m_uniqueId=repro.unique_id(uuid), m_timeStamp=timestamp,
        m_versionMajor=major, m_versionMinor=minor, m_versionPatch=patch, m_mode=mode,
        m_platformVBNV=vbnv[:63], uuid=uuid.bytes,
    )
