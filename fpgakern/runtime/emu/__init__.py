"""fpgakern's emulation of XRT's C++ API, for the generated host code.

``include/`` declares the subset of XRT's native API that published XRT hosts use
(``xrt::device``, ``xrt::kernel``, ``xrt::run``, ``xrt::bo``, ``xrt::uuid``, ``xrt::xclbin``,
the C handle typedefs), source-compatible with XRT's own headers (docs/runtime.md, "The
XRT native API"); ``src/`` implements it over the emulation models
(``include/fkemu_model.h``), one file per part (``src/internal.h`` lists them).
:func:`prepare` builds the models of an .xclbin's kernels and writes ``fpgakern_emu.cfg``
beside it (the models of each kernel, which a Vitis emconfig.json
cannot name; the library also reads emconfig.json for the device count and name; it carries
hw_emu's bytes per kernel cycle of each bank with a bandwidth figure, computed as
:mod:`fpgakern.runtime.memory` does, since an .xclbin has no field for them);
:func:`compile_host` builds a host program against the emulation library.

    python -m fpgakern.runtime.emu prepare lib.xclbin [--target sw_emu --target hw_emu]
    python -m fpgakern.runtime.emu flags        # compile flags for your own build
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fpgakern import paths
from fpgakern.errors import UsageError, display_path
from fpgakern.link import axlf
from fpgakern.runtime import memory, models, program
from fpgakern.spec.library import Library
from fpgakern.tools import gxx
from fpgakern.tools.cache import cached_build
from fpgakern.util.files import sha256_text, write_text_atomic
from fpgakern.verify import csim

EMU_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = EMU_DIR / "include"
SOURCE_DIR = EMU_DIR / "src"
# The library's translation units; the headers beside them are theirs alone.
SOURCES = tuple(sorted(SOURCE_DIR.glob("*.cpp")))
CONFIG_NAME = "fpgakern_emu.cfg"
EMCONFIG_NAME = "emconfig.json"
# What the generated host code must compile with, here and against XRT.
HOST_CXXFLAGS = gxx.FLAGS
# Precompiled for every host program (gxx.prelude): the standard headers of the generated
# hosts and those the emulated XRT headers (include/) add.
HOST_HEADERS = (*csim.STANDARD_HEADERS, "functional", "future", "map", "memory", "utility")
# The part of LIBS that also changes what the preprocessor sees (-pthread defines
# _REENTRANT): a precompiled header built without it is invalid for the compile.
PREPROCESSING_LIBS = ("-pthread",)
LIBS = ("-ldl", *PREPROCESSING_LIBS)


def prepare(xclbin: Path, targets: tuple[str, ...] = models.TARGETS,
            specs: Path | None = None, build_root: Path | None = None) -> Path:
    """Build the emulation models of every kernel in ``xclbin`` and write the config the
    emulation library reads (``fpgakern_emu.cfg`` beside the xclbin). Returns its path.
    ``build_root`` is the build tree that decides between rungs (default: the project's)."""
    library = Library(specs) if specs is not None else Library.for_project()
    prog = program.from_xclbin(xclbin, library,
                               build_root or paths.build_dir(library.root.parent))
    if not prog.variants:
        raise UsageError(f"{display_path(xclbin)}: no kernel of this library in it")
    # The UUID of the link the models were chosen for: the library refuses this config
    # beside any other link (a relink with the same top names but another rung or CU
    # count would otherwise run the old models).
    lines = [f"# fpgakern emulation models for {xclbin.name}: TARGET KERNEL LIBRARY",
             *(f"# {note}" for note in prog.notes),
             f"xclbin {xclbin_uuid(xclbin)}"]
    for target in targets:
        for variant in prog.variants.values():
            built = models.model(variant.plan, target, variant.hls_dir)
            lines.append(f"{target} {variant.top} {built.path}")
    # hw_emu's bank bandwidths (the library places the ports itself, from CONNECTIVITY).
    banks = memory.xclbin_banks(xclbin) if "hw_emu" in targets else None
    if banks is not None and any(rate is not None for rate in banks.bytes_per_cycle):
        lines.append(f"# hw_emu memory banks of {banks.platform} at {banks.mhz:g} MHz "
                     "(the platform file's bandwidth over the kernel clock): "
                     "bank INDEX TAG BYTES_PER_CYCLE; banks not listed have no limit")
        lines += [f"bank {i} {tag} {rate!r}"
                  for i, (tag, rate) in enumerate(zip(banks.tags, banks.bytes_per_cycle,
                                                      strict=True)) if rate is not None and tag]
    path = xclbin.parent / CONFIG_NAME
    write_text_atomic(path, "\n".join(lines) + "\n")
    return path


def xclbin_uuid(xclbin: Path) -> uuid.UUID:
    """The UUID in ``xclbin``'s axlf header (what ``xrt::device::load_xclbin`` returns)."""
    try:
        header = axlf.read(xclbin.read_bytes()).header
    except axlf.XclbinError as e:
        raise UsageError(f"{display_path(xclbin)}: {e}") from None
    return uuid.UUID(bytes=header["uuid"])


def write_emconfig(folder: Path, platform_name: str, devices: int = 1) -> Path:
    """``emconfig.json`` in ``folder`` as ``emconfigutil --platform NAME --nd DEVICES``
    writes it: the fields XRT's emulation reads (docs/runtime.md, "emconfig.json")."""
    document = {"Version": {"FileVersion": "2.0"},
                "Platform": {"Boards": [{"Devices": [{
                    "Name": platform_name, "NumDevices": devices,
                    "FeatureRom": {"Time_Since_Epoch": "0"}}]}]}}
    path = folder / EMCONFIG_NAME
    write_text_atomic(path, json.dumps(document, indent=2) + "\n")
    return path


def compile_flags(include_dirs: tuple[Path, ...] = ()) -> list[str]:
    return [*HOST_CXXFLAGS, *(f"-I{d}" for d in include_dirs), f"-I{INCLUDE_DIR}"]


def library_key() -> str:
    """What the emulation library's object depends on: the compiler, the flags, and every
    file of ``src/`` and ``include/`` (its path there and its text)."""
    files = sorted(p for folder in (SOURCE_DIR, INCLUDE_DIR) for p in folder.rglob("*")
                   if p.is_file())
    texts = [f"{p.relative_to(EMU_DIR)}\0{p.read_text()}" for p in files]
    return sha256_text(gxx.identity(), *compile_flags(), *texts)


def library_object() -> Path:
    """The emulation library compiled once (per :func:`library_key`) into one object
    file: each source compiled on its own, then joined by a partial link (``-r``), so a
    host links the whole library as one object."""
    def build(staging: Path) -> None:
        objects = [staging / f"{source.stem}.o" for source in SOURCES]

        def compile_one(source: Path, obj: Path) -> None:
            gxx.run([*compile_flags(), "-c", str(source), "-o", str(obj)],
                    f"the XRT emulation library ({source.name})")

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            list(pool.map(compile_one, SOURCES, objects))
        gxx.run(["-r", "-nostdlib", *(str(o) for o in objects), "-o", str(staging / "xrt_emu.o")],
                "the XRT emulation library (partial link)")

    key = library_key()
    return cached_build("emu/xrt", "xrt_emu", key[:24], "xrt_emu.o", build) / "xrt_emu.o"


def compile_host(sources: Path | Sequence[Path], out: Path,
                 include_dirs: tuple[Path, ...] = ()) -> Path:
    """Compile a host program from one source file or several (warnings are errors; each
    source's folder is on the include path) and link the emulation library."""
    files = [sources] if isinstance(sources, Path) else list(sources)
    if not files:
        raise UsageError("compile_host: no source file")
    folders = tuple(dict.fromkeys(f.parent for f in files))
    gxx.run([*compile_flags((*folders, *include_dirs)),
             *gxx.prelude(HOST_HEADERS, [*HOST_CXXFLAGS, *PREPROCESSING_LIBS]),
             *(str(f) for f in files),
             str(library_object()), *LIBS, "-o", str(out)], files[0].name)
    return out


def xrt_command(main: Path, out: Path) -> str:
    """The same build against XRT on a machine that has it."""
    return (f"g++ {' '.join(HOST_CXXFLAGS)} -I$XILINX_XRT/include -I{main.parent} {main} "
            f"-L$XILINX_XRT/lib -lxrt_coreutil -luuid -pthread -o {out}")
