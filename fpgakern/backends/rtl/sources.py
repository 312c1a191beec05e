"""The SystemVerilog files a generated kernel needs: support library and operator modules.

``lib/`` holds the hand-written support modules every kernel shares (control slave, AXI
engines, FIFO, RAM, delay lines) and the FFT cores; ``oplib/`` the operator library. Both
are referenced in place. The FFT cores' twiddle ROM is generated into the fpgakern cache
(:mod:`fpgakern.backends.rtl.twiddle_rom`) and listed from there. Operator files are found
by the modules they define, with the files those modules instantiate, so a kernel's file
list stays minimal (and its simulation cache key stable when unrelated operators change).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from fpgakern.backends.rtl import twiddle_rom
from fpgakern.errors import ToolError

RTL_DIR = Path(__file__).resolve().parent
LIB_DIR = RTL_DIR / "lib"
OPLIB_DIR = RTL_DIR / "oplib"

_MODULE_RE = re.compile(r"^\s*module\s+(\w+)", re.MULTILINE)
_WORD_RE = re.compile(r"\b[A-Za-z_]\w*\b")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


FFT_PREFIX = "fk_fft_"  # the FFT cores' files: in lib/, but only transform kernels use them
# The contraction kind's PE (fpgakern.verify.pesim) and its element-wise read and write
# engines: in lib/, but only contractions use them.
CONTRACTION_FILES = ("fk_mac_pe.sv", "fk_gather.sv", "fk_scatter.sv")
FFT_OPERATORS = ("fk_fp32_add", "fk_fp32_sub", "fk_fp32_mul")
FFT_SUPPORT = ("fk_delay", "fk_valid_delay", "fk_ram", "fk_fifo")


def library_files() -> list[Path]:
    """Every support module every kernel compiles, sorted by name (none depends on
    another's compile order). The FFT cores (fk_fft_*, with their 16385-word twiddle ROM)
    are left out: see fft_files; so is the contraction kind's PE (CONTRACTION_FILES)."""
    return sorted(p for p in LIB_DIR.glob("*.sv")
                  if not p.name.startswith(FFT_PREFIX) and p.name not in CONTRACTION_FILES)


def contraction_files() -> list[Path]:
    """The contraction kind's own support modules (CONTRACTION_FILES), in name order."""
    return [LIB_DIR / name for name in sorted(CONTRACTION_FILES)]


def twiddle_files() -> list[Path]:
    """The FFT's twiddle unit: the generated quarter-wave ROM and fk_fft_twiddle (lib/)
    over it."""
    return [twiddle_rom.rom_file(), LIB_DIR / "fk_fft_twiddle.sv"]


def fft_files() -> list[Path]:
    """Every file the FFT cores fk_fft_sdf and fk_fft_lanes need: the fk_fft_* files with
    the generated twiddle ROM (by name), the support modules they use and the float32 add,
    sub and mul operators."""
    cores = {p.name: p for p in LIB_DIR.glob(f"{FFT_PREFIX}*.sv")}
    cores.update((p.name, p) for p in twiddle_files())
    return [*(cores[name] for name in sorted(cores)),
            *(LIB_DIR / f"{m}.sv" for m in FFT_SUPPORT),
            *operator_files(FFT_OPERATORS)]


def strip_comments(text: str) -> str:
    return _COMMENT_RE.sub("", text)


def identifiers(text: str) -> set[str]:
    """Every identifier in ``text``: among them the modules it instantiates."""
    return set(_WORD_RE.findall(text))


def module_index(folder: Path = OPLIB_DIR) -> dict[str, Path]:
    """Every module defined in the .sv files of ``folder``, mapped to its file."""
    index: dict[str, Path] = {}
    for path in sorted(folder.glob("*.sv")):
        for name in _MODULE_RE.findall(_COMMENT_RE.sub("", path.read_text())):
            index[name] = path
    return index


def operator_files(modules: Iterable[str], folder: Path = OPLIB_DIR) -> list[Path]:
    """The oplib files defining ``modules`` and, transitively, what they instantiate."""
    index = module_index(folder)
    needed: list[Path] = []
    todo: list[Path] = []
    for module in modules:
        if module not in index:
            raise ToolError(f"RTL operator module {module!r} is not defined in {folder}")
        todo.append(index[module])
    while todo:
        path = todo.pop()
        if path in needed:
            continue
        needed.append(path)
        words = identifiers(strip_comments(path.read_text()))
        todo.extend(index[w] for w in sorted(words) if w in index and index[w] not in needed)
    return sorted(needed)
