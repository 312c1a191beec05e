"""Golden files: what fpgakern generates for a few representative variants, checked in.

Regenerate them, after a change to generated code that you mean, with::

    python tests/golden/regenerate.py

then review ``git diff tests/golden`` and commit it with the change. ``--check`` compares
without writing (exit 1 and a unified diff on a difference); ``--out DIR`` writes the
tree somewhere else. ``tests/test_golden.py`` runs the comparison in the default suite.

Each variant is generated the way ``fpgakern build`` generates it: the build's own
``hls``, ``host``, ``rtl`` and ``xo`` steps, run through the worker in a scratch folder
(``fpgakern.orchestrate.worker.run_job``), nothing compiled. A variant's folder,
``tests/golden/<category>.<kernel>.opt<N>.<dtype>/``, holds the files at the paths the
build tree uses (``build/<category>/<kernel>/opt<N>/<dtype>/``):

* every file rendered for the variant, in full: ``<top>.cpp``, ``<top>_tb.cpp``,
  ``link.cfg`` (from rung 2), ``host/*``, ``rtl/<top>.sv``, ``rtl/<top>_datapath.sv``,
  ``rtl/filelist.f``;
* ``SHA256SUMS``: the files the build copies unchanged from fpgakern's own sources (the
  RTL support and operator modules, ``fpgakern_ops.h``), by hash (``sha256sum -c``
  checks a build folder against it);
* ``xo/kernel.xml`` and ``xo/xo.xml`` from the ``.xo``, in full, and ``xo/SHA256SUMS``
  for its other members (the IP-XACT ``component.xml``, the packed sources). The
  ``.xo`` itself is not kept: its zip entry times follow ``SOURCE_DATE_EPOCH``.

Nothing is normalised: the files are the generator's bytes.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import hashlib
import io
import re
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from fpgakern import ladder, paths
from fpgakern.link import platforms
from fpgakern.orchestrate.scheduler import spec_texts
from fpgakern.orchestrate.step import StepOutcome
from fpgakern.orchestrate.worker import StepJob, run_job
from fpgakern.spec.library import Library

GOLDEN = Path(__file__).resolve().parent
# Test-only kernels (composed expressions the bundled library does not have), loaded on
# their own: a category of their own, never mixed with the bundled library.
SPECS = GOLDEN / "specs"
COMMAND = "python tests/golden/regenerate.py"
SUMS = "SHA256SUMS"
XO_FOLDER = "xo"
XO_IN_FULL = ("kernel.xml", "xo.xml")  # .xo members kept in full (by base name)
STEPS = ("hls", "host", "rtl", "xo")  # in dependency order; csim, lint, sim compile
# The name of a variant folder; regeneration replaces every folder so named.
FOLDER_RE = re.compile(r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*\.opt\d+\.[a-z0-9]+$")


@dataclass(frozen=True)
class Variant:
    kernel: str  # category/name
    rung: int
    dtype: str
    test_spec: bool = False  # from tests/golden/specs/ instead of the bundled library

    @property
    def folder(self) -> str:
        category, name = self.kernel.split("/")
        return f"{category}.{name}.opt{self.rung}.{self.dtype}"

    def __str__(self) -> str:
        return self.folder


VARIANTS: tuple[Variant, ...] = (
    Variant("binary_ops/add", 4, "float32"),  # vectorized: 16 lanes, 512-bit ports
    Variant("reduce_ops/sum", 2, "float32"),  # dataflow reduction, interleaved partials
    Variant("golden_ops/swish", 1, "float32", test_spec=True),  # composed, with a scalar
    Variant("reduce_ops/max", 3, "int32"),  # multi-CU int32 reduction: link.cfg, CU merge
)


class GenerationError(RuntimeError):
    """A step failed to generate a golden variant."""


def library(variant: Variant) -> Library:
    return Library(SPECS) if variant.test_spec else Library(paths.library_dir())


def _built_files(variant: Variant) -> dict[str, bytes]:
    """The variant's build-tree files after the generating steps, by relative path."""
    # Placed on the default platform, as `fpgakern build` places every variant.
    memory = platforms.load(platforms.DEFAULT).memory_system()
    plan = ladder.platform_plan(library(variant).get(variant.kernel), variant.rung,
                                variant.dtype, memory)
    specs = spec_texts(plan)
    files: dict[str, bytes] = {}
    outcomes: dict[str, StepOutcome] = {}
    for step in STEPS:
        result = run_job(StepJob(plan.variant, step, specs, dict(files), dict(outcomes)))
        if not result.outcome.passed:
            trace = result.outcome.data.get("traceback", "")
            raise GenerationError(f"{variant}: step {step} failed: {result.outcome.detail}"
                                  f"\n{trace}".rstrip())
        outcomes[step] = result.outcome
        files.update(result.files)
    return files


@functools.cache
def _shipped() -> dict[str, frozenset[bytes]]:
    """The contents of fpgakern's own source and data files, by base name."""
    found: dict[str, set[bytes]] = {}
    for root in (paths.PACKAGE_DIR, paths.data_dir("hls_templates")):
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                found.setdefault(path.name, set()).add(path.read_bytes())
    return {name: frozenset(contents) for name, contents in found.items()}


