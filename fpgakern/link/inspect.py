"""Reports on .xclbin and .xo files, like ``xclbinutil --info`` and ``kernelinfo``.

A report is plain data (``--json`` prints it as is; :func:`format_report` renders text).
Structural faults (truncation, bad magic, offsets past the end, overlapping sections, a
count that runs past its section) raise one FpgakernError. Cross-reference faults between
sections (a CONNECTIVITY entry naming an IP or bank that does not exist, an argument id
the kernel lacks, an address that disagrees with the metadata) are collected as
``errors`` in a report that is still produced: real files have them (``dpu_RP_0.xclbin``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fpgakern.errors import FpgakernError, display_path
from fpgakern.link import axlf, sections
from fpgakern.link.axlf import SECTION_IDS, Axlf, XclbinError
from fpgakern.link.groups import group_copy
from fpgakern.link.metadata import parse_build_metadata, parse_embedded_metadata
from fpgakern.link.sections import (
    IP_KERNEL,
    NO_ADDRESS,
    ClockFreq,
    Connection,
    IpData,
    MemData,
    decode,
)
from fpgakern.link.xo import read_xo

ZIP_MAGIC = b"PK\x03\x04"


def inspect_path(path: Path) -> dict[str, Any]:
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise FpgakernError(f"{display_path(path)}: cannot read ({err.strerror})") from None
    try:
        report = inspect_bytes(data, display_path(path))
    except FpgakernError as err:
        raise type(err)(f"{display_path(path)}: {err}") from None
    return {"file": display_path(path)} | report


def inspect_bytes(data: bytes, where: str = "<file>") -> dict[str, Any]:
    if data[:4] == ZIP_MAGIC:
        return inspect_xo(data, where)
    return inspect_xclbin(data)


def _hex(value: int) -> str:
    return f"0x{value:x}"


def _uuid(raw: bytes) -> str:
    return raw.hex()


def _entries(image: Axlf, name: str, entry_type: type) -> list | None:
    section = image.find(SECTION_IDS[name])
    if section is None:
        return None
    try:
        return decode(section.payload, entry_type)
    except XclbinError as err:
        raise XclbinError(f"{name}: {err}") from None


def inspect_xclbin(data: bytes) -> dict[str, Any]:
    image = axlf.read(data)
    h = image.header
    errors: list[str] = []
    warnings = list(image.warnings)
    ips: list[IpData] = _entries(image, "IP_LAYOUT", IpData) or []
    mems: list[MemData] = _entries(image, "MEM_TOPOLOGY", MemData) or []
    conns: list[Connection] | None = _entries(image, "CONNECTIVITY", Connection)
    clocks: list[ClockFreq] = _entries(image, "CLOCK_FREQ_TOPOLOGY", ClockFreq) or []
    group_mems: list[MemData] | None = _entries(image, "ASK_GROUP_TOPOLOGY", MemData)
    group_conns: list[Connection] | None = _entries(image, "ASK_GROUP_CONNECTIVITY",
                                                    Connection)

    meta_section = image.find(SECTION_IDS["EMBEDDED_METADATA"])
    meta = parse_embedded_metadata(meta_section.payload) if meta_section else None
    build_section = image.find(SECTION_IDS["BUILD_METADATA"])
    build = parse_build_metadata(build_section.payload) if build_section else None
    if meta is None:
        warnings.append("no EMBEDDED_METADATA: XRT's xrt::kernel and PYNQ cannot use this file")
    if image.find(SECTION_IDS["IP_LAYOUT"]) is None:
        warnings.append("no IP_LAYOUT: CU addresses come from EMBEDDED_METADATA only")
    if [ip.base_address for ip in ips] != sorted(ip.base_address for ip in ips):
        warnings.append("IP_LAYOUT is not sorted by base address")

    if group_mems is not None and group_mems[:len(mems)] != [group_copy(m) for m in mems]:
        # xclbinutil's GROUP_TOPOLOGY starts with MEM_TOPOLOGY's entries (link/groups.py)
        warnings.append("GROUP_TOPOLOGY does not start with MEM_TOPOLOGY's memories (groups "
                        "made for another design? XRT reads the group sections first)")
    kernels_xml = {k.desc.name: k for k in meta.kernels} if meta else {}
    _check_connectivity("CONNECTIVITY", conns or [], ips, mems, kernels_xml, errors)
    if group_conns is not None:
        _check_connectivity("ASK_GROUP_CONNECTIVITY", group_conns, ips,
                            group_mems if group_mems is not None else mems, kernels_xml,
                            errors)

    kernels = []
    for name, mk in kernels_xml.items():
        instances = []
        for inst_name, xml_base in mk.instances:
            full = f"{name}:{inst_name}"
            index = next((i for i, ip in enumerate(ips) if ip.name == full), None)
            ip = ips[index] if index is not None else None
            if ip is not None and xml_base is not None and ip.base_address != xml_base:
                errors.append(f"{full}: IP_LAYOUT base {_hex(ip.base_address)} differs from "
                              f"EMBEDDED_METADATA addrRemap {_hex(xml_base)}")
            base = ip.base_address if ip is not None else xml_base
            args = []
            for a in mk.desc.args:
                banks = _tags(conns or [], mems, index, a.id)
                groups = [t for t in _tags(group_conns or [], group_mems or [], index, a.id)
                          if t not in banks]
                args.append({"name": a.name, "id": a.id, "offset": _hex(a.offset),
                             "port": a.port, "size": _hex(a.size), "type": a.type,
                             "address_qualifier": a.address_qualifier, "memory": banks,
                             "memory_groups": groups})
            instances.append({
                "name": inst_name,
                "base_address": None if base is None else
                "not_used" if base == NO_ADDRESS else _hex(base),
                "ip_layout_index": index,
                "interrupt_id": ip.interrupt_id if ip and ip.int_enable else None,
                "args": args})
        kernels.append({
            "name": name, "language": mk.desc.language, "vlnv": mk.desc.vlnv,
            "hw_control_protocol": mk.desc.hw_control_protocol,
            "ports": [{"name": p.name, "mode": p.mode, "range": _hex(p.range),
                       "data_width": p.data_width,
                       "port_type": "stream" if p.is_stream else p.port_type}
                      for p in mk.desc.ports],
            "instances": instances})
    for ip in ips:
        if ip.type == IP_KERNEL and meta is not None and ip.kernel_name not in kernels_xml:
            warnings.append(f"IP_LAYOUT CU {ip.name} has no kernel in EMBEDDED_METADATA")

    generated_by = _dig(build, "build_metadata", "xclbin", "generated_by")
    return {
        "file_type": "xclbin",
        "header": {
            "magic": h["m_magic"].rstrip(b"\0").decode("latin-1"),
            "length": h["m_length"], "timestamp": h["m_timeStamp"],
            "unique_id": h["m_uniqueId"],
            "version": f"{h['m_versionMajor']}.{h['m_versionMinor']}.{h['m_versionPatch']}",
            "mode": axlf.MODES.get(h["m_mode"], str(h["m_mode"])),
            "action_mask": h["m_actionMask"],
            "signature": "present" if h["m_signature_length"] != -1 else "not present",
            "platform_vbnv": axlf.cstr(h["m_platformVBNV"]),
            "uuid": _uuid(h["uuid"]), "interface_uuid": _uuid(h["m_interface_uuid"]),
            "feature_rom_timestamp": h["m_featureRomTimeStamp"],
        },
        "sections": [{"kind": s.kind, "kind_name": s.kind_name, "name": s.name,
                      "offset": _hex(s.offset), "size": len(s.payload)}
                     for s in image.sections],
        "generated_by": {k: str(generated_by.get(k, "")) for k in ("name", "version",
                                                                    "time_stamp", "options")}
        if build else None,
        "platform": meta.platform if meta else {},
        "fpga_device": meta.device if meta else "",
        "clocks": [c.to_json() for c in clocks],
        "memories": _memories(mems),
        "ip_layout": [ip.to_json() for ip in ips],
        "connectivity": [c.to_json() for c in conns or []],
        "group_memories": None if group_mems is None else _memories(group_mems),
        "group_connectivity": None if group_conns is None
        else [c.to_json() for c in group_conns],
        "kernels": kernels,
        "warnings": warnings,
        "errors": errors,
    }


def _memories(mems: list[MemData]) -> list[dict[str, Any]]:
    return [{"index": i, "tag": m.tag, "type": m.type_name,
             "base_address": _hex(m.base_address), "size": _hex(m.size_kb * 1024),
             "used": m.used} for i, m in enumerate(mems)]


def _tags(conns: list[Connection], mems: list[MemData], ip_index: int | None,
          arg_id: int) -> list[str]:
    """The tags of the memories an argument of IP ``ip_index`` connects to, once each."""
    tags = [mems[c.mem_data_index].tag for c in conns
            if ip_index is not None and c.ip_layout_index == ip_index
            and c.arg_index == arg_id and 0 <= c.mem_data_index < len(mems)]
    return list(dict.fromkeys(tags))


def _dig(doc: Any, *keys: str) -> dict[str, Any]:
    """``doc[k1][k2]...`` when every level is an object, else {} (real files vary)."""
    for key in keys:
        doc = doc.get(key) if isinstance(doc, dict) else None
    return doc if isinstance(doc, dict) else {}


def _check_connectivity(name: str, conns: list[Connection], ips: list[IpData],
                        mems: list[MemData], kernels_xml: dict, errors: list[str]) -> None:
    for i, c in enumerate(conns):
        what = f"{name}[{i}] (arg {c.arg_index}, ip {c.ip_layout_index}, " \
               f"mem {c.mem_data_index})"
        if not 0 <= c.ip_layout_index < len(ips):
            errors.append(f"{what}: IP_LAYOUT index {c.ip_layout_index} is out of range "
                          f"(IP_LAYOUT has {len(ips)} entries)")
            continue
        if not 0 <= c.mem_data_index < len(mems):
            errors.append(f"{what}: memory index {c.mem_data_index} is out of range "
                          f"({len(mems)} memories)")
        ip = ips[c.ip_layout_index]
        if ip.type != IP_KERNEL:
            errors.append(f"{what}: IP_LAYOUT entry {ip.name} is not a kernel")
            continue
        kernel = kernels_xml.get(ip.kernel_name)
        if kernel is not None and c.arg_index not in {a.id for a in kernel.desc.args}:
            errors.append(f"{what}: kernel {ip.kernel_name} has no argument id {c.arg_index}")


def inspect_xo(data: bytes, where: str = "<xo>") -> dict[str, Any]:
    xo = read_xo(data, where)
    k = xo.kernel
    return {
        "file_type": "xo",
        "xo_version": xo.xo_version, "ip": xo.ip, "supported_flows": list(xo.flows),
        "component_vlnv": xo.component_vlnv,
        "kernels": [{
            "name": k.name, "language": k.language, "vlnv": k.vlnv,
            "hw_control_protocol": k.hw_control_protocol, "interrupt": k.interrupt,
            "ports": [{"name": p.name, "mode": p.mode, "range": _hex(p.range),
                       "data_width": p.data_width,
                       "port_type": "stream" if p.is_stream else p.port_type}
                      for p in k.ports],
            "args": [{"name": a.name, "id": a.id, "offset": _hex(a.offset), "port": a.port,
                      "size": _hex(a.size), "type": a.type,
                      "address_qualifier": a.address_qualifier} for a in k.args],
        }],
        "members": list(xo.names),
        "warnings": [],
        "errors": list(xo.problems),
    }


# xclbinutil's JSON names of the group sections (their payloads are MEM_TOPOLOGY's and
# CONNECTIVITY's)
_JSON_ROOTS = {SECTION_IDS["ASK_GROUP_TOPOLOGY"]: "group_topology",
               SECTION_IDS["ASK_GROUP_CONNECTIVITY"]: "group_connectivity"}


def dump_section(data: bytes, spec: str) -> bytes:
    """One section's payload: ``NAME`` or ``NAME:RAW`` as stored, ``NAME:JSON`` decoded the
    way xclbinutil dumps the binary sections."""
    name, _, fmt = spec.partition(":")
    fmt = (fmt or "RAW").upper()
    kind = axlf.section_kind(name)
    image = axlf.read(data)
    section = image.find(kind)
    if section is None:
        have = ", ".join(s.kind_name for s in image.sections) or "none"
        raise FpgakernError(f"no {name.upper()} section (sections: {have})")
    if fmt == "RAW":
        return section.payload
    if fmt != "JSON":
        raise FpgakernError(f"format {fmt!r}: use RAW or JSON")
    if kind == SECTION_IDS["BUILD_METADATA"]:
        return json.dumps(parse_build_metadata(section.payload), indent=2).encode() + b"\n"
    entry_type = sections.ENTRY_TYPES.get(kind)
    if entry_type is None:
        raise FpgakernError(f"{name.upper()} has no JSON form: dump it as RAW")
    entries = decode(section.payload, entry_type)
    root = _JSON_ROOTS.get(kind, entry_type.SECTION.name)
    array = {"ip_layout": "m_ip_data", "mem_topology": "m_mem_data",
             "connectivity": "m_connection", "clock_freq_topology": "m_clock_freq",
             "group_topology": "m_mem_data", "group_connectivity": "m_connection"}[root]
    doc = {root: {"m_count": str(len(entries)), array: [e.to_json() for e in entries]}}
    return json.dumps(doc, indent=2).encode() + b"\n"


def _kv(rows: list[tuple[str, Any]], indent: int = 3) -> list[str]:
    width = max((len(k) for k, _ in rows), default=0) + 2
    return [f"{' ' * indent}{k + ':':<{width}}{v}" for k, v in rows]


def _memory_line(m: dict[str, Any]) -> str:
    # a type longer than its column (MEM_STREAMING_CONNECTION) keeps one space after it
    kind = m["type"].ljust(12) if len(m["type"]) < 12 else m["type"] + " "
    return (f"   {m['index']:<6}{m['tag']:<16}{kind}{m['base_address']:<20}"
            f"{m['size']:<20}{'yes' if m['used'] else 'no'}")


def format_report(report: dict[str, Any]) -> str:
    """Text like ``xclbinutil --info`` (xclbin) or ``kernelinfo`` (xo)."""
    lines: list[str] = []

    def block(title: str) -> None:
        lines.extend(["", title, "=" * len(title)] if lines else [title, "=" * len(title)])

    if report["file_type"] == "xo":
        block("Kernel Object (.xo)")
        lines += _kv([("xo.xml version", report["xo_version"]), ("IP", report["ip"] or "-"),
                      ("Supported flows", ", ".join(report["supported_flows"]) or "-"),
                      ("Members", len(report["members"]))])
        lines += [f"      {m}" for m in report["members"]]
    else:
        h = report["header"]
        block("xclbin Information")
        gen = report["generated_by"] or {}
        lines += _kv([
            ("Generated by", f"{gen.get('name', '')} ({gen.get('version', '')})"
             if gen else "<BUILD_METADATA not present>"),
            ("Version", h["version"]),
            ("Kernels", ", ".join(k["name"] for k in report["kernels"]) or "<none>"),
            ("Signature", h["signature"]), ("Mode", h["mode"]),
            ("Action Mask(s)", h["action_mask"]), ("UUID (xclbin)", h["uuid"]),
            ("Timestamp", h["timestamp"]), ("Unique Id", _hex(h["unique_id"])),
            ("Sections", ", ".join(s["kind_name"] for s in report["sections"])),
        ])
        block("Hardware Platform (Shell) Information")
        p = report["platform"]
        lines += _kv([("Vendor", p.get("vendor", "")), ("Board", p.get("boardid", "")),
                      ("Name", p.get("name", "")), ("FPGA Device", report["fpga_device"]),
                      ("Platform VBNV", h["platform_vbnv"] or "<not defined>"),
                      ("Static UUID", h["interface_uuid"])])
        block("Scalable Clocks")
        lines += [f"   {c['m_name']:<16} {c['m_type']:<8} {c['m_freq_Mhz']:>5} MHz"
                  for c in report["clocks"]] or ["   <none>"]
        block("Memory Configuration")
        lines.append(f"   {'Index':<6}{'Name':<16}{'Type':<12}{'Base Address':<20}"
                     f"{'Address Size':<20}Used")
        lines += [_memory_line(m) for m in report["memories"]]
        groups = report.get("group_memories")
        if groups is not None:
            block("Memory Groups (GROUP_TOPOLOGY, GROUP_CONNECTIVITY)")
            extra = groups[len(report["memories"]):]
            lines += [_memory_line(m) for m in extra]
            conns = report.get("group_connectivity")
            lines.append(f"   GROUP_TOPOLOGY: {len(groups)} memories, {len(extra)} beyond "
                         f"MEM_TOPOLOGY's {len(report['memories'])}; GROUP_CONNECTIVITY: "
                         + ("none" if conns is None else f"{len(conns)} connections"))
    for k in report["kernels"]:
        block(f"Kernel: {k['name']}")
        lines += _kv([("Language", k["language"]), ("VLNV", k["vlnv"]),
                      ("Control", k["hw_control_protocol"])])
        lines.append("   Ports:")
        for p in k["ports"]:
            lines.append(f"      {p['name']:<16} {p['mode']:<10} range {p['range']:<20} "
                         f"{p['data_width']:>4} bits  {p['port_type']}")
        for a in k.get("args", []):
            lines.append(f"   Argument {a['name']:<10} id {a['id']:<3} offset {a['offset']:<6} "
                         f"port {a['port']:<16} {a['type']}")
        for inst in k.get("instances", []):
            irq = "" if inst["interrupt_id"] is None else f", interrupt {inst['interrupt_id']}"
            lines.append(f"   Instance {inst['name']}: base {inst['base_address']}{irq}")
            for a in inst["args"]:
                memory = ", ".join(a["memory"]) or "<not applicable>"
                if a.get("memory_groups"):
                    memory += f" (group {', '.join(a['memory_groups'])})"
                lines.append(f"      {a['name']:<10} offset {a['offset']:<6} "
                             f"port {a['port']:<16} memory {memory}")
    if report["warnings"]:
        block("Warnings")
        lines += [f"   {w}" for w in report["warnings"]]
    if report["errors"]:
        block("Errors")
        lines += [f"   {e}" for e in report["errors"]]
    return "\n".join(lines) + "\n"
