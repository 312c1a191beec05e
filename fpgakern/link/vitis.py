"""Driving a real ``v++`` (``--toolchain vitis``): the same build, through AMD's tools.

Commands follow the Vitis_Accel_Examples recipes (``vitis-flow.md`` §3.1, §7):

    v++ -c -t <target> --platform <pfm> -k <top> --temp_dir <dir> -I<src dir> -o <top>.xo <top>.cpp
    v++ -l -t <target> --platform <pfm> --config <out>.cfg --temp_dir <dir> -o <out>.xclbin <xo>...

The link config handed to v++ is the one fpgakern's own linker derived (every nk=, sp=,
slr= spelled out), so both toolchains place CUs and banks alike. An :class:`Invocation`
lists the files to write and the commands to run; ``--dry-run`` prints it, and
:func:`execute` carries it out.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from fpgakern.errors import ToolError, UsageError
from fpgakern.ladder import Plan
from fpgakern.link.linker import Design
from fpgakern.tools import gxx
from fpgakern.tools import vitis as tools_vitis
from fpgakern.util.files import write_text_atomic

VPP = tools_vitis.VPP


@dataclass(frozen=True)
class Invocation:
    files: tuple[tuple[Path, str], ...]  # written before the commands run
    commands: tuple[tuple[str, ...], ...]

    def describe(self) -> str:
        """The exact files and commands, as --dry-run prints them."""
        out = []
        for path, text in self.files:
            out.append(f"# write {path}")
            out += [f"#   {line}" for line in text.rstrip("\n").splitlines()]
        out += [shlex.join(cmd) for cmd in self.commands]
        return "\n".join(out) + "\n"


def temp_dir(out: Path, target: str, platform: str) -> Path:
    """The Vitis examples' ``_x.<target>.<platform>`` beside the output."""
    return out.parent / f"_x.{target}.{platform}"


def compile_invocation(plan: Plan, sources: list[Path], out_xo: Path, *, platform: str,
                       target: str = "hw") -> Invocation:
    """``v++ -c`` for one plan: ``sources`` are the kernel .cpp first, then headers (headers
    are found through -I, not compiled). Its config (``<top>.compile.cfg`` beside the .xo)
    runs :func:`no_combined_operators` before synthesis (``[hls] pre_tcl=``, as
    Vitis_Accel_Examples' port_width_widening passes its Tcl); the sources carry the
    STDC FP_CONTRACT pragma themselves (v++ -c documents no option for compiler flags)."""
    if not sources:
        raise UsageError(f"no HLS source for {plan.top}: v++ -c needs the kernel .cpp")
    kernel_cpp = sources[0]
    include_dirs = sorted({str(p.parent) for p in sources})
    pre_tcl = out_xo.with_name(f"{plan.top}.hls_pre.tcl")
    cfg = out_xo.with_name(f"{plan.top}.compile.cfg")
    cmd = (VPP, "-c", "-t", target, "--platform", platform, "-k", plan.top,
           "--config", str(cfg), "--temp_dir", str(temp_dir(out_xo, target, platform)),
           *(f"-I{d}" for d in include_dirs), "-o", str(out_xo), str(kernel_cpp))
    files = ((pre_tcl, f"# Run by v++ -c before synthesis of {plan.top} (written by fpgakern).\n"
              + "\n".join([*no_combined_operators(), *interface_settings(plan)]) + "\n"),
             (cfg, f"# v++ compile config written by fpgakern for {plan.top}\n"
              f"[hls]\npre_tcl={pre_tcl}\n"))
    return Invocation(files, (cmd,))


def link_invocation(design: Design, out: Path) -> Invocation:
    """``v++ -l`` for a linked design; every kernel must have its .xo."""
    missing = [i.origin for i in design.inputs if not i.xo]
    if missing:
        raise UsageError(f"v++ links .xo files; none is built for {', '.join(missing)}: "
                         "run fpgakern build on them first (its xo step writes the .xo)")
    pfm = design.platform.vitis_platform
    cfg = out.with_suffix(".cfg")
    header = (f"# v++ link config written by fpgakern for {out.name} on {design.platform.name}"
              "\n")
    cmd = (VPP, "-l", "-t", design.target, "--platform", pfm, "--config", str(cfg),
           "--temp_dir", str(temp_dir(out, design.target, pfm)), "-o", str(out),
           *(str(i.xo) for i in design.inputs))
    return Invocation(((cfg, header + design.to_config().to_text()),), (cmd,))


def execute(invocation: Invocation, cwd: Path | None = None) -> None:
    """Write the files, run the commands; a missing v++ or a failing command is a ToolError
    carrying the tail of its output."""
    if tools_vitis.find_vpp() is None:
        raise ToolError(f"{VPP} is not on PATH: source Vitis' settings64.sh, or use "
                        "--toolchain open (no Vitis needed)")
    for path, text in invocation.files:
        write_text_atomic(path, text)
    for cmd in invocation.commands:
        tools_vitis.run(cmd, cwd=cwd, timeout=None)  # a v++ link may take hours