def copied(name: str, data: bytes) -> bool:
    """Whether a built file is a verbatim copy of one of fpgakern's own files."""
    return data in _shipped().get(Path(name).name, frozenset())


def _sums(entries: dict[str, bytes]) -> bytes:
    return "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n"
                   for name, data in sorted(entries.items())).encode()


def _xo_members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def render(variant: Variant) -> dict[str, bytes]:
    """The golden files of ``variant`` (path in its folder -> bytes), without writing."""
    out: dict[str, bytes] = {}
    listed: dict[str, bytes] = {}
    xo_files = []
    for name, data in _built_files(variant).items():
        if name.endswith(".xo"):
            xo_files.append(data)
        elif copied(name, data):
            listed[name] = data
        else:
            out[name] = data
    if len(xo_files) != 1:
        raise GenerationError(f"{variant}: expected one .xo, the xo step made {len(xo_files)}")
    xo_listed: dict[str, bytes] = {}
    for member, data in _xo_members(xo_files[0]).items():
        if Path(member).name in XO_IN_FULL:
            out[f"{XO_FOLDER}/{Path(member).name}"] = data
        else:
            xo_listed[member] = data
    out[SUMS] = _sums(listed)
    out[f"{XO_FOLDER}/{SUMS}"] = _sums(xo_listed)
    return dict(sorted(out.items()))


def render_all(variants: Iterable[Variant] = VARIANTS) -> dict[str, dict[str, bytes]]:
    return {v.folder: render(v) for v in variants}


def read_folder(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (path relative to it -> bytes)."""
    if not folder.is_dir():
        return {}
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def variant_folders(root: Path) -> list[str]:
    """The names of the variant folders in ``root``."""
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and FOLDER_RE.match(p.name))


def _diff(name: str, expected: bytes, actual: bytes) -> str:
    try:
        old, new = expected.decode(), actual.decode()
    except UnicodeDecodeError:
        return f"{name}: binary contents differ\n"
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 f"golden/{name}", f"generated/{name}")
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)
    return text or f"{name}: differs only in line endings\n"


def compare(expected: dict[str, bytes], actual: dict[str, bytes], label: str) -> str | None:
    """None when the two file sets are identical; else what differs: the missing, extra
    and changed files by name, then a unified diff of the first changed one."""
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    changed = sorted(n for n in set(expected) & set(actual) if expected[n] != actual[n])
    if not (missing or extra or changed):
        return None
    lines = [f"{label}: generated files differ from the golden files"]
    lines += [f"  not generated any more: {n}" for n in missing]
    lines += [f"  generated, not in the golden files: {n}" for n in extra]
    lines += [f"  changed: {n}" for n in changed]
    report = "\n".join(lines) + "\n"
    if changed:
        report += "\n" + _diff(f"{label}/{changed[0]}", expected[changed[0]],
                               actual[changed[0]])
    return report


def compare_tree(root: Path, rendered: dict[str, dict[str, bytes]],
                 complete: bool = True) -> str | None:
    """None when ``root`` holds exactly the ``rendered`` variant folders (with
    ``complete=False``: holds them, beside others); else a report."""
    reports = [f"{root}: variant folder {name} is not a golden variant (any more)"
               for name in variant_folders(root) if complete and name not in rendered]
    for folder, files in rendered.items():
        report = compare(read_folder(root / folder), files, folder)
        if report:
            reports.append(report)
    return "\n".join(reports) if reports else None


def write(root: Path, rendered: dict[str, dict[str, bytes]], complete: bool = True) -> int:
    """Replace the variant folders of ``root`` by ``rendered`` (with ``complete``, remove
    the other variant folders too); returns the number of files written.

    Written into a scratch folder first and moved into place: an error while generating
    leaves the old golden files as they were."""
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".golden-", dir=root) as scratch:
        staged = Path(scratch)
        count = 0
        for folder, files in rendered.items():
            for name, data in files.items():
                target = staged / folder / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                count += 1
        for name in variant_folders(root):
            if complete or name in rendered:
                shutil.rmtree(root / name)
        for folder in rendered:
            (staged / folder).rename(root / folder)
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=COMMAND, description=__doc__.split("\n\n")[0],
        epilog="Then review 'git diff tests/golden' and commit it with your change.")
    parser.add_argument("--out", type=Path, default=GOLDEN,
                        help="the folder to write (default: tests/golden)")
    parser.add_argument("--check", action="store_true",
                        help="compare with the folder instead of writing it; exit 1 on a "
                             "difference")
    parser.add_argument("--only", action="append", metavar="FOLDER",
                        choices=[v.folder for v in VARIANTS],
                        help="this variant only (repeatable; default: every variant)")
    args = parser.parse_args(argv)
    selected = [v for v in VARIANTS if not args.only or v.folder in args.only]
    rendered = render_all(selected)
    if args.check:
        report = compare_tree(args.out, rendered, complete=not args.only)
        if report:
            print(report, end="" if report.endswith("\n") else "\n")
            print(f"If the change is intended, run: {COMMAND}")
            return 1
        print(f"{len(rendered)} golden variants match {args.out}")
        return 0
    count = write(args.out, rendered, complete=not args.only)
    print(f"wrote {count} files in {len(rendered)} variant folders of {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
