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
import shlex
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
    its reuse). ``shared`` are C++ sources among ``arguments`` (a testbench's main loop,
    its memory model) whose object, like the runtime's, is compiled once and reused by
    every later model: keyed by its compile command, its text and that of every header it
    includes from its folder or from ``obj/`` (the model's class ``Vtop.h`` is the same
    text for every model with the same ports). Returns the tools' output, for a build log.
    """
    env = verilator.build_environment(work)
    obj = work / "obj"
    generate = verilator.command("--cc", "--prefix", prefix, "-Mdir", str(obj), *arguments)
    log = " ".join(generate) + "\n" + verilator.run(generate, what, work, env)
    for name, text in (files or {}).items():
        (obj / name).write_text(text)
    make_variables = [*verilator.make_variables(), *make_variables]
    if "--hierarchical" not in arguments:  # a block's sub-make compiles with other flags
        make_variables += _precompiled_verilated_h(obj, prefix, make_variables,
                                                   _optimization(arguments))
    make = ["make", "--no-print-directory", "-j", "2", "-f", f"{prefix}.mk",
            *make_variables]
    runtime, key = runtime_plan(obj, prefix, make_variables)
    log += _reuse(obj, "runtime", runtime, key, make, what, env)
    for source in shared:
        objects = [f"{source.stem}.o"]
        # The precompiled header changes no bit of an object (gxx.prelude), so its
        # -include is no part of the key: a model built before the header existed and
        # one built after share the object.
        recipe = _PRELUDE_INCLUDE.sub("", _recipe(obj, prefix, make_variables, objects))
        key = key_of(gxx.identity(), verilator.version(), recipe,
                     *_included_texts(source, (source.parent, obj)))
        log += _reuse(obj, source.stem, objects, key, make, what, env)
    log += " ".join(make) + "\n" + verilator.run(make, what, obj, env)
    return log


# Verilator's default for the model's own C++ (verilated.mk), where -CFLAGS names none.
OPT_FAST = "-Os"
_PRELUDE_INCLUDE = re.compile(rf" -include \S*{re.escape(gxx.PRELUDE)}")


def _optimization(arguments: Sequence[str]) -> str:
    """The g++ level the caller's -CFLAGS ask for (the last -O there), else OPT_FAST.

    verilated.mk puts OPT_FAST before the -CFLAGS in the model's compile and after them
    in the testbench sources' (the main loop, the memory model, a harness): OPT_FAST is
    set to the same level, so both compile as asked and one precompiled header fits
    both (a level that differs makes g++ refuse it and parse every header again). A
    hierarchical build keeps verilated.mk's OPT_FAST: its blocks' sub-makes inherit the
    make variables and compile with flags of their own."""
    level = OPT_FAST
    for flag, value in zip(arguments, arguments[1:], strict=False):
        if flag == "-CFLAGS":
            level = next((w for w in reversed(value.split()) if w.startswith("-O")), level)
    return level


def _precompiled_verilated_h(obj: Path, prefix: str, make_variables: Sequence[str],
                             level: str) -> list[str]:
    """The make variable OPT_FAST at ``level``, starting the model's C++ and the
    testbench sources from a precompiled ``verilated.h`` (:func:`fpgakern.tools.gxx.
    prelude`) once there is one: most of a small model's compile is parsing it (0.6 of
    0.8 s for an operator). The header is compiled once per compile command (that of
    the model's ``__ALL.cpp``, which the testbench sources share) and Verilator version."""
    unit = f"{prefix}__ALL"
    recipe = _recipe(obj, prefix, [*make_variables, f"OPT_FAST={level}"], [f"{unit}.o"])
    line = next((ln for ln in recipe.splitlines() if f"{unit}.cpp" in ln and " -c" in ln), None)
    if line is None:
        return [f"OPT_FAST={level}"]
    words = shlex.split(line)
    cache = gxx.ccache()
    if cache and Path(words[0]).name == Path(cache).name:
        words = words[1:]
    flags = [w for w in words[1:] if w not in ("-MMD", "-c", "-o", f"{unit}.o", f"{unit}.cpp")]
    include = gxx.prelude(["verilated.h"], flags, verilator.version())
    return [f"OPT_FAST={' '.join([level, *include])}"]


_QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def _included_texts(source: Path, folders: Sequence[Path]) -> list[bytes]:
    """The text of ``source`` and of every header it includes, directly or through
    another, that is found in ``folders`` (Verilator's own headers are covered by its
    version), each with its name."""
    texts: list[bytes] = []
    seen: set[Path] = set()
    pending = [source]
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        text = path.read_bytes()
        texts.append(path.name.encode() + b"\0" + text)
        for name in _QUOTED_INCLUDE.findall(text.decode(errors="replace")):
            pending += [folder / name for folder in (path.parent, *folders)
                        if (folder / name).is_file()][:1]
    return texts


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
