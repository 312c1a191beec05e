"""The one way fpgakern turns RTL into a compiled Verilator model, and caches it.

Two things every model build shares live here:

* ``cached_build``: the content-addressed "build once" routine. A product is built in a
  private staging folder under ``cache_dir()/<kind>/`` and renamed into place; a lock per
  key makes concurrent builders (pytest-xdist workers, two shells) wait for the first one
  instead of compiling the same model twice.
* ``verilate``: Verilator's C++ generation followed by its makefile, with Verilator's
  runtime library (``verilated.o``, ``verilated_vpi.o``, ...) compiled once per distinct
  compile command and reused by every later model. Without ccache the runtime is most of a
  model's compile time (``verilated.cpp`` alone takes longer than a whole operator model),
  so this is what makes a cold test run or library build affordable on two cores.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from fpgakern.errors import ToolError
from fpgakern.paths import cache_dir
from fpgakern.verify import tools

RUNTIME_KIND = "verilator-runtime"
_GLOBALS = re.compile(r"^VM_GLOBAL_(?:FAST|SLOW)\s*\+?=\s*(.*)$")


def key_of(*parts: str | bytes) -> str:
    """A short content hash of ``parts`` (each separated, so ("ab", "c") != ("a", "bc"))."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:20]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def cached_build(kind: str, name: str, key: str, product: str,
                 build: Callable[[Path], None], *, keep: Sequence[str] = ()) -> Path:
    """The folder ``cache_dir()/kind/name-key`` holding ``product``, built when missing.

    ``build(staging)`` writes ``staging/product`` (and may leave anything else there; only
    ``product`` and the names in ``keep`` are kept). The folder appears whole or not at all.
    """
    root = cache_dir() / kind
    final = root / f"{name}-{key}"
    if (final / product).exists():
        return final
    with _locked(root / f".{name}-{key}.lock"):
        if (final / product).exists():  # another process built it while we waited
            return final
        staging = Path(tempfile.mkdtemp(prefix=f".build-{name}-", dir=root))
        try:
            build(staging)
            if not (staging / product).exists():
                raise ToolError(f"build of {name} left no {product}")
            for child in list(staging.iterdir()):
                if child.name not in (product, *keep):
                    shutil.rmtree(child) if child.is_dir() else child.unlink()
            if final.exists():  # an incomplete leftover of a killed build
                shutil.rmtree(final)
            os.rename(staging, final)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return final


def _run(command: Sequence[str], what: str, cwd: Path, env: Mapping[str, str]) -> str:
    done = subprocess.run(list(command), cwd=cwd, capture_output=True, text=True,
                          env=dict(env), check=False)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        lines = output.strip().splitlines()
        errors = [ln for ln in lines if "%Error" in ln or "error:" in ln]
        tail = "\n".join((errors or lines)[-20:])
        raise ToolError(f"{what} failed:\n{tail}")
    return output


def verilate(work: Path, arguments: Sequence[str], *, prefix: str,
             make_variables: Sequence[str] = (), files: Mapping[str, str] | None = None,
             what: str = "verilator build") -> str:
    """Generate the C++ of a model into ``work/obj`` and compile it with Verilator's make.

    ``arguments`` are Verilator's (sources, ``--exe``, ``-o``, flags; not ``--build`` or
    ``-Mdir``). ``files`` are written into ``obj/`` before compiling (configuration
    headers: per-model ``-D`` flags would change the runtime's compile command and defeat
    its reuse). Returns the tools' output, for a build log.
    """
    env = _environment(work)
    obj = work / "obj"
    command = [str(tools.verilator()), "--cc", "--prefix", prefix, "-Mdir", str(obj),
               *arguments]
    log = " ".join(command) + "\n" + _run(command, what, work, env)
    for name, text in (files or {}).items():
        (obj / name).write_text(text)
    make = ["make", "--no-print-directory", "-j", "2", "-f", f"{prefix}.mk",
            *make_variables]
    runtime, key = runtime_plan(obj, prefix, make_variables)
    stored = cache_dir() / RUNTIME_KIND / key
    if all((stored / name).exists() for name in runtime):
        for name in runtime:  # fresh mtimes: make trusts them over the new .mk file
            shutil.copyfile(stored / name, obj / name)
            depends = stored / name.replace(".o", ".d")
            if depends.exists():
                shutil.copyfile(depends, obj / depends.name)
    log += " ".join(make) + "\n" + _run(make, what, obj, env)
    _store_runtime(obj, runtime, stored)
    return log


def _environment(work: Path) -> dict[str, str]:
    env = tools.env_with_verilator()
    if tools.ccache():
        env["OBJCACHE"] = "ccache"
        env.setdefault("CCACHE_BASEDIR", str(work.parent))  # obj/ paths hash alike
    return env


def runtime_plan(obj: Path, prefix: str, make_variables: Sequence[str] = ()
                 ) -> tuple[list[str], str]:
    """The runtime objects the generated makefile in ``obj`` would compile, and a key that
    covers how: the compiler, Verilator, and make's exact compile commands for them."""
    runtime = _runtime_objects(obj, prefix)
    make = ["make", "--no-print-directory", "-f", f"{prefix}.mk", *make_variables]
    recipe = _run([*make, "-n", *runtime], "make -n (Verilator runtime)", obj,
                  _environment(obj.parent))
    key = key_of(tools.tool_version([tools.cxx(), "--version"]) or tools.cxx(),
                 tools.verilator_version(), recipe)
    return runtime, key


def _runtime_objects(obj: Path, prefix: str) -> list[str]:
    """The runtime objects Verilator's makefile will compile for this model."""
    names: list[str] = []
    text = (obj / f"{prefix}_classes.mk").read_text()
    for line in text.replace("\\\n", " ").splitlines():
        found = _GLOBALS.match(line.strip())
        if found:
            names += [f"{word}.o" for word in found.group(1).split()]
    return names


def _store_runtime(obj: Path, runtime: Sequence[str], stored: Path) -> None:
    if stored.exists() or not all((obj / name).exists() for name in runtime):
        return
    stored.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".store-", dir=stored.parent))
    try:
        for name in runtime:
            shutil.copyfile(obj / name, staging / name)
            depends = obj / name.replace(".o", ".d")
            if depends.exists():
                shutil.copyfile(depends, staging / depends.name)
        with contextlib.suppress(OSError):  # another process stored the same objects
            os.rename(staging, stored)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
