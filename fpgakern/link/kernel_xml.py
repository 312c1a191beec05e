"""The kernel description the link layer shares, and its ``kernel.xml`` form.

A :class:`KernelDesc` is what kernel.xml says about one kernel: ports, arguments with
their register offsets, control protocol, VLNV. The .xo carries it as kernel.xml, the
xclbin's EMBEDDED_METADATA and BUILD_METADATA are rendered from it, and a linked .xo is
read back into it, so a kernel named on the command line and one given as a .xo file link
the same way. Layout of the XML: ``vitis-flow.md`` §2.2.
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.etree import ElementTree

from fpgakern.errors import FpgakernError
from fpgakern.interface import KernelInterface, interface
from fpgakern.ladder import Plan
from fpgakern.link._render import render

VENDOR, LIBRARY, VERSION = "fpgakern", "rtl", "1.0"
# kernel.xml language of an RTL IP packaged with a C model for software emulation
# (package_xo -kernel_files); v++ copies it into EMBEDDED_METADATA.
LANGUAGE = "ip_c"
ADDRESS_QUALIFIERS = {0: "scalar", 1: "global", 2: "constant", 3: "local", 4: "stream"}
STREAM_MODES = ("read_only", "write_only")


@dataclass(frozen=True)
class PortDesc:
    name: str
    mode: str  # master (AXI4 MM), slave (AXI-Lite control), read_only / write_only (streams)
    data_width: int
    range: int = 0
    port_type: str = "addressable"
    base: int = 0

    @property
    def is_stream(self) -> bool:
        return self.mode in STREAM_MODES


@dataclass(frozen=True)
class ArgDesc:
    name: str
    address_qualifier: int  # 0 scalar, 1 global memory pointer, 4 stream
    id: int
    port: str
    size: int
    offset: int
    host_size: int
    type: str
    host_offset: int = 0

    @property
    def is_memory(self) -> bool:
        return self.address_qualifier == 1


@dataclass(frozen=True)
class KernelDesc:
    name: str
    vlnv: str
    ports: tuple[PortDesc, ...]
    args: tuple[ArgDesc, ...]
    language: str = LANGUAGE
    hw_control_protocol: str = "ap_ctrl_chain"
    interrupt: bool = True
    # A register kernel's: kernel.xml's mailbox="both" and countedAutoRestart="1", which
    # XRT reads (xrt_xclbin.cpp, get_kernel_properties) to allow xrt::mailbox on it.
    mailbox: str = "none"
    counted_auto_restart: int = 0

    @property
    def features(self) -> str:
        """The <kernel> element's mailbox and auto-restart attributes ("" for most)."""
        if self.mailbox == "none":
            return ""
        return f' mailbox="{self.mailbox}" countedAutoRestart="{self.counted_auto_restart}"'

    @property
    def ip_dir(self) -> str:
        """The IP's folder name in ``ip_repo/``: the VLNV with ``:`` and ``.`` as ``_``."""
        return self.vlnv.replace(":", "_").replace(".", "_")

    def port(self, name: str) -> PortDesc | None:
        """A port by name; v++ accepts any case (EMBEDDED_METADATA upper-cases them)."""
        for p in self.ports:
            if p.name.lower() == name.lower():
                return p
        return None

    @property
    def memory_args(self) -> tuple[ArgDesc, ...]:
        return tuple(a for a in self.args if a.is_memory)

    @property
    def masters(self) -> tuple[PortDesc, ...]:
        return tuple(p for p in self.ports if p.mode == "master")

    @property
    def has_control(self) -> bool:
        """Whether the kernel has its AXI-Lite control port (a free-running one has none)."""
        return any(p.mode == "slave" for p in self.ports)

    @property
    def streams(self) -> tuple[PortDesc, ...]:
        return tuple(p for p in self.ports if p.is_stream)

    def stream_arg(self, port: str) -> ArgDesc | None:
        """The argument carried by AXI4-Stream ``port`` (any case, as v++ accepts)."""
        return next((a for a in self.args
                     if a.address_qualifier == 4 and a.port.lower() == port.lower()), None)

    @property
    def control_range(self) -> int:
        return max((p.range for p in self.ports if p.mode == "slave"), default=0)

    def to_xml(self) -> str:
        return render("kernel.xml.j2", k=self)


def vlnv(top: str) -> str:
    return f"{VENDOR}:{LIBRARY}:{top}:{VERSION}"


def from_interface(iface: KernelInterface) -> KernelDesc:
    ports = tuple(PortDesc(p.name, p.mode, p.data_width, p.range, p.port_type)
                  for p in iface.ports)
    args = tuple(ArgDesc(a.name, a.address_qualifier, a.id, a.port, a.size, a.offset,
                         a.host_size, a.ctype) for a in iface.args)
    # A free-running kernel (ap_ctrl_none) has no control port, so no interrupt either.
    return KernelDesc(iface.top, vlnv(iface.top), ports, args,
                      hw_control_protocol=iface.hw_control_protocol,
                      interrupt=iface.has_control,
                      mailbox="both" if iface.mailbox else "none",
                      counted_auto_restart=1 if iface.mailbox else 0)


def from_plan(plan: Plan) -> KernelDesc:
    return from_interface(interface(plan))


def _int(element: ElementTree.Element, attr: str, where: str, default: str | None = None) -> int:
    raw = element.get(attr, default)
    if raw is None:
        raise FpgakernError(f"{where}: <{element.tag}> lacks the {attr!r} attribute")
    try:
        return int(raw, 0)
    except ValueError:
        raise FpgakernError(f"{where}: <{element.tag} {attr}={raw!r}> is not a number") from None


def parse_kernel(kernel: ElementTree.Element, where: str) -> KernelDesc:
    """A ``<kernel>`` element of kernel.xml or of EMBEDDED_METADATA as a KernelDesc."""
    name = kernel.get("name")
    if not name:
        raise FpgakernError(f"{where}: <kernel> has no name")
    ports = tuple(
        PortDesc(p.get("name", ""), p.get("mode", ""), _int(p, "dataWidth", where, "0"),
                 _int(p, "range", where, "0"), p.get("portType", "addressable"),
                 _int(p, "base", where, "0"))
        for p in kernel.iter("port"))
    args = tuple(
        ArgDesc(a.get("name", ""), _int(a, "addressQualifier", where), _int(a, "id", where),
                a.get("port", ""), _int(a, "size", where, "0"), _int(a, "offset", where, "0"),
                _int(a, "hostSize", where, "0"), a.get("type", "no-type"),
                _int(a, "hostOffset", where, "0"))
        for a in kernel.iter("arg"))
    return KernelDesc(name, kernel.get("vlnv", ""), ports, args,
                      kernel.get("language", ""),
                      kernel.get("hwControlProtocol", "ap_ctrl_hs"),
                      kernel.get("interrupt", "false") == "true",
                      kernel.get("mailbox", "none"),
                      _int(kernel, "countedAutoRestart", where, "0"))


def parse(text: str | bytes, where: str) -> KernelDesc:
    """Read a kernel.xml; ``where`` names it in errors."""
    try:
        root = ElementTree.fromstring(text)
    except (ElementTree.ParseError, LookupError) as err:  # LookupError: an unknown encoding=
        raise FpgakernError(f"{where}: not well-formed XML ({err})") from None
    kernels = root.findall("kernel")
    if root.tag != "root" or len(kernels) != 1:
        raise FpgakernError(f"{where}: expected <root> holding one <kernel>, "
                            f"found <{root.tag}> with {len(kernels)}")
    return parse_kernel(kernels[0], where)
