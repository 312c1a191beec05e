"""Emulation models: one shared library per kernel variant and target, cached by content.

``sw_emu``: the variant's HLS C++ kernel compiled with fpgakern's csim headers, behind the
HLS control register map (``emu/model/fkemu_sw_model.hpp``).
``hw_emu``: the Verilator model of the variant's generated RTL kernel, linked with an AXI
memory model per m_axi port and a host-like control-port driver
(``emu/model/fkemu_hw_model.hpp``).

Both export the C ABI of ``emu/include/fkemu_model.h``; the Python runtime loads them with
ctypes and the C++ XRT emulation runtime with dlopen. Each library is built once per hash
of everything that goes into it (sources, flags, tool versions) under
``paths.cache_dir()/emu`` (``fpgakern.tools.cache``); ccache speeds up rebuilds of similar
models when installed.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fpgakern.backends import hls
from fpgakern.backends.hls import spectral
from fpgakern.backends.hls.cexpr import CSpelling
from fpgakern.backends.rtl.generate import generate as generate_rtl
from fpgakern.errors import ToolError, UsageError
from fpgakern.interface import CONTRACTION_UNIT_ARGS, Arg, interface
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ladder import Plan
from fpgakern.tools import gxx, verilator
from fpgakern.tools.cache import cached_build
from fpgakern.tools.verilator_build import verilate
from fpgakern.util.files import sha256_text
from fpgakern.util.jinja import environment
from fpgakern.verify import csim

TARGETS = ("sw_emu", "hw_emu")
EMU_DIR = Path(__file__).resolve().parent / "emu"
INCLUDE_DIR = EMU_DIR / "include"
MODEL_DIR = EMU_DIR / "model"
TEMPLATES_DIR = EMU_DIR / "templates"

# The csim flags (wrapping integers, no FMA contraction: the semantics the kernel is
# verified with) plus what a shared library needs.
SW_CXXFLAGS = (*csim.CXXFLAGS, "-fPIC", "-shared", "-fvisibility=hidden")
# The Verilated C++ of a hw_emu model compiles at -O0: the build is paid before the first
# call and the runs emulate test-sized tensors. Measured on two cores: the rung-4 add
# model builds in 5.9 s instead of 13.5 at -O2, and adds 1M elements in 0.22 s instead of
# 0.08 (the bits do not depend on it: Verilated code is integer arithmetic).
VERILATOR_FLAGS = (*verilator.FLAGS, "-CFLAGS", "-O0 -fPIC")
HW_CXXFLAGS = (*gxx.FLAGS, "-fPIC", "-Wno-unused-parameter")
# Precompiled for every hw_emu harness (gxx.prelude): Verilator's header, most of its parse.
HW_HEADERS = ("verilated.h", *csim.STANDARD_HEADERS)
# Only the model ABI leaves the library: two models in one process (each with its own
# copy of libverilated) must not resolve each other's symbols.
VERSION_SCRIPT = "{ global: fkemu_*; local: *; };\n"


@dataclass(frozen=True)
class ModelLibrary:
    top: str
    target: str
    path: Path


def library_name(top: str, target: str) -> str:
    return f"libfkemu_{top}_{target}.so"


def _render(name: str, **context: object) -> str:
    return environment(TEMPLATES_DIR).get_template(name).render(**context)


def _cached(key: str, target: str, top: str, build: Callable[[Path], None]) -> Path:
    """The library of ``top`` for ``target`` and ``key``: ``build(staging)`` writes it
    when the cache has none (only the library is kept: obj/ is large)."""
    name = library_name(top, target)
    return cached_build(f"emu/{target}", top, key[:24], name, build) / name


# --------------------------------------------------------------------------- sw_emu


def _sw_context(plan: Plan, kernel_file: str) -> dict[str, object]:
    iface = interface(plan)
    spelling = CSpelling(plan, iface)
    word_bytes = plan.arch.port_bits // 8
    pointers = []
    transform_types = None
    if plan.kernel.transform is not None:  # each pointer its own type (hls.spectral)
        transform_types = spectral.pointer_types(plan.kernel.transform, plan.rung.index)
    contraction = plan.kernel.contraction is not None
    for index, arg in enumerate(iface.pointers):
        if contraction:  # element pointers at every rung (backends/hls/matrix.py)
            ctype = ("const " if arg.direction == "in" else "") + plan.arch.pointer_dtype(
                arg.name).ctype
        else:
            param = spelling.param(arg)  # e.g. "const word_t* a"
            ctype = param.rsplit("*", 1)[0].strip()
        if transform_types is not None:
            ctype = ("const " if arg.direction == "in" else "") + transform_types[index]
        pointers.append({"name": arg.name, "ctype": ctype, "offset": arg.offset,
                         "bytes": _pointer_bytes(plan, arg.name, word_bytes),
                         "write": arg.direction == "out"})
    size_names: tuple[str, ...] = plan.kernel.size_args
    if contraction and plan.rung.multi_cu:  # a CU's unit and units: ints, after the sizes
        size_names = (*size_names, *CONTRACTION_UNIT_ARGS)
    scalar_type = DTYPES[plan.dtype.scalar_dtype].ctype  # complex64's scalars: float
    # A register kernel's results are scalars the kernel writes (int&): locals it is given,
    # copied into the CU's result copy after the call (fkemu_sw_model.hpp).
    scalars = [{"name": a.name, "ctype": scalar_type, "offset": a.offset}
               for a in iface.scalars if a.name not in size_names and a.direction != "out"]
    results = [{"name": a.name, "ctype": scalar_type, "offset": a.offset}
               for a in iface.scalars if a.direction == "out"]
    sizes = [{"name": name, "offset": iface.arg(name).offset} for name in size_names]
    # The kernel's C argument order (interface()): a stream argument is the CU's FIFO of
    # that port (fkemu_sw_model.hpp), the others the values read above.
    call_args = [_sw_call_arg(arg) for arg in iface.args]
    return {
        "top": plan.top, "qualname": plan.kernel.qualname, "rung": plan.rung.index,
        "dtype": plan.dtype.name, "kernel_file": kernel_file, "lanes": plan.arch.lanes,
        "word_bytes": word_bytes, "sizes": sizes,
        "pointers": pointers, "scalars": scalars, "results": results, "call_args": call_args,
        "free_running": plan.kernel.free_running, "mailbox": iface.mailbox,
        "stream_inputs": [a.name for a in iface.streams if a.direction == "in"],
        "stream_outputs": [a.name for a in iface.streams if a.direction == "out"],
    }


def _sw_call_arg(arg: Arg) -> str:
    if arg.kind != "stream":
        return arg.name
    return f'cu->{"input" if arg.direction == "in" else "output"}("{arg.name}")'


def _pointer_bytes(plan: Plan, pointer: str, word_bytes: int) -> str:
    """The C++ expression of the bytes a kernel may touch through ``pointer``, over its
    size arguments (``words(x)``: x elements in whole memory words), as the host lays
    the buffers out (runtime/host.py, runtime/shaped.py)."""
    kernel = plan.kernel
    output = pointer in kernel.outputs
    if kernel.is_reduction and output:
        return str(kernel.output_dtype(plan.dtype.name).bytes)  # out[0], whatever n is
    if kernel.transform is not None:
        # Rows of input_length(n) (output_length(n)) elements, each padded to whole words
        # of the pointer's own element type (runtime/transform.py).
        half = (kernel.transform == "irfft") != output
        count = "(n / 2 + 1)" if half and kernel.transform in ("rfft", "irfft") else "n"
        lanes = plan.arch.pointer_lanes(pointer)
        element = kernel.pointer_dtype(pointer, plan.dtype.name).bytes
        return (f"static_cast<uint64_t>(rows > 0 ? rows : 0) * "
                f"static_cast<uint64_t>(({count} + {lanes - 1}) / {lanes} * {lanes}) * {element}")
    if kernel.contraction is not None:
        return _contraction_bytes(plan, pointer)
    lay = kernel.layout
    kind = kernel.kind
    table = lay is not None and pointer in lay.channel_inputs
    if kind == "elementwise" and output:  # its own words (complex64 abs: float32 lanes)
        return f"words(n) * {plan.arch.pointer_bits(pointer) // 8}"
    if kind in ("elementwise", "reduction"):
        return f"words(n) * {word_bytes}"
    if kind == "broadcast":
        return f"words({'channels' if table else 'n'}) * {word_bytes}"
    if table:
        return f"words(cols) * {word_bytes}"
    if kind == "row_reduction" and output:
        return f"words(rows) * {word_bytes}"
    return f"static_cast<uint64_t>(rows > 0 ? rows : 0) * words(cols) * {word_bytes}"


def _contraction_bytes(plan: Plan, pointer: str) -> str:
    """A contraction's operand, further input or output: the product of the sizes of its
    indices (batch, m, n, k by their roles), contiguous in its index order, as the kernel
    reads it (backends/hls/matrix.py) and the runtime lays it out (runtime/matrix.py)."""
    kernel = plan.kernel
    c = kernel.contraction
    assert c is not None
    indices = {kernel.inputs[0]: c.a, kernel.inputs[1]: c.b, kernel.output: c.out,
               **dict(kernel.indices)}[pointer]
    sizes = {c.batch: "batch", c.free_a: "m", c.free_b: "n", c.summed: "k"}
    factors = [f"static_cast<uint64_t>({sizes[i]} > 0 ? {sizes[i]} : 0)" for i in indices]
    element = kernel.pointer_dtype(pointer, plan.dtype.name).bytes
    return " * ".join([*factors, str(element)])


def sw_model(plan: Plan, hls_dir: Path | None = None) -> ModelLibrary:
    """The sw_emu library of ``plan``: the HLS C++ in ``hls_dir`` (a build's variant
    folder) when given, else freshly generated."""
    # g++ runs in a staging folder: a relative -I would be read from there.
    hls_dir = hls_dir.resolve() if hls_dir is not None else None
    with tempfile.TemporaryDirectory(prefix="fkemu-sw-") as tmp:
        if hls_dir is None or not (hls_dir / f"{plan.top}.cpp").is_file():
            hls_dir = Path(tmp) / "hls"
            hls.generate(plan, hls_dir)
        kernel = hls_dir / f"{plan.top}.cpp"
        headers = sorted(hls_dir.glob("*.h"))
        source = _render("sw_model.cpp.j2", **_sw_context(plan, kernel.name))
        support = [*sorted(MODEL_DIR.glob("*.hpp")), INCLUDE_DIR / "fkemu_model.h",
                   *sorted(csim.csim_include_dir().glob("*.h"))]
        key = sha256_text("sw_emu", gxx.identity(),
                          *SW_CXXFLAGS, source, kernel.read_text(),
                          *(p.name + p.read_text() for p in [*headers, *support]))

        def build(staging: Path) -> None:
            (staging / "model.cpp").write_text(source)
            (staging / "exports.map").write_text(VERSION_SCRIPT)
            out = staging / library_name(plan.top, "sw_emu")
            gxx.run([*SW_CXXFLAGS, *gxx.prelude(csim.STANDARD_HEADERS, SW_CXXFLAGS),
                     "-I", str(hls_dir), "-I", str(csim.csim_include_dir()),
                     "-I", str(INCLUDE_DIR), "-I", str(MODEL_DIR), str(staging / "model.cpp"),
                     f"-Wl,--version-script={staging / 'exports.map'}", "-o", str(out)],
                    f"the sw_emu model of {plan.top}", cwd=staging)

        return ModelLibrary(plan.top, "sw_emu", _cached(key, "sw_emu", plan.top, build))


# --------------------------------------------------------------------------- hw_emu


def _build_rtl(variant_dir: Path | None) -> list[Path] | None:
    """The RTL a build's rtl step wrote into ``variant_dir`` (compile order), if any."""
    if variant_dir is None:
        return None
    filelist = variant_dir.resolve() / "rtl" / "filelist.f"
    if not filelist.is_file():
        return None
    files = [filelist.parent / name for name in filelist.read_text().split()]
    return files if all(f.is_file() for f in files) else None


