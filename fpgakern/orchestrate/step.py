"""The unit of the build: a step (one task kind) applied to one variant.

A variant is one kernel x rung x dtype. Its steps form a chain (hls -> csim, hls -> rtl
-> lint / sim / xo, ...). Each step is a class in ``fpgakern/orchestrate/steps/<name>.py``
named after the module (``steps/csim.py`` holds ``Csim``), found by that convention: adding
a step means adding one file.

A step runs in a scratch folder that holds the variant's upstream outputs, and declares
the files it produced; the scheduler moves them into the build tree. It never touches
the build tree itself, so the same code runs in a local process or on a Dask worker.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from fpgakern import __version__, paths
from fpgakern.ladder import Plan


@dataclass(frozen=True)
class VariantId:
    """What names a variant across processes and machines."""

    kernel: str  # category/name
    rung: int
    dtype: str

    def __str__(self) -> str:
        return f"{self.kernel} opt{self.rung} {self.dtype}"

    @staticmethod
    def of(plan: Plan) -> VariantId:
        return VariantId(plan.kernel.qualname, plan.rung.index, plan.dtype.name)


@dataclass
class StepOutcome:
    """What a step reports: a verdict, a one-line detail, its files and its figures."""

    passed: bool
    detail: str = ""
    files: list[str] = field(default_factory=list)  # relative to the variant folder
    data: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


@dataclass
class StepContext:
    plan: Plan
    work: Path  # the scratch variant folder: upstream outputs are already there
    upstream: dict[str, StepOutcome]  # outcomes of the steps this one comes after


class Step:
    """Base of every step. Subclasses set ``name``/``after`` and implement ``run``."""

    name: ClassVar[str]
    after: ClassVar[tuple[str, ...]] = ()  # must have passed; skipped there, skipped here
    uses: ClassVar[tuple[str, ...]] = ()  # read when they ran; the step runs without them
    version: ClassVar[int] = 1  # bump when the step's outputs change for the same inputs

    def applies(self, plan: Plan) -> str | None:
        """None when the step runs for ``plan``; else why it is skipped."""
        return None

    def fingerprint(self, plan: Plan) -> list[str]:
        """Strings that, with the spec and the upstream keys, decide the step's output:
        hashes of templates and generator sources, tool versions, flags."""
        return []

    def run(self, ctx: StepContext) -> StepOutcome:
        raise NotImplementedError


@functools.cache
def steps() -> dict[str, Step]:
    """Every step, in an order where each comes after the steps it depends on."""
    from fpgakern.orchestrate import steps as package

    found: dict[str, Step] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        cls = getattr(module, info.name.capitalize(), None)
        if isinstance(cls, type) and issubclass(cls, Step):
            found[cls.name] = cls()
    ordered: dict[str, Step] = {}

    def visit(name: str, trail: tuple[str, ...] = ()) -> None:
        if name in ordered:
            return
        if name in trail:
            raise RuntimeError(f"step cycle: {' -> '.join((*trail, name))}")
        for dependency in (*found[name].after, *found[name].uses):
            visit(dependency, (*trail, name))
        ordered[name] = found[name]

    for name in sorted(found):
        visit(name)
    return ordered


def tree_digest(*folders: str) -> str:
    """A hash of every file below the given folders (relative to the package or the
    source root), for step fingerprints: editing a template or a generator rebuilds."""
    digest = hashlib.sha256(__version__.encode())
    for folder in folders:
        digest.update(_folder_digest(folder).encode())
    return digest.hexdigest()


@functools.cache
def _folder_digest(folder: str) -> str:
    """One folder's digest, computed once per process however many steps ask."""
    digest = hashlib.sha256(folder.encode())
    root = _locate(folder)
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    for path in files:
        if "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        digest.update(str(path.relative_to(root.parent)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _locate(folder: str) -> Path:
    for base in (paths.PACKAGE_DIR, paths.SOURCE_ROOT):
        if (base / folder).exists():
            return base / folder
    return paths.data_dir(folder)
