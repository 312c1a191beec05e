"""AMD's Vitis tools: finding them, running them, and reading Vitis HLS's reports.

This is the one driver of ``v++``, ``vitis_hls`` and (from Vitis 2024.2) ``vitis-run
--mode hls --tcl``, vitis_hls' replacement: every run goes through :func:`run`.
``fpgakern.link.vitis`` writes the scripts and the ``v++`` command lines. Report formats
follow AMD's documented files (UG1399 "Output Files of C Synthesis"; Vitis_Accel_Examples
``common/utility/hls_qor_check.py`` reads the same ``<top>_csynth.xml``); fpgakern's tests
check the parser on a sample written to that format, not on a report from a real Vitis run
(none was available where it was written).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fpgakern.errors import ToolError

VPP = "v++"
VITIS_HLS = "vitis_hls"
VITIS_RUN = "vitis-run"
OUTPUT_TAIL_LINES = 20
# csynth of one kernel takes minutes; cosim of a rung-0 kernel on 4096 elements longer.
TIMEOUT = 4 * 3600.0
RESOURCES = ("BRAM_18K", "DSP", "FF", "LUT", "URAM")


def hls_command(script: Path) -> list[str]:
    """The command that runs the Tcl ``script``: ``vitis_hls -f`` where Vitis HLS is on
    PATH, else ``vitis-run --mode hls --tcl`` (Vitis 2024.2 and later). A ToolError in one
    line when neither is."""
    if shutil.which(VITIS_HLS):
        return [VITIS_HLS, "-f", str(script)]
    if shutil.which(VITIS_RUN):
        return [VITIS_RUN, "--mode", "hls", "--tcl", str(script)]
    raise ToolError(f"neither {VITIS_HLS} nor {VITIS_RUN} is on PATH: source Vitis' "
                    "settings64.sh first (docs/vitis.md, 'On the first machine with Vitis')")


def find_vpp() -> str | None:
    return shutil.which(VPP)


def run(argv: Sequence[str], *, cwd: Path | None = None, timeout: float | None = TIMEOUT,
        log: Path | None = None) -> str:
    """Run one Vitis command in ``cwd``; its output (also written to ``log``, when given,
    whether the command succeeds or not). A program that cannot start, a timeout or a
    non-zero exit is a ToolError ending with the tail of the output."""
    try:
        done = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise ToolError(f"{argv[0]} timed out after {timeout:g} s") from None
    except OSError as err:
        raise ToolError(f"cannot run {argv[0]}: {err.strerror}") from None
    output = done.stdout + done.stderr
    if log is not None:
        log.write_text(output)
    if done.returncode != 0:
        tail = "\n".join(output.splitlines()[-OUTPUT_TAIL_LINES:])
        raise ToolError(f"{shlex.join(argv)} failed with exit code {done.returncode}:\n{tail}")
    return output


def run_script(script: Path, *, timeout: float = TIMEOUT) -> str:
    """Run a Vitis HLS Tcl script in its folder (its log: ``vitis_hls.out`` there)."""
    return run(hls_command(script), cwd=script.parent, timeout=timeout,
               log=script.parent / "vitis_hls.out")


@dataclass
class LoopFigures:
    name: str
    ii: int | None
    trip_count: int | None
    latency: int | None


@dataclass
class Csynth:
    """The figures of one ``<top>_csynth.xml``. Latency and interval are in cycles of the
    target clock; ``None`` where the report says ``undef`` (a loop with a variable bound
    and no LOOP_TRIPCOUNT)."""

    top: str
    part: str
    target_clock_ns: float | None
    estimated_clock_ns: float | None
    latency_best: int | None
    latency_worst: int | None
    interval_min: int | None
    interval_max: int | None
    resources: dict[str, int] = field(default_factory=dict)
    available: dict[str, int] = field(default_factory=dict)
    loops: list[LoopFigures] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    match = re.match(r"\s*([0-9]+(?:\.[0-9]+)?)", text)
    return float(match.group(1)) if match else None


def _int(text: str | None) -> int | None:
    value = _number(text)
    return None if value is None else int(value)


def parse_csynth(path: Path) -> Csynth:
    """Read ``<top>_csynth.xml``. A missing or malformed file is a ToolError naming it."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError, LookupError) as err:  # LookupError: an unknown encoding=
        raise ToolError(f"cannot read the synthesis report {path}: {err}") from None

    def text(where: str) -> str | None:
        found = root.find(where)
        return found.text if found is not None else None

    overall = "PerformanceEstimates/SummaryOfOverallLatency/"
    loops = []
    summary = root.find("PerformanceEstimates/SummaryOfLoopLatency")
    # Each loop is an element named after its label, or (in some releases) <Loop> with a
    # <Name> child; nested loops appear inside their parent.
    for loop in (summary.iter() if summary is not None else ()):
        if loop is summary or loop.find("TripCount") is None and loop.find("PipelineII") is None:
            continue
        name = loop.findtext("Name") or loop.tag
        loops.append(LoopFigures(name, _int(loop.findtext("PipelineII")),
                                 _int(loop.findtext("TripCount")),
                                 _int(loop.findtext("Latency"))))

    def resources(where: str) -> dict[str, int]:
        block = root.find(where)
        if block is None:
            return {}
        out = {}
        for name in RESOURCES:
            value = _int(block.findtext(name))
            if value is not None:
                out[name] = value
        return out

    return Csynth(
        top=text("UserAssignments/TopModelName") or path.name.removesuffix("_csynth.xml"),
        part=text("UserAssignments/Part") or "",
        target_clock_ns=_number(text("UserAssignments/TargetClockPeriod")),
        estimated_clock_ns=_number(
            text("PerformanceEstimates/SummaryOfTimingAnalysis/EstimatedClockPeriod")),
        latency_best=_int(text(overall + "Best-caseLatency")),
        latency_worst=_int(text(overall + "Worst-caseLatency")),
        interval_min=_int(text(overall + "Interval-min")),
        interval_max=_int(text(overall + "Interval-max")),
        resources=resources("AreaEstimates/Resources"),
        available=resources("AreaEstimates/AvailableResources"),
        loops=loops,
    )


def parse_cosim(path: Path) -> str | None:
    """The verdict of ``<top>_cosim.rpt`` ("Pass" or "Fail" in its Verilog/VHDL row),
    or None when the file is absent (cosim not run, or it stopped before reporting)."""
    try:
        report = path.read_text(errors="replace")
    except OSError:
        return None
    match = re.search(r"\|\s*(?:Verilog|VHDL)\s*\|\s*(Pass|Fail)\s*\|", report, re.IGNORECASE)
    return match.group(1).capitalize() if match else None
