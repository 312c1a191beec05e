"""Where fpgakern finds its data (templates, specs, RTL library) and puts its output.

Two kinds of folder, never mixed up:

* fpgakern's own data (``hls_templates``, the bundled ``kernel_specs`` library, ``sim``):
  read-only, at the repository root in a source checkout, under ``fpgakern/_data`` in an
  installed wheel;
* the user's project: the nearest folder at or above the working directory holding a
  ``kernel_specs/`` folder, else the working directory itself. Every output (``build/``)
  goes there, never into the installed package.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SOURCE_ROOT = PACKAGE_DIR.parent  # the repository root in a source checkout
SPECS = "kernel_specs"
BUILD = "build"


def data_dir(name: str) -> Path:
    """A top-level data folder (``hls_templates``, ``kernel_specs``, ``sim``).

    A wheel carries a copy under ``fpgakern/_data``; a source checkout or editable install
    has the folder at the repository root. The wheel's copy is looked at first: in an
    installed package the "repository root" is site-packages, where another package's
    folder of the same name would be the wrong one.
    """
    for candidate in (PACKAGE_DIR / "_data" / name, SOURCE_ROOT / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"fpgakern data folder {name!r} is missing from this install")


def library_dir() -> Path:
    """The kernel library that comes with fpgakern (read-only in an installed package)."""
    return data_dir(SPECS)


def in_package(folder: Path) -> bool:
    """Whether ``folder`` is inside the installed package (never a place for output)."""
    folder = folder.resolve()
    return folder == PACKAGE_DIR or PACKAGE_DIR in folder.parents


def project_root(start: Path | None = None) -> Path:
    """The user's project: the nearest folder at or above ``start`` (default: cwd)
    holding ``kernel_specs/``, else ``start`` itself.

    The installed package's own ``_data/kernel_specs`` never counts: running from inside
    site-packages must not make the package a project.
    """
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / SPECS).is_dir() and not in_package(folder):
            return folder
    return here


def specs_dir(root: Path | None = None) -> Path:
    """One folder of specs: ``root/kernel_specs`` when ``root`` is given; else the
    project's ``kernel_specs/`` when it has one, else the bundled library.

    Commands read the project's kernels and the bundled library together
    (``Library.for_project``); this is for readers that take a single folder.
    """
    if root is not None:
        return root / SPECS
    own = project_root() / SPECS
    return own if own.is_dir() else library_dir()


def build_dir(root: Path | None = None) -> Path:
    """The default output tree, ``build/`` in the project (beside ``kernel_specs/``).

    A ``root`` inside the installed package (the bundled library's folder, as
    ``library.root.parent`` gives for a library read from there) means the project
    instead: output never goes into site-packages.
    """
    if root is None or in_package(root):
        root = project_root()
    return root / BUILD


def cache_dir() -> Path:
    """Content-addressed tool builds (Verilator models, csim binaries) shared by all runs.

    ``FPGAKERN_CACHE_DIR`` overrides; the default lives under the user's cache folder so
    that tests and builds in different trees share compiled models.
    """
    env = os.environ.get("FPGAKERN_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "fpgakern"