def hw_model(plan: Plan, variant_dir: Path | None = None) -> ModelLibrary:
    """The hw_emu library of ``plan``: its RTL verilated with the harness. The RTL is the
    one a build wrote into ``variant_dir``/rtl (what the build simulated and packaged)
    when there is one, else freshly generated."""
    with tempfile.TemporaryDirectory(prefix="fkemu-hw-") as tmp:
        built = _build_rtl(variant_dir)
        try:
            files = built or generate_rtl(plan, Path(tmp) / "rtl").files
        except (ToolError, UsageError) as err:
            raise ToolError(f"no RTL for {plan.variant}: {err}") from None
        kernel = plan.kernel
        # A free-running kernel has no bundle at all: its beats are its streams' 32 bits.
        data_bits = max((plan.arch.bundle_bits(b) for b in plan.arch.bundles),
                        default=plan.arch.port_bits)
        source = _render("hw_model.cpp.j2", top=plan.top, qualname=kernel.qualname,
                         rung=plan.rung.index, dtype=plan.dtype.name,
                         data_bytes=data_bits // 8,
                         bundles=plan.arch.bundles,
                         bundle_bytes={b: plan.arch.bundle_bits(b) // 8 for b in plan.arch.bundles},
                         in_streams=[s for s in plan.arch.streams if s in kernel.inputs],
                         out_streams=[s for s in plan.arch.streams if s in kernel.outputs],
                         free_running=kernel.free_running)
        support = [*sorted(MODEL_DIR.glob("*.hpp")), INCLUDE_DIR / "fkemu_model.h"]
        key = sha256_text("hw_emu", verilator.version(), gxx.identity(),
                          *VERILATOR_FLAGS, *verilator.make_variables(), *HW_CXXFLAGS, source,
                          *(p.name + p.read_text() for p in [*files, *support]))

        def build(staging: Path) -> None:
            obj = staging / "obj"
            verilate(staging, [*VERILATOR_FLAGS, "-Wno-fatal", "--top-module", plan.top,
                               *(str(f) for f in files)],
                     prefix=f"V{plan.top}",
                     what=f"verilator (hw_emu model of {plan.top})")
            (staging / "model.cpp").write_text(source)
            (staging / "exports.map").write_text(VERSION_SCRIPT)
            include = verilator.include_dir()
            out = staging / library_name(plan.top, "hw_emu")
            verilated = ["-isystem", str(include), "-isystem", str(include / "vltstd")]
            # The precompiled header is built with the compile's own flags (-pthread
            # defines _REENTRANT): else g++ finds it invalid and parses every header.
            codegen = [*HW_CXXFLAGS, "-fvisibility=hidden", "-pthread"]
            gxx.run([*codegen, "-shared",
                     *gxx.prelude(HW_HEADERS, [*codegen, *verilated], verilator.version()),
                     "-isystem", str(obj), *verilated,
                     "-I", str(INCLUDE_DIR), "-I", str(MODEL_DIR),
                     str(staging / "model.cpp"), str(obj / f"V{plan.top}__ALL.a"),
                     str(obj / "libverilated.a"), "-latomic",
                     f"-Wl,--version-script={staging / 'exports.map'}", "-o", str(out)],
                    f"the hw_emu model of {plan.top}", cwd=staging, use_ccache=True)

        return ModelLibrary(plan.top, "hw_emu", _cached(key, "hw_emu", plan.top, build))


def model(plan: Plan, target: str, hls_dir: Path | None = None) -> ModelLibrary:
    """The ``target`` model of ``plan``, from a build's variant folder ``hls_dir`` (its
    HLS C++ for sw_emu, its rtl/ for hw_emu) when given, else from fresh sources."""
    if target == "sw_emu":
        return sw_model(plan, hls_dir)
    if target == "hw_emu":
        return hw_model(plan, hls_dir)
    raise UsageError(f"no emulation model for target {target!r} (targets: {', '.join(TARGETS)})")
