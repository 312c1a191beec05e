"""The ``.xo`` kernel object: a zip laid out as v++ and package_xo lay theirs out.

Members (``vitis-flow.md`` §2.1; ``<k>`` is the kernel's top name):

``xo.xml``                           the archive's index: kernel name, folder, IP, flows
``<k>/kernel.xml``                   the kernel description (kernel_xml.py)
``<k>/cpu_sources/<file>``           the HLS C++, the model for software emulation
``ip_repo/<vlnv dir>/component.xml`` the IP-XACT description of the RTL (ipxact.py)
``ip_repo/<vlnv dir>/hdl/<file>``    the RTL sources

The zip is deterministic: entries sorted by name, fixed times (repro.py), fixed
permissions and compression, so the same inputs give the same bytes.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from xml.etree import ElementTree

from fpgakern import paths
from fpgakern.errors import FpgakernError, UsageError, display_path
from fpgakern.ladder import Plan
from fpgakern.link import ipxact, kernel_xml, repro
from fpgakern.link._render import render
from fpgakern.link.kernel_xml import KernelDesc
from fpgakern.util.files import write_bytes_atomic

XO_XML = "xo.xml"
FLOW_CPU_EMU, FLOW_HW_EMU, FLOW_SYSTEM = "CPU_EMU", "HW_EMU", "SYSTEM"
ZIP_LEVEL = 6  # fixed, so the deflate stream does not depend on a default


def relative_path(plan: Plan) -> Path:
    """A plan's .xo inside a build tree: ``<category>/<kernel>/opt<N>/<dtype>/<top>.xo``."""
    return plan.variant_dir(Path()) / f"{plan.top}.xo"


def default_path(plan: Plan, root: Path | None = None) -> Path:
    """Where ``fpgakern build`` keeps a plan's .xo: under ``build/`` of the project."""
    return paths.build_dir(root) / relative_path(plan)


def supported_flows(has_hls: bool, has_rtl: bool) -> list[str]:
    """CPU emulation runs the C++ model; hardware emulation and the system flow the RTL."""
    return ([FLOW_CPU_EMU] if has_hls else []) + ([FLOW_HW_EMU, FLOW_SYSTEM] if has_rtl else [])


def members(kernel: KernelDesc, hls_sources: list[Path],
            rtl_sources: list[Path]) -> dict[str, bytes]:
    """Every member of the .xo of ``kernel``, by archive name."""
    ip = f"ip_repo/{kernel.ip_dir}"
    out: dict[str, bytes] = {}

    def add(name: str, data: bytes) -> None:
        if name in out:
            raise UsageError(f"two sources would both become {name} in the .xo: "
                             "give them distinct file names")
        out[name] = data

    for src in hls_sources:
        add(f"{kernel.name}/cpu_sources/{src.name}", _read(src))
    rtl_names = []
    for src in rtl_sources:
        rtl_names.append(f"hdl/{src.name}")
        add(f"{ip}/hdl/{src.name}", _read(src))
    add(f"{ip}/component.xml", ipxact.component_xml(kernel, rtl_names).encode())
    add(f"{kernel.name}/kernel.xml", kernel.to_xml().encode())
    flows = supported_flows(bool(hls_sources), bool(rtl_sources))
    add(XO_XML, render("xo.xml.j2", k=kernel, flows=flows).encode())
    return out


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as err:
        raise UsageError(f"{display_path(path)}: cannot read ({err.strerror})") from None


def zip_bytes(entries: dict[str, bytes], epoch: int | None = None) -> bytes:
    """A deterministic zip of ``entries``."""
    date_time = repro.zip_date_time(epoch)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # unix, so that the mode bits below are honoured
            info.external_attr = 0o644 << 16
            archive.writestr(info, entries[name], compresslevel=ZIP_LEVEL)
    return buf.getvalue()


def write_kernel_xo(kernel: KernelDesc, out_path: Path, hls_sources: list[Path],
                    rtl_sources: list[Path], epoch: int | None = None) -> Path:
    data = zip_bytes(members(kernel, list(hls_sources), list(rtl_sources)), epoch)
    write_bytes_atomic(Path(out_path), data)
    return Path(out_path)


