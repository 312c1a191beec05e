"""The unit of the build: a step (one task kind) applied to one variant.

A variant is one kernel x rung x dtype (``ladder.Variant``, which names it across
processes and machines). Its steps form a chain (hls -> csim, hls -> rtl
-> lint / sim / xo, ...). Each step is a class in ``fpgakern/orchestrate/steps/<name>.py``
named after the module (``steps/csim.py`` holds ``Csim``), found by that convention
(``fpgakern.orchestrate.steps.steps()``): adding a step means adding one file.

A step runs in a scratch folder that holds the variant's upstream outputs, and declares
the files it produced; the scheduler moves them into the build tree. It never touches
the build tree itself, so the same code runs in a local process or on a Dask worker.

A task's cache key covers the step's code and data without a hand-kept list (see
:func:`sources`): every fpgakern module the step's module imports, transitively, found by
reading the ``import`` statements; the data files of those modules' packages (the RTL
library, the link templates); and the top-level data folders (``hls_templates/``,
``sim/``) the step declares in ``data`` or its modules open. Editing any of them rebuilds
the tasks that read it, and only those.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from fpgakern import __version__, paths
from fpgakern.ladder import Plan


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
    # What the step reads of the top-level data folders, as paths below them:
    # "hls_templates" takes the folder, "!hls_templates/csim" leaves a part of it out. A
    # data folder that a module of the step opens by name (``paths.data_dir("sim")``) and
    # that no entry here mentions is taken whole: forgetting costs rebuilds, never a stale
    # result. The step's code and its packages' data files need no entry (see sources()).
    data: ClassVar[tuple[str, ...]] = ()

    def applies(self, plan: Plan) -> str | None:
        """None when the step runs for ``plan``; else why it is skipped."""
        return None

    def fingerprint(self, plan: Plan) -> list[str]:
        """What decides the step's output besides the spec, the upstream keys, its code
        and its data (which :meth:`key_inputs` adds): tool versions, flags."""
        return []

    def key_inputs(self, plan: Plan) -> list[str]:
        """Everything, besides the spec and the upstream keys, that the task key hashes."""
        cls = type(self)
        return [sources((cls.__module__, RUNNER), cls.data).digest, *self.fingerprint(plan)]

    def run(self, ctx: StepContext) -> StepOutcome:
        raise NotImplementedError


# The top-level data folder that no step reads as data: a task's key hashes its variant's
# own spec files (scheduler.spec_texts), so editing one spec rebuilds one kernel.
SPECS_FOLDER = "kernel_specs"
# Where a wheel keeps the top-level data folders: package data of no module.
WHEEL_DATA = "_data"
PACKAGE = paths.PACKAGE_DIR.name
# The code every task runs besides its step's module: the worker, which parses the job's
# spec text and derives the plan the step reads (the spec schema, the ladder), and calls
# the step.
RUNNER = "fpgakern.orchestrate.worker"


@dataclass(frozen=True)
class Sources:
    """What a task key hashes of fpgakern itself for some code (see :func:`sources`)."""

    modules: tuple[str, ...]  # the import closure, sorted
    package_data: tuple[str, ...]  # data files and folders of its packages, package-relative
    data: tuple[str, ...]  # top-level data folders as in Step.data, "!" exclusions kept
    packages: tuple[str, ...]  # the other Python packages it imports, "name==version"
    digest: str


@functools.cache
def sources(roots: tuple[str, ...], data: tuple[str, ...] = ()) -> Sources:
    """The code and data that the fpgakern modules ``roots`` can use, and their digest.

    The modules are the closure of ``roots`` under ``import`` statements (those inside
    functions too), read with ``ast`` rather than imported: nothing runs, and a module
    imported only when a step runs is still found. With each module comes its package's
    data (the files and plain folders beside it: ``backends/rtl/oplib``).

    ``data`` names the top-level data folders read, as :attr:`Step.data` does; a data
    folder that a module opens by name (``paths.data_dir("sim")``) and ``data`` does not
    mention is added whole. Python files in those folders (the cocotb testbenches in
    ``sim/``) count as code: what they import joins the closure. So do the versions of
    Python and of the other packages imported (numpy draws the stimulus, jinja2 renders
    the templates).

    Computed once per process and set of roots, from per-file and per-folder digests.
    """
    modules = _closure(roots)
    while True:  # data folders may hold Python that imports more of fpgakern
        folders = _data_entries(data, _opened_folders(modules))
        scripts = [file for entry in folders if not entry.startswith("!")
                   for file in _data_files(entry, folders) if file.suffix == ".py"]
        more = {name for file in scripts for name in _scan(file, None).imports}
        grown = _closure((*modules, *more))
        if grown == modules:
            break
        modules = grown
    package_data = sorted({entry for name in modules for entry in _package_data(name)})
    scans = [_scan(_source(name), name) for name in modules]
    external = {name for scan in (*scans, *(_scan(f, None) for f in scripts))
                for name in scan.external}
    packages = tuple(f"{name}=={_package_version(name)}" for name in sorted(external))
    digest = hashlib.sha256(f"{__version__} {sys.version} {' '.join(packages)}".encode())
    for name in modules:
        digest.update(f"\0module {name} {_file_digest(_source(name))}".encode())
    for entry in package_data:
        digest.update(f"\0package {_folder_digest(entry)}".encode())
    for entry in folders:
        if not entry.startswith("!"):
            digest.update(f"\0data {entry} {_data_digest(entry, folders)}".encode())
    return Sources(modules, tuple(package_data), folders, packages, digest.hexdigest())


@dataclass(frozen=True)
class _Scan:
    imports: frozenset[str]  # fpgakern modules named by import statements
    opened: frozenset[str]  # top-level data folders named in paths.data_dir("...")
    external: frozenset[str]  # top-level names of imported packages outside the stdlib


@functools.cache
def _scan(path: Path, module: str | None) -> _Scan:
    """What one Python file imports of fpgakern and which data folders it opens.
    ``module`` is its dotted name (None for a script: no relative imports)."""
    text = path.read_text()
    package = None
    if module is not None:
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    imports: set[str] = set()
    for node in _import_statements(text, path):
        if isinstance(node, ast.Import):
            imports.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                if package is None:
                    continue
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            # "from a import b": b is a submodule or a name in a; only a file tells.
            imports.add(base)
            imports.update(f"{base}.{alias.name}" for alias in node.names)
    found = {m for name in imports if name.split(".")[0] == PACKAGE
             for m in _with_parents(name) if _module_file(m) is not None}
    tops = {name.split(".")[0] for name in imports if name}
    external = tops - {PACKAGE, "__future__"} - sys.stdlib_module_names
    opened = _opened(text, path) if "data_dir" in text else set()
    return _Scan(frozenset(found), frozenset(opened - {SPECS_FOLDER}), frozenset(external))


def _opened(text: str, path: Path) -> set[str]:
    """The data folders a module opens: ``data_dir("sim")``, or ``data_dir(SIM)`` with
    ``SIM = "sim"`` at the module's top level. (Only files that mention ``data_dir`` are
    parsed, a handful, so walking the whole tree costs a few milliseconds per process.)"""
    tree = ast.parse(text, str(path))
    constants = {target.id: node.value.value for node in tree.body
                 if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                 and isinstance(node.value.value, str)
                 for target in node.targets if isinstance(target, ast.Name)}
    opened = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name_of(node.func) == "data_dir" and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                opened.add(arg.value)
            elif isinstance(arg, ast.Name) and arg.id in constants:
                opened.add(constants[arg.id])
    return opened


# Imported names whose distribution is named otherwise. Others are looked up by their
# own name; importlib.metadata's map from import names costs 0.2 s per build.
DISTRIBUTIONS = {"yaml": "PyYAML", "cocotbext": "cocotbext-axi", "cocotb_tools": "cocotb"}


def _package_version(name: str) -> str:
    """The installed version of the package imported as ``name``; "?" for a module that
    is no distribution (``sim/fk_host.py``, imported by the testbenches beside it)."""
    return _installed().get(_normalized(DISTRIBUTIONS.get(name, name)), "?")


@functools.cache
def _installed() -> dict[str, str]:
    """Every distribution on ``sys.path`` with its version, read from the names of the
    ``<name>-<version>.dist-info`` folders: one listing per path entry, where
    importlib.metadata would parse a metadata file per package."""
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:  # a zip, a missing folder
            continue
        for folder in names:
            if folder.endswith(".dist-info"):
                dist, _, version = folder.removesuffix(".dist-info").partition("-")
                found.setdefault(_normalized(dist), version)
    return found


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


# A line that starts an import statement, indented or not (imports inside functions
# count), to the end of the line or of a parenthesized name list. ruff's E701/E702 keep
# every statement on lines of its own, so no import hides behind "if x:" or ";".
_IMPORT_LINE = re.compile(
    r"^[ \t]*((?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+(?:\([^)]*\)|[^\n]*))", re.MULTILINE)


def _import_statements(text: str, path: Path) -> list[ast.stmt]:
    """The import statements of a file, each parsed with ``ast`` on its own: parsing the
    whole file would cost ten times as much, and every build asks for ~50 files. A line
    in a docstring that reads like an import counts too, which can only add a module.
    Anything the short parse cannot read sends the whole file through ``ast``."""
    found: list[ast.stmt] = []
    for match in _IMPORT_LINE.finditer(text):
        try:
            found += ast.parse(match.group(1)).body
        except SyntaxError:  # a backslash continuation, or prose in a docstring
            tree = ast.parse(text, str(path))
            return [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    return found


def _name_of(node: ast.AST) -> str | None:
    """``f`` of ``f`` or ``a.f``, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _with_parents(name: str) -> Iterator[str]:
    """``a.b.c``, ``a.b`` and ``a``: importing a module runs its packages' ``__init__``."""
    parts = name.split(".")
    for end in range(1, len(parts) + 1):
        yield ".".join(parts[:end])


