"""The Vitis section of the report: what Vitis HLS made of each variant, beside
fpgakern's own figures for it (its RTL's simulated cycles, its csim verdict)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fpgakern.util.files import write_text_atomic

FOLDER = ("reports", "vitis")


@dataclass
class VitisRow:
    variant: str  # category/kernel opt<N> dtype
    vitis: dict[str, Any]  # csynth figures (tools.vitis.Csynth.to_json), cosim verdict
    fpgakern: dict[str, Any]  # cycles, elements/cycle of fpgakern's RTL; csim verdict


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


def _ii(vitis: dict[str, Any]) -> str:
    """The largest pipelined loop II (the rung's steady state), else the interval."""
    iis = [loop["ii"] for loop in vitis.get("loops", []) if loop.get("ii")]
    return _cell(max(iis) if iis else vitis.get("interval_min"))


COLUMNS = ("variant", "Vitis II", "Vitis latency", "LUT", "FF", "DSP", "BRAM_18K",
           "Vitis cosim", "fpgakern cycles", "fpgakern elem/cycle", "fpgakern csim")


def cells(row: VitisRow) -> list[str]:
    v, f = row.vitis, row.fpgakern
    used = v.get("resources", {})
    return [row.variant, _ii(v), _cell(v.get("latency_worst")),
            *(_cell(used.get(k)) for k in ("LUT", "FF", "DSP", "BRAM_18K")),
            _cell(v.get("cosim")), _cell(f.get("cycles")),
            _cell(f.get("elements_per_cycle")), _cell(f.get("csim"))]


def markdown(rows: list[VitisRow]) -> str:
    head = "| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n"
    body = "".join("| " + " | ".join(cells(r)) + " |\n" for r in rows)
    return ("# Vitis HLS against fpgakern\n\nVitis: csynth estimates (II of the slowest "
            "pipelined loop, worst-case latency in cycles, resources) and the C/RTL "
            "co-simulation verdict. fpgakern: its own RTL's cycles in Verilator for the "
            "build's test size, and its csim verdict.\n\n" + head + body)


def write(build_root: Path, rows: list[VitisRow]) -> Path:
    """``build/reports/vitis/vitis.json`` and ``vitis.md``; the folder."""
    folder = build_root.joinpath(*FOLDER)
    folder.mkdir(parents=True, exist_ok=True)
    data = [{"variant": r.variant, "vitis": r.vitis, "fpgakern": r.fpgakern} for r in rows]
    write_text_atomic(folder / "vitis.json", json.dumps(data, indent=2) + "\n")
    write_text_atomic(folder / "vitis.md", markdown(rows))
    return folder
