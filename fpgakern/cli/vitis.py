"""``fpgakern vitis``: run Vitis HLS on chosen variants and report its figures beside
fpgakern's own (docs/vitis.md, "On the first machine with Vitis")."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from fpgakern import paths
from fpgakern.backends.hls import HlsSources, generate
from fpgakern.backends.hls.generator import sources_in
from fpgakern.cli._common import (
    RUNG,
    console,
    err_console,
    json_option,
    load_library,
    print_json,
    specs_option,
)
from fpgakern.cli._select import plans_for
from fpgakern.errors import ToolError, UsageError, display_path
from fpgakern.ir.ops import HLS_CLOCK_MHZ
from fpgakern.ladder import Plan
from fpgakern.link import platforms
from fpgakern.link import vitis as link_vitis
from fpgakern.report import vitis as report_vitis
from fpgakern.tools import vitis as tools_vitis
from fpgakern.verify import csim, flush, registers

EPILOG = """\b
Examples:
  fpgakern vitis binary_ops/add reduce_ops/sum --opt 2 --dtype float32
  fpgakern vitis 'unary_ops/*' --opt 4 --no-cosim
  fpgakern vitis binary_ops/add --opt 4 --dry-run     # write the scripts, run nothing
"""

# Elements per test case in Vitis csim and cosim: enough for every lane, tail and CU
# split, small enough for RTL co-simulation of rung 0 to finish in minutes.
CASE_SIZE = 256


def _sources(p: Plan, variant: Path, folder: Path) -> HlsSources:
    """The build tree's HLS files when the build made them, else fresh ones."""
    built = sources_in(p, variant)
    if built.kernel.is_file() and built.testbench.is_file():
        return built
    return generate(p, folder / "src")


def _case_args(p: Plan, folder: Path, *, cosim: bool) -> list[str]:
    """Case files for the testbench and its argv (case and result file pairs): for C
    simulation torch's reference as Vitis C simulation computes it (hls::sqrt flushes
    subnormals), for co-simulation the flushing reference of the RTL Vitis builds."""
    tag = "cosim" if cosim else "csim"
    if p.kernel.kind == "registers":  # one file of scalar cases (verify.registers)
        path = folder / f"{tag}_case0.bin"
        registers.write_case(p, path, flush.apply if cosim else flush.csim_apply)
        return [str(path), str(folder / f"{tag}_out0.bin")]
    argv = []
    for i, case in enumerate(csim.cases_for(p, CASE_SIZE)):
        path = folder / f"{tag}_case{i}.bin"
        csim.write_any_case(case, p, path, flush_subnormals=cosim, vitis_csim=not cosim)
        argv += [str(path), str(folder / f"{tag}_out{i}.bin")]
    return argv


def csim_judge(p: Plan) -> str:
    """What the Vitis C simulation cases are judged against, in words."""
    fpo = flush.csim_fpo_ops(p.kernel, p.dtype.name)
    if not fpo:
        return "torch's reference"
    return (f"torch's reference with {', '.join(fpo)} flushing subnormals (Vitis C simulation "
            f"computes {', '.join(flush.CSIM_FPO_FUNCTIONS)} with the Floating-Point "
            "Operator core's C model)")


def cosim_judge(p: Plan) -> str:
    """What the co-simulation cases are judged against, in words."""
    if p.kernel.staged(p.dtype.name) is not None:
        return "torch's reference (shaped kernels have no flushing reference)"
    return "the flushing reference (Vitis-built float hardware flushes subnormals)"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _fpgakern_figures(variant: Path) -> dict[str, Any]:
    """What fpgakern's own build measured for the variant, where it has run."""
    sim = _read_json(variant / "sim" / "result.json") or \
        _read_json(variant / "sim-fast" / "result.json")
    csim_report = _read_json(variant / "csim" / "report.json")
    return {"cycles": sim.get("cycles"), "elements_per_cycle": sim.get("elements_per_cycle"),
            "sim_size": sim.get("size"),
            "csim": None if not csim_report else
            ("pass" if csim_report.get("passed") else "FAIL")}


