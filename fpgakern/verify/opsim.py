"""Run one RTL operator of the operator library in Verilator on vectors of operands.

The operator contract (see docs/operators.md): ports ``clk``, ``ce``, ``a`` (``b``, ``c``)
and ``y``; a new operand set every cycle with ``ce`` high; the result of the set presented
in ce-cycle t appears in ce-cycle t + latency. A small C++ driver (``opsim_harness.cpp``
beside this file) feeds one operand set per ce-cycle from a binary file and records ``y``
in every ce-cycle; Python slices off the latency and compares.

Each (module, arity) is verilated and compiled once: the build is cached under
``fpgakern.paths.cache_dir() / "opsim"`` by a hash of the RTL sources the module needs, the
driver, the flags and the Verilator version. Builds happen in a private temporary folder
and are renamed into place, so concurrent test processes never see a half-built model.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fpgakern.errors import ToolError
from fpgakern.paths import cache_dir
from fpgakern.verify import tools

OPLIB_DIR = Path(__file__).resolve().parents[1] / "backends" / "rtl" / "oplib"
HARNESS = Path(__file__).resolve().with_name("opsim_harness.cpp")

# -O3 and x-assign/x-initial fast are free speed (reference/sim-figures.md); --threads is
# far slower on a 2-core machine, so it is never used.
VERILATOR_FLAGS = ("-O3", "--x-assign", "fast", "--x-initial", "fast", "-CFLAGS", "-O2")
MAX_LATENCY = 64  # measure_latency searches shifts 0..MAX_LATENCY

_MODULE_RE = re.compile(r"^\s*module\s+(\w+)", re.MULTILINE)
_WORD_RE = re.compile(r"\b[A-Za-z_]\w*\b")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


# --------------------------------------------------------------------------- sources


def module_index(folder: Path = OPLIB_DIR) -> dict[str, Path]:
    """Every module defined in the .sv files of ``folder``, mapped to its file."""
    index: dict[str, Path] = {}
    for path in sorted(folder.glob("*.sv")):
        text = _COMMENT_RE.sub("", path.read_text())
        for name in _MODULE_RE.findall(text):
            index[name] = path
    return index


def module_sources(module: str, folder: Path = OPLIB_DIR) -> list[Path]:
    """The files ``module`` needs: its own file plus, transitively, every file defining a
    module that one of them mentions. Keeping the list minimal keeps the build cache
    stable when unrelated operator files change."""
    index = module_index(folder)
    if module not in index:
        raise ToolError(f"RTL operator {module!r} is not defined in any .sv file of {folder}")
    needed: list[Path] = []
    todo = [index[module]]
    while todo:
        path = todo.pop()
        if path in needed:
            continue
        needed.append(path)
        words = set(_WORD_RE.findall(_COMMENT_RE.sub("", path.read_text())))
        todo.extend(index[w] for w in words if w in index and index[w] not in needed)
    return sorted(needed)


# --------------------------------------------------------------------------- build


@functools.cache
def _verilator_version() -> str:
    return tools.tool_version([str(tools.verilator()), "--version"]) or "unknown"


def _build_key(module: str, arity: int, sources: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for part in (module, str(arity), _verilator_version(), " ".join(VERILATOR_FLAGS)):
        digest.update(part.encode() + b"\0")
    for path in (*sources, HARNESS):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def build_model(module: str, arity: int) -> Path:
    """The compiled simulation binary for ``module`` with ``arity`` operands (cached)."""
    if not 1 <= arity <= 3:
        raise ValueError(f"operators take 1 to 3 operands, not {arity}")
    sources = module_sources(module)
    key = _build_key(module, arity, sources)
    root = cache_dir() / "opsim"
    final = root / f"{module}-{arity}-{key}"
    binary = final / "sim"
    if binary.exists():
        return binary
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".build-{module}-", dir=root))
    try:
        _verilate(module, arity, sources, work)
        try:
            os.rename(work, final)  # atomic; fails if another process got there first
        except OSError:
            if not binary.exists():
                raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return binary


def _verilate(module: str, arity: int, sources: Sequence[Path], work: Path) -> None:
    env = tools.env_with_verilator()
    if tools.ccache():
        env["OBJCACHE"] = "ccache"
    top = f"V{module}"
    command = [
        str(tools.verilator()), "--cc", "--exe", "--build", "--build-jobs", "2",
        *VERILATOR_FLAGS, "-Wno-fatal", "--top-module", module, "--prefix", top,
        "-Mdir", str(work / "obj"), "-o", str(work / "sim"),
        "-CFLAGS", f"-DFK_TOP={top} -DFK_TOP_HEADER='\"{top}.h\"' -DFK_ARITY={arity}",
        *(str(s) for s in sources), str(HARNESS),
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0 or not (work / "sim").exists():
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
        raise ToolError(f"verilator build of {module} failed:\n{tail}")
    shutil.rmtree(work / "obj", ignore_errors=True)  # the binary is all a run needs


# --------------------------------------------------------------------------- run


def _run(module: str, operands: Sequence[np.ndarray], extra: int,
         stall_pattern: np.ndarray | None) -> np.ndarray:
    """All ``n + extra`` samples of ``y``, one per ce-cycle (see opsim_harness.cpp)."""
    if not operands:
        raise ValueError("an operator needs at least one operand array")
    arrays = [np.ascontiguousarray(np.asarray(x).reshape(-1)) for x in operands]
    for x in arrays:
        if x.dtype.itemsize != 4:
            raise ValueError(
                f"operands must be 32-bit arrays (view float32 as uint32), not {x.dtype}")
    n = arrays[0].size
    if any(x.size != n for x in arrays):
        raise ValueError("operand arrays differ in length")
    binary = build_model(module, len(arrays))
    with tempfile.TemporaryDirectory(prefix="fk-opsim-") as tmp:
        inputs, outputs = Path(tmp) / "in.bin", Path(tmp) / "out.bin"
        np.concatenate([x.view(np.uint32) for x in arrays]).astype("<u4").tofile(inputs)
        command = [str(binary), str(inputs), str(n), str(extra), str(outputs)]
        if stall_pattern is not None:
            ce = (np.asarray(stall_pattern).reshape(-1) != 0).astype(np.uint8)
            if not ce.any():
                raise ValueError("the stall pattern never raises ce")
            ce.tofile(Path(tmp) / "ce.bin")
            command.append(str(Path(tmp) / "ce.bin"))
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip()
            raise ToolError(f"simulation of {module} failed: {detail}")
        return np.fromfile(outputs, dtype="<u4").astype(np.uint32)


def simulate_operator(module: str, operands: Sequence[np.ndarray], latency: int, *,
                      out_bits: int = 32, stall_pattern: np.ndarray | None = None) -> np.ndarray:
    """Results of RTL operator ``module`` on ``operands`` (uint32 bit patterns, one array
    per port a, b, c), one operand set per ce-cycle, read ``latency`` ce-cycles later.

    ``stall_pattern``: the ce level of each clock cycle (nonzero = advance), repeated
    cyclically; None means ce is always high. Returns uint32 bit patterns, or bool when
    ``out_bits`` is 1.
    """
    if latency < 0:
        raise ValueError("latency must be >= 0")
    samples = _run(module, operands, latency, stall_pattern)
    result = samples[latency:]
    if out_bits == 1:
        return (result & 1).astype(np.bool_)
    if out_bits < 32:
        return result & np.uint32((1 << out_bits) - 1)
    return result


def _nan_mask(bits: np.ndarray) -> np.ndarray:
    return (bits & np.uint32(0x7FFF_FFFF)) > np.uint32(0x7F80_0000)


def measure_latency(module: str, operands: Sequence[np.ndarray], expected: np.ndarray, *,
                    out_bits: int = 32, nan_equal: bool = False) -> int:
    """The latency at which ``module``'s outputs line up with ``expected``.

    Runs the operator once and tries every shift from 0 to MAX_LATENCY; exactly one must
    match (use enough varied operands that only the true latency does). ``nan_equal``
    treats any two float32 NaN patterns as equal. Raises AssertionError when none does.
    """
    want = np.asarray(expected).reshape(-1)
    n = want.size
    samples = _run(module, operands, MAX_LATENCY, None)
    mask = np.uint32(1) if out_bits == 1 else np.uint32(0xFFFF_FFFF if out_bits >= 32
                                                         else (1 << out_bits) - 1)
    want_bits = (want.astype(np.uint32) if want.dtype == np.bool_
                 else want.view(np.uint32) if want.dtype.itemsize == 4
                 else want.astype(np.uint32)) & mask
    matches = []
    for shift in range(MAX_LATENCY + 1):
        got = samples[shift:shift + n] & mask
        same = got == want_bits
        if nan_equal:
            same |= _nan_mask(got) & _nan_mask(want_bits)
        if same.all():
            matches.append(shift)
    if len(matches) != 1:
        raise AssertionError(
            f"{module}: results match the expected values at shifts {matches or 'none'} "
            f"(searched 0..{MAX_LATENCY})")
    return matches[0]
