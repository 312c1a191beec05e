"""The simulation wrapper around a generated kernel: N compute units plus memory models.

The wrapper is rendered from ``sim/templates/sim_top.sv.j2``. Its port list is derived
from the kernel's own top module (parsed from the generated ``.sv``), so optional AXI
signals such as IDs are wired when present and tied off when the memory model does not
drive them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fpgakern import paths
from fpgakern.errors import ToolError
from fpgakern.util.jinja import environment

WRAPPER = "fk_sim_top"
# The one-CU module a hierarchical model verilates once (see render's ``hier``).
CU_MODULE = "fk_sim_cu"
Memory = Literal["fast", "axiram"]

# The signals of one AXI4 master that fk_axi_mem serves (sim/hdl/fk_axi_mem.sv).
MEM_SIGNALS = (
    "arvalid", "arready", "araddr", "arlen", "arsize", "arburst",
    "rvalid", "rready", "rdata", "rresp", "rlast",
    "awvalid", "awready", "awaddr", "awlen", "awsize", "awburst",
    "wvalid", "wready", "wdata", "wstrb", "wlast",
    "bvalid", "bready", "bresp",
)

# An AXI4-Stream port's signals as the kernel names them (Vitis: <name>_TDATA ...); the
# wrapper exports them per CU in lower case (cu0_<name>_tdata), as cocotbext-axi's
# AxiStreamBus.from_prefix expects.
_STREAM_RE = re.compile(r"^(\w+)_T(DATA|VALID|READY|LAST|KEEP|STRB)$")

_PORT_RE = re.compile(
    r"^\s*(input|output)\s+(?:logic|wire|reg|bit)?\s*(\[[^\]]+\])?\s*(\w+)\s*[,)]?", re.M
)
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def sim_dir() -> Path:
    """The ``sim/`` folder: testbenches, memory model sources and templates."""
    return paths.data_dir("sim")


@dataclass(frozen=True)
class Port:
    direction: str  # "input" / "output", as the kernel declares it
    width: str  # "[511:0]" or ""
    name: str
    tie: str | None = None  # what drives a kernel input the wrapper does not serve

    @property
    def stream_name(self) -> str:
        """The wrapper's name of a stream signal (x_TDATA: x_tdata)."""
        match = _STREAM_RE.match(self.name)
        assert match, self.name
        return f"{match.group(1)}_t{match.group(2).lower()}"


def kernel_ports(top_file: Path, top: str) -> list[Port]:
    """The ports of module ``top`` in ``top_file``, in declaration order."""
    text = _COMMENT_RE.sub("", top_file.read_text())
    match = re.search(rf"\bmodule\s+{re.escape(top)}\b(.*?)\)\s*;", text, re.DOTALL)
    if not match:
        raise ToolError(f"module {top} not found in {top_file}")
    return [Port(d, w or "", n) for d, w, n in _PORT_RE.findall(match.group(1))]


@dataclass(frozen=True)
class Bundle:
    name: str
    data_w: int
    mem_signals: tuple[str, ...]


def render(top: str, top_file: Path, bundles: dict[str, int], cus: int,
           memory: Memory, *, hier: bool = False) -> str:
    """The wrapper's SystemVerilog for ``cus`` instances of ``top``; a kernel's AXI4-Stream
    ports are exported per CU (``cu0_<name>_tdata``), for the testbench to drive. With
    ``hier`` each instance is a :data:`CU_MODULE` around ``top``, which :func:`hier_config`
    makes a hierarchical block (fast memory model only: AxiRam reaches the ports through
    VPI; not for stream kernels, which have one CU)."""
    ports = kernel_ports(top_file, top)
    names = {p.name for p in ports}
    control = [p for p in ports if p.name.startswith("s_axi_control_")]
    streams = [p for p in ports if _STREAM_RE.match(p.name)]
    masters: list[Port] = []
    for p in ports:
        if not p.name.startswith("m_axi_"):
            continue
        bundle, _, signal = p.name.removeprefix("m_axi_").rpartition("_")
        served = signal in MEM_SIGNALS
        tie = "'0" if memory == "fast" and p.direction == "input" and not served else None
        masters.append(Port(p.direction, p.width, p.name, tie))
    missing = [f"m_axi_{b}_{s}" for b in bundles for s in MEM_SIGNALS
               if f"m_axi_{b}_{s}" not in names]
    # A free-running kernel (ap_ctrl_none) has neither control port nor interrupt: only
    # streams.
    free_running = bool(streams) and not control and "interrupt" not in names
    if missing or (not free_running and (not control or "interrupt" not in names)):
        absent = missing[:4] or ["s_axi_control_*" if not control else "interrupt"]
        raise ToolError(f"{top}: the kernel lacks Vitis RTL-kernel ports: {', '.join(absent)}")
    if streams and hier:
        raise ToolError(f"{top}: a stream kernel is not simulated as hierarchical blocks")
    return environment(sim_dir() / "templates").get_template("sim_top.sv.j2").render(
        wrapper=WRAPPER,
        top=top,
        hier=hier and memory == "fast",
        cu_module=CU_MODULE,
        cus=cus,
        memory=memory,
        control=control,
        masters=masters,
        streams=streams,
        free_running=free_running,
        bundles=[Bundle(b, w, MEM_SIGNALS) for b, w in bundles.items()],
    )


def public_config() -> str:
    """A Verilator config giving cocotb (VPI) access to the wrapper's signals only.

    ``--public-flat-rw`` on the whole design costs 2-4x in speed
    (shared/reference/sim-figures.md); the testbench needs nothing inside the kernel.
    """
    return f'`verilator_config\npublic_flat_rw -module "{WRAPPER}" -var "*"\n'


def hier_config() -> str:
    """Verilator config lines that verilate :data:`CU_MODULE` once, as a hierarchical
    block (with ``--hierarchical``)."""
    return f'hier_block -module "{CU_MODULE}"\n'