HLS_PROJECT = "hls_prj"
HLS_SOLUTION = "solution1"


def _tcl_word(text: str) -> str:
    """``text`` as one Tcl word: braces keep spaces and $ literal."""
    if any(c in text for c in "{}\\"):
        raise UsageError(f"path {text!r} cannot be quoted for Tcl (braces or backslash)")
    return "{" + text + "}"


# UG1399 config_op / Op Binding: "-impl none: Disable inference of combined facc | fmacc |
# fmadd operators". An inferred facc accumulates at config_compile -float_acc_bits (45 by
# default) and an fmadd rounds once, where fpgakern's reference rounds every add and multiply.
COMBINED_FP_OPERATORS = ("facc", "fmacc", "fmadd")


def no_combined_operators() -> list[str]:
    """Tcl that turns off Vitis HLS's inference of combined floating-point operators. Each
    ``config_op`` is caught: a release whose config_op does not know the operator (UG1399
    2020.2 lists none of them) infers none, and says why in its log instead of stopping."""
    return ["# No combined floating-point operators: every add and multiply rounded on its own."] \
        + [f'if {{[catch {{config_op {op} -impl none}} why]}} {{ puts "fpgakern: $why" }}'
           for op in COMBINED_FP_OPERATORS]


def interface_settings(plan: Plan) -> list[str]:
    """Tcl for a register kernel's control registers (UG1399 config_interface, "Using the
    Mailbox"; AMD's mailbox_auto_restart_xrt passes the same in its runPre.tcl): both
    mailboxes and the auto-restart counter, at 0x14, 0x18 and 0x10 as fpgakern's RTL and
    kernel.xml place them (fpgakern.interface). Nothing for the other kinds."""
    if not plan.kernel.auto_restart:
        return []
    return ["# A register kernel: the mailboxes and the auto-restart counter.",
            "config_interface -s_axilite_mailbox both",
            "config_interface -s_axilite_auto_restart_counter 1"]


def hls_script(plan: Plan, kernel_cpp: Path, testbench_cpp: Path, *, part: str,
               clock_mhz: int, csim_argv: list[str], cosim_argv: list[str],
               cosim: bool = True, csim_judge: str = "the case files' reference",
               cosim_judge: str = "the case files' reference") -> str:
    """A Vitis HLS Tcl script (UG1399 "Creating HLS Components" Tcl commands) for one
    variant: C simulation (Vitis' own headers and hls_math), C synthesis for the Vitis
    kernel flow, and C/RTL co-simulation, each judged by the testbench against the
    reference its case files carry (``csim_judge``, ``cosim_judge``: what that is, in
    words, for the script's comments). Run it with
    :func:`fpgakern.tools.vitis.run_script` in the folder it is written to; the reports
    land under :func:`hls_reports`."""
    include = kernel_cpp.parent
    # Contraction off for kernel and testbench whatever the release's clang default (UG1399
    # add_files -cflags: "any GCC compilation options"; the sources' pragma says it too).
    cflags = _tcl_word(f"-I{include} {gxx.NO_FP_CONTRACTION}")
    lines = [
        f"# Vitis HLS script written by fpgakern for {plan.top} (opt{plan.rung.index}).",
        f"open_project -reset {HLS_PROJECT}",
        f"set_top {plan.top}",
        f"add_files {_tcl_word(str(kernel_cpp))} -cflags {cflags}",
        f"add_files -tb {_tcl_word(str(testbench_cpp))} -cflags {cflags}",
        f"open_solution -reset {HLS_SOLUTION} -flow_target vitis",
        f"set_part {_tcl_word(part)}",
        f"create_clock -period {1000 / clock_mhz:.3f} -name default",  # ns
        *no_combined_operators(),
        *interface_settings(plan),
        f"# C simulation judged against {csim_judge}.",
        f"csim_design -argv {_tcl_word(' '.join(csim_argv))}",
        "csynth_design",
    ]
    if cosim:
        lines += [f"# C/RTL co-simulation judged against {cosim_judge}.",
                  f"cosim_design -argv {_tcl_word(' '.join(cosim_argv))}"]
    lines.append("exit")
    return "\n".join(lines) + "\n"


def hls_reports(script_dir: Path, top: str) -> tuple[Path, Path]:
    """Where Vitis HLS writes ``<top>_csynth.xml`` and ``<top>_cosim.rpt`` for a script
    of :func:`hls_script` run in ``script_dir``."""
    solution = script_dir / HLS_PROJECT / HLS_SOLUTION
    return (solution / "syn" / "report" / f"{top}_csynth.xml",
            solution / "sim" / "report" / f"{top}_cosim.rpt")
