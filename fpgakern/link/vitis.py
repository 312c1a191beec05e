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
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from fpgakern.errors import ToolError, UsageError
from fpgakern.ladder import Plan
from fpgakern.link.linker import Design
from fpgakern.util.files import write_text_atomic

VPP = "v++"
OUTPUT_TAIL_LINES = 20


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


def find_vpp() -> str | None:
    return shutil.which(VPP)


def temp_dir(out: Path, target: str, platform: str) -> Path:
    """The Vitis examples' ``_x.<target>.<platform>`` beside the output."""
    return out.parent / f"_x.{target}.{platform}"


def compile_invocation(plan: Plan, sources: list[Path], out_xo: Path, *, platform: str,
                       target: str = "hw") -> Invocation:
    """``v++ -c`` for one plan: ``sources`` are the kernel .cpp first, then headers (headers
    are found through -I, not compiled)."""
    if not sources:
        raise UsageError(f"no HLS source for {plan.top}: v++ -c needs the kernel .cpp")
    kernel_cpp = sources[0]
    include_dirs = sorted({str(p.parent) for p in sources})
    cmd = (VPP, "-c", "-t", target, "--platform", platform, "-k", plan.top,
           "--temp_dir", str(temp_dir(out_xo, target, platform)),
           *(f"-I{d}" for d in include_dirs), "-o", str(out_xo), str(kernel_cpp))
    return Invocation((), (cmd,))


def link_invocation(design: Design, out: Path) -> Invocation:
    """``v++ -l`` for a linked design; every kernel must have its .xo."""
    missing = [i.origin for i in design.inputs if not i.xo]
    if missing:
        raise UsageError(f"v++ links .xo files; none is built for {', '.join(missing)}: "
                         "run fpgakern build --toolchain vitis first")
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
    if find_vpp() is None:
        raise ToolError(f"{VPP} is not on PATH: source Vitis' settings64.sh, or use "
                        "--toolchain open (no Vitis needed)")
    for path, text in invocation.files:
        write_text_atomic(path, text)
    for cmd in invocation.commands:
        try:
            done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
        except OSError as err:
            raise ToolError(f"cannot run {cmd[0]}: {err.strerror}") from None
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-OUTPUT_TAIL_LINES:])
            raise ToolError(f"{shlex.join(cmd)} failed with exit code {done.returncode}:\n"
                            f"{tail}")