def write_xo(plan: Plan, out_path: Path | None, hls_sources: list[Path],
             rtl_sources: list[Path], epoch: int | None = None) -> Path:
    """Write the .xo of ``plan`` (to :func:`default_path` when ``out_path`` is None).

    ``hls_sources``: the HLS C++ (``<top>.cpp`` and headers) carried as the CPU-emulation
    model; ``rtl_sources``: the generated .sv files packaged as the IP. Either may be empty;
    the supported flows in xo.xml say what the archive can do. Returns the path written.
    """
    target = Path(out_path) if out_path is not None else default_path(plan)
    return write_kernel_xo(kernel_xml.from_plan(plan), target, hls_sources, rtl_sources,
                           epoch)


@dataclass(frozen=True)
class XoContents:
    """What an .xo holds, read back; ``problems`` lists inconsistencies found in it."""

    names: tuple[str, ...]
    kernel: KernelDesc
    xo_version: str
    ip: str
    flows: tuple[str, ...]
    component_vlnv: str | None
    problems: tuple[str, ...]


# What a damaged member can raise while it is inflated and CRC-checked.
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError,
               NotImplementedError, RuntimeError)


def _extract(archive: zipfile.ZipFile, name: str, where: str) -> bytes:
    try:
        return archive.read(name)
    except _ZIP_ERRORS as err:
        raise FpgakernError(f"{where}: cannot extract {name} ({err})") from None


def _xml(archive: zipfile.ZipFile, name: str, where: str) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(_extract(archive, name, where))
    except (ElementTree.ParseError, LookupError) as err:  # LookupError: an unknown encoding=
        raise FpgakernError(f"{where}: {name} is not well-formed XML ({err})") from None


def read_xo(source: Path | bytes, where: str | None = None) -> XoContents:
    """Read an .xo (path or bytes); structural faults raise one FpgakernError."""
    where = where or (display_path(source) if isinstance(source, Path) else "<xo>")
    try:
        data = source if isinstance(source, bytes) else Path(source).read_bytes()
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = tuple(archive.namelist())
    except OSError as err:
        raise FpgakernError(f"{where}: cannot read ({err.strerror})") from None
    except _ZIP_ERRORS as err:
        raise FpgakernError(f"{where}: not an .xo (zip) archive ({err})") from None
    problems: list[str] = []
    kernel_xmls = sorted(n for n in names if PurePosixPath(n).name == "kernel.xml"
                         and "/ip_repo/" not in f"/{n}")
    index = next((n for n in names if n == XO_XML or n.endswith(".xo.xml")
                  or PurePosixPath(n).name == XO_XML), None)
    version, ip = "", ""
    flows: tuple[str, ...] = ()
    kernel_dir = entry = None
    if index is None:
        problems.append(f"no {XO_XML} index in the archive")
    else:
        root = _xml(archive, index, where)
        version = f"{root.get('VersionMajor', '?')}.{root.get('VersionMinor', '?')}"
        entry = root.find("Kernels/Kernel")
        if entry is None:
            problems.append(f"{index} lists no <Kernels><Kernel>")
        else:
            ip = entry.get("IP", "")
            kernel_dir = entry.get("Dir")
            flows = tuple(f.text or "" for f in entry.findall("SupportedFlows/SupportedFlow"))
    if kernel_dir and f"{kernel_dir}/kernel.xml" in names:
        kxml = f"{kernel_dir}/kernel.xml"
    elif kernel_xmls:
        kxml = kernel_xmls[0]
    else:
        raise FpgakernError(f"{where}: no kernel.xml in the archive")
    kernel = kernel_xml.parse(_extract(archive, kxml, where), f"{where}:{kxml}")
    component_vlnv = None
    if ip:
        component = f"{ip}/component.xml"
        if component not in names:
            problems.append(f"xo.xml names IP {ip} but {component} is missing")
        else:
            comp = _xml(archive, component, where)
            ns = {"spirit": "http://www.spiritconsortium.org/XMLSchema/SPIRIT/1685-2009"}
            component_vlnv = ":".join(comp.findtext(f"spirit:{t}", "", ns)
                                      for t in ("vendor", "library", "name", "version"))
            if component_vlnv != kernel.vlnv:
                problems.append(f"component.xml VLNV {component_vlnv} differs from "
                                f"kernel.xml's {kernel.vlnv}")
            if ip != f"ip_repo/{kernel.ip_dir}":
                problems.append(f"IP folder {ip} does not match the VLNV {kernel.vlnv}")
    if entry is not None and entry.get("Name") != kernel.name:
        problems.append(f"xo.xml names kernel {entry.get('Name')!r}, "
                        f"kernel.xml {kernel.name!r}")
    return XoContents(names, kernel, version, ip, flows, component_vlnv, tuple(problems))
