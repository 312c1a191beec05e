"""The one content-addressed "build once" routine for everything compiled into the cache.

Verilator models, csim testbenches, emulation libraries, Verilator's runtime objects and
the generated source files too large to keep in git (:func:`generated_file`) are each
built in a private staging folder under ``cache_dir()/<kind>/`` and renamed into place,
so no reader ever sees half a product. A lock per key makes concurrent builders
(pytest-xdist workers, two shells, parallel ``fpgakern run``) wait for the first one
instead of compiling the same thing twice.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import resource
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from fpgakern.errors import ToolError
from fpgakern.paths import cache_dir
from fpgakern.util.files import sha256_text


def key_of(*parts: str | bytes) -> str:
    """A short content hash of ``parts`` (each separated, so ("ab", "c") != ("a", "bc")):
    :func:`sha256_text` cut to the 20 hex digits a cache folder name carries."""
    return sha256_text(*parts)[:20]


# A file every cache build appends one JSON line to, when set: {"kind", "name",
# "seconds", "cpu"}, the wall and child-process CPU seconds of the build itself (a build
# inside another, such as a model's Verilator runtime, is its own line and not counted
# again in the outer one's). Where a cold run's compile time goes: benchmarks/
# suite_budget.py sums it by kind.
BUILD_LOG_VARIABLE = "FPGAKERN_BUILD_LOG"
_open_builds: list[list[float]] = []  # per build in progress: inner builds' seconds, cpu


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def _logged(kind: str, name: str) -> Iterator[None]:
    log = os.environ.get(BUILD_LOG_VARIABLE)
    if not log:
        yield
        return
    started, cpu_before = time.perf_counter(), _child_cpu()
    inner = [0.0, 0.0]
    _open_builds.append(inner)
    try:
        yield
    finally:
        _open_builds.pop()
        seconds, cpu = time.perf_counter() - started, _child_cpu() - cpu_before
        if _open_builds:
            _open_builds[-1][0] += seconds
            _open_builds[-1][1] += cpu
        line = json.dumps({"kind": kind, "name": name, "seconds": round(seconds - inner[0], 3),
                           "cpu": round(cpu - inner[1], 3)})
        with open(log, "a") as out:  # one short append: whole lines from concurrent builders
            out.write(line + "\n")


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
    The path is absolute: builders run compilers inside their staging folder, where a
    relative ``$FPGAKERN_CACHE_DIR`` would name another place.
    """
    final = _entry(kind, name, key)
    if (final / product).exists():
        return final
    root = final.parent
    with _locked(root / f".{name}-{key}.lock"):
        if (final / product).exists():  # another process built it while we waited
            return final
        staging = Path(tempfile.mkdtemp(prefix=f".build-{name}-", dir=root))
        try:
            with _logged(kind, name):
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


def asked_before(kind: str, name: str, key: str) -> bool:
    """Whether ``asked_before`` was called with this kind, name and key before (by any
    process with this cache), recording that it now has been: for a product worth
    building only once a second reader shows it will be reused."""
    root = _entry(kind, name, key).parent
    root.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(root / f".{name}-{key}.asked", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return True
    return False


def cached(kind: str, name: str, key: str, product: str) -> Path | None:
    """The folder :func:`cached_build` gives for these, if it is built already."""
    final = _entry(kind, name, key)
    return final if (final / product).exists() else None


def _entry(kind: str, name: str, key: str) -> Path:
    """Where :func:`cached_build` keeps the product of ``kind``, ``name`` and ``key``."""
    return cache_dir().resolve() / kind / f"{name}-{key}"


GENERATED_KIND = "generated"  # cache_dir()/generated/: source files written by a generator


def generated_file(name: str, render: Callable[[], str], generator: Path,
                   *inputs: str | bytes) -> Path:
    """The file ``name`` holding ``render()``, written into the cache when missing.

    The key covers the generator's source (``generator``, the module whose ``render``
    it is) and ``inputs`` (what else its output depends on: the content of the files it
    reads, the versions of the libraries it calls), so an edit to either writes a new
    file beside the old one and no reader is ever handed a stale copy.
    """
    key = key_of(name, generator.read_bytes(), *inputs)

    def write(staging: Path) -> None:
        (staging / name).write_text(render())

    return cached_build(GENERATED_KIND, name.partition(".")[0], key, name, write) / name
