"""Resource estimates of a generated kernel: Yosys ``synth_xilinx`` for UltraScale+.

``estimate(plan)`` generates the kernel into a temporary folder, reads every source with
Yosys's SystemVerilog frontend, synthesises with ``synth_xilinx -family xcup -flatten
-noiopad`` and counts cells by kind: LUTs, flip-flops, DSP48E2 slices, block RAM (in
BRAM36 equivalents, RAMB18 counting half) and CARRY8 chains. These are synthesis
estimates without place and route or timing, good for comparing rungs and kernels.
Results are cached by content (the sources, the script and Yosys's version) under
``cache_dir()/yosys-estimates/``: a second estimate of unchanged RTL costs nothing.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from fpgakern.backends.rtl import pe
from fpgakern.backends.rtl.generate import generate
from fpgakern.errors import ToolError
from fpgakern.ladder import Plan
from fpgakern.paths import cache_dir
from fpgakern.tools import yosys
from fpgakern.tools.cache import key_of

_KINDS: dict[str, tuple[str, float]] = {}  # cell type -> (resource, weight)
for cell in ("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "LUT6_2"):
    _KINDS[cell] = ("lut", 1.0)
for cell in ("FDRE", "FDSE", "FDCE", "FDPE"):
    _KINDS[cell] = ("ff", 1.0)
for cell in ("DSP48E2", "DSP48E1"):
    _KINDS[cell] = ("dsp", 1.0)
_KINDS.update({"RAMB36E2": ("bram", 1.0), "RAMB18E2": ("bram", 0.5),
               "RAMB36E1": ("bram", 1.0), "RAMB18E1": ("bram", 0.5),
               "CARRY8": ("carry", 1.0), "CARRY4": ("carry", 1.0)})
# Distributed RAM and shift registers are LUTs too.
_LUT_PREFIXES = ("RAM32", "RAM64", "RAM128", "RAM256", "RAM512", "SRL")


def script(files: list[str], top: str, json_out: str) -> str:
    reads = "\n".join(f"read_verilog -sv {name}" for name in files)
    return (
        f"{reads}\n"
        f"synth_xilinx -family xcup -flatten -noiopad -top {top}\n"
        f"tee -q -o {json_out} stat -json\n"
    )


def count(stat: dict) -> dict[str, float]:
    """LUT/FF/DSP/BRAM/CARRY totals from Yosys ``stat -json`` output."""
    totals = {"lut": 0.0, "ff": 0.0, "dsp": 0.0, "bram": 0.0, "carry": 0.0}
    modules = stat.get("modules", {})
    design: dict = stat.get("design") or next(iter(modules.values()), {})
    for cell, number in design.get("num_cells_by_type", {}).items():
        cell = cell.lstrip("\\$")
        if cell in _KINDS:
            kind, weight = _KINDS[cell]
            totals[kind] += weight * number
        elif cell.startswith(_LUT_PREFIXES):
            totals["lut"] += number
    return totals


def estimate(plan: Plan, timeout: float = 1800) -> dict[str, float]:
    """Synthesise ``plan``'s kernel with Yosys; returns ``{lut, ff, dsp, bram, carry}``."""
    with tempfile.TemporaryDirectory(prefix="fk-yosys-") as folder:
        work = Path(folder)
        rtl = generate(plan, work / "rtl")
        # Yosys runs in ``work`` and sees only it (see run_script): gather the sources there.
        names = []
        for path in rtl.files:
            (work / path.name).write_bytes(path.read_bytes())
            names.append(path.name)
        json_out = work / "stat.json"
        text = script(names, rtl.top, json_out.name)
        key = key_of(text, str(yosys.version()), *((work / n).read_bytes() for n in names))
        cached = cache_dir() / "yosys-estimates" / f"{rtl.top}-{key}.json"
        if cached.is_file():
            return dict(json.loads(cached.read_text()))
        (work / "synth.ys").write_text(text)
        done = yosys.run_script(work, "synth.ys", timeout=timeout, what=plan.top)
        if done.returncode != 0 or not json_out.exists():
            lines = (done.stderr or done.stdout).strip().splitlines()
            errors = [line for line in lines if re.search(r"error", line, re.IGNORECASE)]
            raise ToolError(f"yosys failed on {plan.top}: {(errors or lines or ['?'])[-1]}")
        totals = count(json.loads(json_out.read_text()))
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(".tmp")
        partial.write_text(json.dumps(totals))
        partial.replace(cached)  # whole or absent: never half a file
        return totals


def pe_estimate(dtype_name: str, slots: int = 1, timeout: float = 1800) -> dict[str, float]:
    """Synthesise the contraction PE (fk_mac_pe with fpgakern.backends.rtl.pe's parameters for
    ``dtype_name`` and ``slots``) with Yosys; returns ``{lut, ff, dsp, bram, carry}``."""
    files = pe.pe_sources(dtype_name)
    params = pe.pe_parameters(dtype_name, slots)
    with tempfile.TemporaryDirectory(prefix="fk-yosys-pe-") as folder:
        work = Path(folder)
        for path in files:
            (work / path.name).write_bytes(path.read_bytes())
        json_out = work / "stat.json"
        reads = "\n".join(f"read_verilog -sv {p.name}" for p in files)
        chparam = " ".join(f"-set {name} {value}" for name, value in params.items())
        text = (f"{reads}\nchparam {chparam} {pe.PE}\n"
                f"synth_xilinx -family xcup -flatten -noiopad -top {pe.PE}\n"
                f"tee -q -o {json_out.name} stat -json\n")
        key = key_of(text, str(yosys.version()), *(p.read_bytes() for p in files))
        cached = cache_dir() / "yosys-estimates" / f"{pe.PE}-{dtype_name}-{slots}-{key}.json"
        if cached.is_file():
            return dict(json.loads(cached.read_text()))
        (work / "synth.ys").write_text(text)
        done = yosys.run_script(work, "synth.ys", timeout=timeout, what=pe.PE)
        if done.returncode != 0 or not json_out.exists():
            lines = (done.stderr or done.stdout).strip().splitlines()
            raise ToolError(f"yosys failed on {pe.PE}: {(lines or ['?'])[-1]}")
        totals = count(json.loads(json_out.read_text()))
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(".tmp")
        partial.write_text(json.dumps(totals))
        partial.replace(cached)
        return totals
