"""Verilating a kernel with its simulation wrapper into a cocotb-ready executable.

Builds are content-addressed: the key hashes every source file (HDL without its comment
lines, so that sources differing only in comments share a model), the flags, the Verilator
version and cocotb's library folder, and the model lives in
``cache_dir()/rtlsim/<top>-<memory>-<N>cu-<key>/``, built once (``fpgakern.tools.cache``).
Unchanged RTL is never re-verilated; ``OBJCACHE=ccache`` makes the C++ of a changed design
cheap when ccache is installed.
"""

from __future__ import annotations

import functools
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fpgakern.errors import ToolError
from fpgakern.tools import gxx, verilator
from fpgakern.tools.cache import cached_build, key_of
from fpgakern.tools.verilator_build import verilate
from fpgakern.verify.rtlsim.wrapper import WRAPPER, sim_dir

# g++ level of the model: -O2 simulates fastest; -O0 compiles in about half the time,
# which wins for the small sizes tests and quick checks simulate (docs/sim.md).
CXX_OPT = {"fast": "-O2", "quick": "-O0"}
# Generated kernels may carry style warnings; lint is the generator's own test.
WARNING_FLAGS = ("-Wno-fatal", "-Wno-lint", "-Wno-style", "-Wno-SYMRSVDWORD")
TIMESCALE = "1ns/1ps"
EXECUTABLE = "sim"
# The metacomment that makes a library module a block Verilator compiles once for all its
# instances (only under --hierarchical, which build() then passes).
HIER_BLOCK = b"verilator hier_block"


def support_files() -> list[Path]:
    """The simulation-side sources every model is built with."""
    root = sim_dir()
    return [
        root / "fkmem" / "fk_verilator_main.cpp",
        root / "fkmem" / "fk_axi_mem.cpp",
        root / "fkmem" / "fk_axi_mem_dpi.cpp",
        root / "fkmem" / "fk_axi_mem.h",
        root / "hdl" / "fk_axi_mem.sv",
    ]


@dataclass(frozen=True)
class Model:
    """A built simulation model."""

    folder: Path
    cached: bool  # True when an earlier build was reused
    seconds: float  # build time (0 when cached)

    @property
    def executable(self) -> Path:
        return self.folder / EXECUTABLE


@functools.cache
def wave_format() -> str:
    """"fst" when the C++ compiler finds lz4.h (Verilator's FST writer needs it, from
    apt's liblz4-dev), else "vcd", which needs nothing."""
    return "fst" if gxx.finds_header("lz4.h") else "vcd"


@functools.cache
def cocotb_libs_dir() -> Path:
    try:
        import cocotb_tools.config
    except ImportError:
        raise ToolError(
            "cocotb is not installed: pip install 'cocotb>=2.0' cocotbext-axi"
        ) from None
    return Path(cocotb_tools.config.libs_dir)


# Comment lines that may steer a tool (Verilator metacomments, synthesis pragmas) count.
_DIRECTIVE_WORDS = ("verilator", "synopsys", "synthesis", "pragma", "lint_")


def code_text(text: str) -> str:
    """HDL ``text`` without its comment-only lines (directives kept): what a model is
    built from, for the build key and for telling two rungs' sources apart."""
    def is_comment(line: str) -> bool:
        stripped = line.lstrip()
        return stripped.startswith("//") and not any(
            word in stripped.lower() for word in _DIRECTIVE_WORDS)

    return "\n".join(line for line in text.splitlines() if not is_comment(line))


def source_texts(files: Sequence[Path]) -> dict[str, bytes]:
    """What the build key hashes of each file, by name: HDL as :func:`code_text`."""
    return {p.name: (code_text(p.read_text()).encode() if p.suffix in (".sv", ".v")
                     else p.read_bytes())
            for p in files}


