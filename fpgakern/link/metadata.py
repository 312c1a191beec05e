"""The text sections: EMBEDDED_METADATA (XML) and BUILD_METADATA (JSON).

EMBEDDED_METADATA follows what v++ writes (``vitis-flow.md`` §1.11, checked against the
kv260 smartcam xclbin and XRT's FixedKernel unit-test file): ``project / platform / device
/ core / kernel`` with ``port``, ``arg`` and ``instance/addrRemap``, port names in upper
case. XRT takes kernel arguments from it and PYNQ refuses a file without it.
BUILD_METADATA follows the ``build_metadata`` JSON tree ``xclbinutil --info`` reads (§1.12).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

from fpgakern import __version__
from fpgakern.errors import FpgakernError
from fpgakern.interface import CONTROL_PORT
from fpgakern.link._render import hex_upper, render
from fpgakern.link.kernel_xml import KernelDesc, parse_kernel
from fpgakern.link.sections import CLOCK_TYPE_IDS

if TYPE_CHECKING:
    from fpgakern.link.linker import Design

REGION = "OCL_REGION_0"
# core@target per v++ target: "bitstream" (kv260 smartcam, hw) and "hw_em" (XRT's
# FixedKernel test) are seen in real files; "csim" for sw_emu is fpgakern's reading.
CORE_TARGETS = {"hw": "bitstream", "hw_emu": "hw_em", "sw_emu": "csim"}
# kernelClocks lists the clocks kernels run on (v++: DATA_CLK and KERNEL_CLK)
KERNEL_CLOCK_TYPES = (CLOCK_TYPE_IDS["DATA"], CLOCK_TYPE_IDS["KERNEL"])


@dataclass(frozen=True)
class _Connection:
    src_type: str
    src_inst: str
    src_port: str
    dst_inst: str
    dst_port: str


def embedded_metadata(design: Design, project: str) -> bytes:
    p = design.platform
    connections = [
        _Connection("core", REGION, bank.tag, cu.name, port)
        for cu in design.cus for port, banks in cu.port_banks for bank in banks
    ] + [
        # A kernel's port, upper-cased as EMBEDDED_METADATA names ports (the template
        # upper-cases every dstPort; a core srcPort is a bank tag and keeps its case).
        _Connection("kernel", s.src_cu, s.src_port.upper(), s.dst_cu, s.dst_port)
        for s in design.streams
    ]
    kernels = [{"desc": k, "cus": design.cus_of(k)} for k in design.kernels]
    text = render(
        "embedded_metadata.xml.j2", project=project, p=p, region=REGION,
        core_target=CORE_TARGETS[design.target],
        kernel_clocks=[c for c in p.clocks if c.type in KERNEL_CLOCK_TYPES], kernels=kernels,
        cu_stride=p.cu_stride, control_port=CONTROL_PORT, connections=connections,
    )
    return text.encode()


def build_metadata(design: Design, options: str, time_stamp: str) -> bytes:
    p = design.platform

    def ports(k: KernelDesc) -> list[dict[str, str]]:
        return [{"name": x.name.upper(), "mode": x.mode, "range": hex_upper(x.range),
                 "data_width": str(x.data_width),
                 "port_type": "stream" if x.is_stream else x.port_type,
                 "base": hex_upper(x.base)} for x in k.ports]

    def arguments(k: KernelDesc) -> list[dict[str, str]]:
        return [{"name": a.name, "address_qualifier": str(a.address_qualifier),
                 "id": str(a.id), "port": a.port.upper(), "size": hex_upper(a.size),
                 "offset": hex_upper(a.offset), "host_offset": hex_upper(a.host_offset),
                 "host_size": hex_upper(a.host_size), "type": a.type} for a in k.args]

    doc = {
        "schema_version": {"major": "1", "minor": "0", "patch": "0"},
        "build_metadata": {
            "dsa": {
                "vendor": p.vendor, "board_id": p.board_id, "name": p.name,
                "version_major": "1", "version_minor": "0", "description": p.description,
                "board": {"name": p.board.get("name", ""), "vendor": p.board.get("vendor", ""),
                          "part": p.board.get("part", "")},
            },
            "xclbin": {
                "generated_by": {"name": "fpgakern", "version": __version__, "cl": "",
                                 "time_stamp": time_stamp, "options": options},
                "user_regions": [{
                    "name": REGION, "type": "clc_region", "instance_path": "",
                    "base_address": "",
                    "kernels": [{
                        "name": k.name, "ports": ports(k), "arguments": arguments(k),
                        "instances": [{"name": cu.name} | ({"slr": cu.slr} if cu.slr else {})
                                      for cu in design.cus_of(k)],
                    } for k in design.kernels],
                }],
            },
        },
    }
    return json.dumps(doc, indent=1).encode()


@dataclass(frozen=True)
class MetadataKernel:
    """A kernel as EMBEDDED_METADATA describes it, with its instances' base addresses."""

    desc: KernelDesc
    instances: tuple[tuple[str, int | None], ...]


@dataclass(frozen=True)
class EmbeddedMetadata:
    project: str
    platform: dict[str, str]
    device: str
    core_target: str
    clocks: tuple[tuple[str, str], ...]
    kernels: tuple[MetadataKernel, ...]


def parse_embedded_metadata(payload: bytes) -> EmbeddedMetadata:
    """Read EMBEDDED_METADATA along the path XRT and PYNQ read."""
    where = "EMBEDDED_METADATA"
    try:
        root = ElementTree.fromstring(payload.rstrip(b"\0"))
    except (ElementTree.ParseError, LookupError) as err:  # LookupError: an unknown encoding=
        raise FpgakernError(f"{where}: not well-formed XML ({err})") from None
    if root.tag != "project":
        raise FpgakernError(f"{where}: root element is <{root.tag}>, expected <project>")
    platform = root.find("platform")
    device = root.find("platform/device")
    core = root.find("platform/device/core")
    kernels = []
    for k in root.findall("platform/device/core/kernel"):
        instances = []
        for inst in k.findall("instance"):
            remap = inst.find("addrRemap")
            base: int | None = None
            if remap is not None:
                try:
                    base = int(remap.get("base", ""), 0)
                except ValueError:
                    base = None
            instances.append((inst.get("name", ""), base))
        kernels.append(MetadataKernel(parse_kernel(k, where), tuple(instances)))
    clocks = tuple((c.get("port", ""), c.get("frequency", ""))
                   for c in root.findall("platform/device/core/kernelClocks/clock"))
    return EmbeddedMetadata(
        root.get("name", ""), dict(platform.attrib) if platform is not None else {},
        device.get("fpgaDevice", "") if device is not None else "",
        core.get("target", "") if core is not None else "", clocks, tuple(kernels))


def parse_build_metadata(payload: bytes) -> dict[str, Any]:
    try:
        doc = json.loads(payload.rstrip(b"\0").decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise FpgakernError(f"BUILD_METADATA: not valid JSON ({err})") from None
    if not isinstance(doc, dict):
        raise FpgakernError("BUILD_METADATA: expected a JSON object")
    return doc
