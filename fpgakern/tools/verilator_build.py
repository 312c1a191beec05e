"""The one way fpgakern turns RTL into a compiled Verilator model.

``verilate`` runs Verilator's C++ generation and then its makefile, with Verilator's
runtime library (``verilated.o``, ``verilated_vpi.o``, ...) compiled once per distinct
compile command (through :func:`fpgakern.tools.cache.cached_build`) and reused by every
later model. Without ccache the runtime is most of a model's compile time
(``verilated.cpp`` alone takes longer than a whole operator model), so this is what makes
a cold test run or library build affordable on two cores. Callers cache the model itself
with ``cached_build`` too, under a key of everything that goes into it.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from fpgakern.tools import gxx, verilator
from fpgakern.tools.cache import cached_build, key_of

RUNTIME_KIND = "verilator-runtime"
_GLOBALS = re.compile(r"^VM_GLOBAL_(?:FAST|SLOW)\s*\+?=\s*(.*)$")


def verilate(work: Path, arguments: Sequence[str], *, prefix: str,
             make_variables: Sequence[str] = (), files: Mapping[str, str] | None = None,
             shared: Sequence[Path] = (), what: str = "verilator build") -> str:
    """Generate the C++ of a model into ``work/obj`` and compile it with Verilator's make.

    ``arguments`` are Verilator's (sources, ``--exe``, ``-o``, flags; not ``--build`` or
    ``-Mdir``). ``files`` are written into ``obj/`` before compiling (configuration
    headers: per-model ``-D`` flags would change the runtime's compile command and defeat
    its reuse). ``shared`` are C++ sources among ``arguments`` that include nothing of
    the model (the memory model beside the testbench): like the runtime, each is compiled
    once per compile command and content (its folder's headers included) and reused by
    every later model. Returns the tools' output, for a build log.
    """
    env = verilator.build_environment(work)
    obj = work / "obj"
    generate = verilator.command("--cc", "--prefix", prefix, "-Mdir", str(obj), *arguments)
    log = " ".join(generate) + "\n" + verilator.run(generate, what, work, env)
    for name, text in (files or {}).items():
        (obj / name).write_text(text)
    make_variables = [*verilator.make_variables(), *make_variables]
    make = ["make", "--no-print-directory", "-j", "2", "-f", f"{prefix}.mk",
            *make_variables]
    runtime, key = runtime_plan(obj, prefix, make_variables)
    log += _reuse(obj, "runtime", runtime, key, make, what, env)
    if shared:
        objects = [f"{source.stem}.o" for source in shared]
        texts = [path.name.encode() + b"\0" + path.read_bytes()
                 for folder in sorted({source.parent for source in shared})
                 for path in sorted(folder.iterdir()) if path.suffix in (".cpp", ".h")]
        key = key_of(gxx.identity(), verilator.version(),
                     _recipe(obj, prefix, make_variables, objects), *texts)
        log += _reuse(obj, "shared", objects, key, make, what, env)
    log += " ".join(make) + "\n" + verilator.run(make, what, obj, env)
    return log


def _reuse(obj: Path, label: str, objects: list[str], key: str, make: list[str], what: str,
           env: Mapping[str, str]) -> str:
    """Put ``objects`` into ``obj`` from the cache entry ``key``, compiling them there
    with ``make`` first when no model compiled them the same way before. Returns the
    compile log."""
    if not objects:
        return ""
    log: list[str] = []

    def build(staging: Path) -> None:
        log.append(" ".join([*make, *objects]) + "\n"
                   + verilator.run([*make, *objects], what, obj, env))
        _copy_objects(obj, staging, objects)

    stored = cached_build(RUNTIME_KIND, label, key, objects[0], build,
                          keep=[*objects, *map(_depends, objects)])
    # Copied even when just compiled here: fresh mtimes make make trust the objects over
    # the .mk files Verilator wrote a moment ago.
    _copy_objects(stored, obj, objects)
    return "".join(log)


def _depends(name: str) -> str:
    return name.replace(".o", ".d")


def _copy_objects(source: Path, target: Path, names: Sequence[str]) -> None:
    """Copy the objects ``names`` and, where make wrote one, each one's dependency file."""
    for name in names:
        shutil.copyfile(source / name, target / name)
        depends = source / _depends(name)
        if depends.exists():
            shutil.copyfile(depends, target / depends.name)


def runtime_plan(obj: Path, prefix: str, make_variables: Sequence[str] = ()
                 ) -> tuple[list[str], str]:
    """The runtime objects the generated makefile in ``obj`` would compile, and a key that
    covers how: the compiler, Verilator, and make's exact compile commands for them."""
    runtime = _runtime_objects(obj, prefix)
    return runtime, key_of(gxx.identity(), verilator.version(),
                           _recipe(obj, prefix, make_variables, runtime))


def _recipe(obj: Path, prefix: str, make_variables: Sequence[str], objects: list[str]) -> str:
    """make's exact compile commands for ``objects`` (``make -n``), for their key."""
    make = ["make", "--no-print-directory", "-f", f"{prefix}.mk", *make_variables]
    return verilator.run([*make, "-n", *objects], "make -n (Verilator objects)", obj,
                         verilator.build_environment(obj.parent)) if objects else ""


def _runtime_objects(obj: Path, prefix: str) -> list[str]:
    """The runtime objects Verilator's makefile will compile for this model."""
    names: list[str] = []
    text = (obj / f"{prefix}_classes.mk").read_text()
    for line in text.replace("\\\n", " ").splitlines():
        found = _GLOBALS.match(line.strip())
        if found:
            names += [f"{word}.o" for word in found.group(1).split()]
    return names
