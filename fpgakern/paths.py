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


# The build tree keeps each variant (kernel x rung x dtype) in its own folder,
# <category>/<kernel>/opt<N>/<dtype>: these three functions are the layout's one spelling.
RUNG_PREFIX = "opt"


def variant_dir(root: Path, category: str, kernel: str, rung: int, dtype: str) -> Path:
    """The folder of one variant in the build tree at ``root``:
    ``<root>/<category>/<kernel>/opt<N>/<dtype>``."""
    return root / category / kernel / f"{RUNG_PREFIX}{rung}" / dtype


def variant_glob(name: str = "", *, below: bool = False) -> str:
    """A glob, relative to a build tree's root, for the file or folder ``name`` in every
    variant folder (the folders themselves when ``name`` is empty). ``below``: relative
    to any folder of the tree instead (a category's, a kernel's, the root)."""
    glob = f"{'**' if below else '*/*'}/{RUNG_PREFIX}*/*"
    return f"{glob}/{name}" if name else glob


def variant_of(folder: Path) -> tuple[str, str, int, str] | None:
    """(category, kernel, rung, dtype) of a variant folder, read from its last four parts;
    None when they do not spell one (``opt`` without a number)."""
    if len(folder.parts) < 4:
        return None
    category, kernel, rung, dtype = folder.parts[-4:]
    number = rung.removeprefix(RUNG_PREFIX)
    if number == rung or not number.isdigit():
        return None
    return category, kernel, int(number), dtype


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