@functools.cache
def _module_file(name: str) -> Path | None:
    """The source file of fpgakern module ``name`` (None: not a module, e.g. a class)."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    base = paths.PACKAGE_DIR.joinpath(*parts[1:])
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _source(module: str) -> Path:
    path = _module_file(module)
    if path is None:
        raise LookupError(f"{module} is no fpgakern module")
    return path


def _closure(roots: Iterable[str]) -> tuple[str, ...]:
    found: set[str] = set()
    todo = [m for root in roots for m in _with_parents(root) if _module_file(m) is not None]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        todo.extend(_scan(_source(name), name).imports - found)
    return tuple(sorted(found))


def _opened_folders(modules: Iterable[str]) -> set[str]:
    return {folder for name in modules for folder in _scan(_source(name), name).opened}


def _data_entries(declared: tuple[str, ...], opened: set[str]) -> tuple[str, ...]:
    """``declared`` plus every opened folder that no declared entry mentions."""
    mentioned = {entry.lstrip("!").split("/")[0] for entry in declared}
    return (*declared, *sorted(opened - mentioned))


@functools.cache
def _package_data(module: str) -> tuple[str, ...]:
    """The data of a module's package: its files other than Python and its folders that
    are not packages, relative to the package folder (``backends/rtl/oplib``)."""
    folder = _source(module).parent
    entries = []
    for child in sorted(folder.iterdir()):
        if child.name == "__pycache__" or child.suffix in (".py", ".pyc"):
            continue
        if child.is_dir() and ((child / "__init__.py").is_file()
                               or (folder == paths.PACKAGE_DIR and child.name == WHEEL_DATA)):
            continue
        entries.append(str(child.relative_to(paths.PACKAGE_DIR)))
    return tuple(entries)


@functools.cache
def _data_files(entry: str, entries: tuple[str, ...]) -> tuple[Path, ...]:
    """The files of data folder ``entry`` that none of the "!" ``entries`` leaves out."""
    first, _, rest = entry.partition("/")
    root = paths.data_dir(first)
    excluded = [root / e[1:].partition("/")[2] for e in entries
                if e.startswith("!") and e[1:].partition("/")[0] == first
                and e[1:].partition("/")[2]]
    if any(e == f"!{first}" for e in entries):
        return ()
    top = root / rest if rest else root
    return tuple(p for p in _files_below(top)
                 if not any(p == x or x in p.parents for x in excluded))


@functools.cache
def _data_digest(entry: str, entries: tuple[str, ...]) -> str:
    root = paths.data_dir(entry.partition("/")[0])
    digest = hashlib.sha256()
    for path in _data_files(entry, entries):
        digest.update(f"{path.relative_to(root)}\0{_file_digest(path)}\0".encode())
    return digest.hexdigest()


@functools.cache
def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@functools.cache
def _files_below(top: Path) -> tuple[Path, ...]:
    if top.is_file():
        return (top,)
    return tuple(sorted(p for p in top.rglob("*") if p.is_file()
                        and "__pycache__" not in p.parts and p.suffix != ".pyc"))


@functools.cache
def _folder_digest(entry: str) -> str:
    """The digest of one package data folder or file (``backends/rtl/oplib``), computed
    once per process however many steps' closures hold it."""
    root = paths.PACKAGE_DIR / entry
    digest = hashlib.sha256(entry.encode())
    for path in _files_below(root):
        digest.update(f"\0{path.relative_to(root.parent)}\0{_file_digest(path)}".encode())
    return digest.hexdigest()