@click.command("vitis", epilog=EPILOG)
@click.argument("kernels", nargs=-1, required=True)
@click.option("--opt", "rung", type=RUNG, required=True, help="The rung to synthesize.")
@click.option("--dtype", default=None, help="This dtype only (default: all).")
@click.option("--platform", "platform_name", default=platforms.DEFAULT, show_default=True,
              help="Platform whose FPGA part Vitis HLS targets.")
@click.option("--no-cosim", is_flag=True, help="C simulation and synthesis only.")
@click.option("--dry-run", is_flag=True,
              help="Write each variant's Tcl script and case files; run nothing.")
@specs_option
@json_option
def command(kernels: tuple[str, ...], rung: int, dtype: str | None, platform_name: str,
            no_cosim: bool, dry_run: bool, specs: Path | None, as_json: bool) -> None:
    """Synthesize variants with Vitis HLS and report II, latency, resources and the
    co-simulation verdict next to fpgakern's own figures.

    Needs vitis_hls (or Vitis 2024.2's vitis-run) on PATH; without it, says so and exits
    non-zero. Each variant's script, case files and Vitis project go to
    build/<category>/<kernel>/opt<N>/<dtype>/vitis/; the report to
    build/reports/vitis/vitis.md and vitis.json.
    """
    library = load_library(specs)
    plans = plans_for(library, kernels, all_kernels=False, rungs=(rung,), dtype=dtype)
    part = platforms.load(platform_name).board.get("part", "")
    if not part:
        raise UsageError(f"platform {platform_name} names no FPGA part (board: part:)")
    if not dry_run:
        tools_vitis.hls_command(Path("run_hls.tcl"))  # one line now, if Vitis is absent
    root = paths.build_dir(library.root.parent)
    rows = []
    for p in plans:
        kernel, d = p.kernel, p.dtype.name
        variant = paths.variant_dir(root, kernel.category, kernel.name, rung, d)
        folder = variant.resolve() / "vitis"  # absolute: vitis_hls runs the script there
        folder.mkdir(parents=True, exist_ok=True)
        sources = _sources(p, variant, folder)
        script = folder / "run_hls.tcl"
        script.write_text(link_vitis.hls_script(
            p, sources.kernel, sources.testbench, part=part, clock_mhz=HLS_CLOCK_MHZ,
            csim_argv=_case_args(p, folder, cosim=False),
            cosim_argv=_case_args(p, folder, cosim=True), cosim=not no_cosim,
            csim_judge=csim_judge(p), cosim_judge=cosim_judge(p)))
        name = f"{kernel.qualname} opt{rung} {d}"
        if dry_run:
            console.print(Text(f"{name}: {script}"), soft_wrap=True)
            console.print(Text(f"  csim judged against {csim_judge(p)}"), soft_wrap=True)
            if not no_cosim:
                console.print(Text(f"  cosim judged against {cosim_judge(p)}"), soft_wrap=True)
            continue
        if not as_json:
            err_console.print(f"[dim]vitis_hls {name}...[/]")
        try:
            tools_vitis.run_script(script)
            failure = None
        except ToolError as err:
            failure = str(err).splitlines()[0]
        csynth_xml, cosim_rpt = link_vitis.hls_reports(folder, p.top)
        figures: dict[str, Any] = {"error": failure}
        if csynth_xml.is_file():
            figures.update(tools_vitis.parse_csynth(csynth_xml).to_json())
        figures["cosim"] = None if no_cosim else tools_vitis.parse_cosim(cosim_rpt)
        rows.append(report_vitis.VitisRow(name, figures, _fpgakern_figures(variant)))
    if dry_run:
        return
    folder = report_vitis.write(root, rows)
    if as_json:
        print_json({"report": str(folder), "results": [
            {"variant": r.variant, "vitis": r.vitis, "fpgakern": r.fpgakern} for r in rows]})
    else:
        console.print(report_vitis.markdown(rows), markup=False, soft_wrap=True)
        for r in rows:
            if r.vitis.get("error"):
                console.print(Text.assemble(("FAIL", "red"), f" {r.variant}: {r.vitis['error']}"),
                              soft_wrap=True)
        console.print(Text(f"report: {display_path(folder / 'vitis.md')}"), soft_wrap=True)
    if any(r.vitis.get("error") or r.vitis.get("cosim") == "Fail" for r in rows):
        sys.exit(1)
