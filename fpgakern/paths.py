"""Where fpgakern finds its data (templates, specs, RTL library) and puts its output."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SOURCE_ROOT = PACKAGE_DIR.parent  # the repository root in a source checkout


def data_dir(name: str) -> Path:
    """A top-level data folder (``hls_templates``, ``kernel_specs``).

    In a source checkout or editable install it is the folder at the repository root;
    a wheel carries a copy under ``fpgakern/_data``.
    """
    for candidate in (SOURCE_ROOT / name, PACKAGE_DIR / "_data" / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"fpgakern data folder {name!r} is missing from this install")


def project_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` (default: cwd) holding ``kernel_specs/``.

    Falls back to the folder holding fpgakern's own library, so that the tool works
    from anywhere on its bundled kernels.
    """
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "kernel_specs").is_dir():
            return folder
    return data_dir("kernel_specs").parent


def specs_dir(root: Path | None = None) -> Path:
    return (root or project_root()) / "kernel_specs"


def build_dir(root: Path | None = None) -> Path:
    """The default output tree, ``build/`` beside ``kernel_specs/``."""
    return (root or project_root()) / "build"


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