def build_key(name: str, texts: dict[str, bytes], waves: bool, cxx_opt: str,
              hierarchical: bool = False) -> str:
    return key_of(name, verilator.version(), " ".join(verilator.FLAGS), " ".join(WARNING_FLAGS),
                  " ".join(verilator.make_variables()),
                  TIMESCALE, str(cocotb_libs_dir()), f"waves={waves and wave_format()}",
                  cxx_opt, *(["--hierarchical"] if hierarchical else []),
                  *(file_name.encode() + b"\0" + texts[file_name] for file_name in sorted(texts)))


def build(name: str, sources: Sequence[Path], wrapper_text: str, vlt_text: str, *,
          waves: bool = False, speed: str = "fast", hierarchical: bool = False) -> Model:
    """The model for ``sources`` (the kernel's files in compile order) and the wrapper.

    ``name`` labels the cache folder (e.g. ``add_f32-opt4-fast-1cu``); ``speed`` picks
    the C++ optimization (``CXX_OPT``): "fast" to simulate, "quick" to build.
    ``hierarchical`` verilates the wrapper's CU module once (``--hierarchical``; the
    wrapper is rendered with ``hier``), so that N compute units cost one CU's C++. A
    model whose sources mark a module ``/* verilator hier_block */`` (the FFT lanes
    core's butterflies and twiddle products) is verilated hierarchically too.
    """
    cxx_opt = CXX_OPT[speed]
    support = support_files()
    texts = source_texts([*sources, *support])
    hierarchical = hierarchical or any(HIER_BLOCK in text for text in texts.values())
    texts[f"{WRAPPER}.sv"] = wrapper_text.encode()
    texts["public.vlt"] = vlt_text.encode()
    key = build_key(name, texts, waves, cxx_opt, hierarchical)
    started = time.perf_counter()
    built: list[bool] = []  # whether this call built the model (else the cache had it)

    def build_into(work: Path) -> None:
        built.append(True)
        src = work / "src"  # the exact HDL, kept beside the model for debugging
        src.mkdir()
        hdl = []
        for path in [*sources, *support]:
            if path.suffix in (".sv", ".v"):
                shutil.copy2(path, src / path.name)
                hdl.append(src / path.name)
        (src / f"{WRAPPER}.sv").write_text(wrapper_text)
        (src / "public.vlt").write_text(vlt_text)
        # C++ compiles from its own folder: stable paths let ccache share the objects of
        # the memory model across every kernel's build.
        cpp = [p for p in support if p.suffix == ".cpp"]
        _verilate(work, [*cpp, *hdl], src, waves, cxx_opt, hierarchical)

    folder = cached_build("rtlsim", f"{name}-{speed}", key, EXECUTABLE, build_into,
                          keep=("src", "build.log"))
    return Model(folder, not built, time.perf_counter() - started if built else 0.0)


def _verilate(work: Path, files: Sequence[Path], src: Path, waves: bool, cxx_opt: str,
              hierarchical: bool = False) -> None:
    libs = cocotb_libs_dir()
    hdl = [f for f in files if f.suffix in (".sv", ".v")]
    cpp = [f for f in files if f.suffix == ".cpp"]
    arguments = [
        "--exe", "--vpi", "--top-module", WRAPPER, "-o", str(work / EXECUTABLE),
        *verilator.FLAGS, "-CFLAGS", cxx_opt, *WARNING_FLAGS, "--timescale", TIMESCALE,
        "-CFLAGS", f"-I{sim_dir() / 'fkmem'}",
        # -rdynamic exports the fk_mem_* C API so the testbench can reach it with ctypes.
        "-LDFLAGS", f"-Wl,-rpath,{libs} -L{libs} -lcocotbvpi_verilator -rdynamic",
        *([f"--trace-{wave_format()}", "--trace-structs"] if waves else []),
        *(["--hierarchical"] if hierarchical else []),
        str(src / "public.vlt"), *map(str, cpp), *map(str, hdl), str(src / f"{WRAPPER}.sv"),
    ]
    # The main loop and memory model: compiled once for every model with the same ports.
    log = verilate(work, arguments, prefix="Vtop", shared=cpp,
                   what=f"verilator build of {WRAPPER}")
    (work / "build.log").write_text(log)
