"""The kernel library: every spec under ``kernel_specs/<category>/``, loaded and validated.

A user's project has its own ``kernel_specs/`` beside fpgakern's bundled library;
:meth:`Library.for_project` reads both as one. The project adds categories, it does not
extend or replace the bundled ones: a category name or a kernel name found in both is an
error (kernel names become the generated functions, ``<kernel>_f32``, the torch op
``torch.ops.fpgakern.<kernel>`` and the .xo, so two kernels of one name cannot coexist in
a build tree or a library .xclbin). So is a hardware top (``Kernel.top_name``: a spec's
``top:`` or the default ``<kernel>_<tag>``) that two kernels share, within one folder or
across the project and the bundled library.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

from fpgakern import paths
from fpgakern.errors import UsageError, display_path
from fpgakern.ir.kernel import Kernel
from fpgakern.spec import schema, validate, yamlpos

CATEGORY_FILE = "_category.yaml"
PROJECT, BUNDLED = "project", "bundled"  # where a category comes from


@dataclass(frozen=True)
class Category:
    name: str
    doc: str
    kernels: tuple[Kernel, ...]
    origin: str = PROJECT  # PROJECT: the user's kernel_specs/; BUNDLED: fpgakern's own


class Library:
    """All categories and kernels of one ``kernel_specs`` folder, or of a project's
    folder and the bundled library together (:meth:`for_project`).

    Loading validates every spec; the first problem raises a SpecError naming its file,
    line and key, before anything is generated.
    """

    def __init__(self, root: Path, *, bundled: Path | None = None) -> None:
        """Every spec of ``root``; with ``bundled``, also the categories of that folder
        (fpgakern's library), and then ``root`` may be missing (a project of no kernels
        of its own). ``root`` stays the project's folder: output goes beside it."""
        if bundled is None and not root.is_dir():
            raise UsageError(f"{display_path(root)}: kernel spec folder not found")
        self.root = root
        # The project's specs load first, so that a mistake in the user's own file is
        # the error they see, before any name clash with the bundled library.
        own = _load_folder(root, _origin(root)) if root.is_dir() else {}
        self.categories: dict[str, Category] = {}
        if bundled is not None:
            self.categories.update(_load_folder(bundled, BUNDLED))
            _check_clashes(own, self.categories, root)
        self.categories.update(own)

    @classmethod
    def for_project(cls, start: Path | None = None) -> Library:
        """The project's kernels (``kernel_specs/`` of :func:`paths.project_root`) beside
        fpgakern's bundled library. In fpgakern's own checkout the two are one folder."""
        specs = paths.project_root(start) / paths.SPECS
        bundled = paths.library_dir()
        if specs.is_dir() and specs.resolve() == bundled.resolve():
            return cls(specs)
        return cls(specs, bundled=bundled)

    def origin(self, kernel: Kernel) -> str:
        """PROJECT or BUNDLED: where ``kernel`` comes from."""
        return self.categories[kernel.category].origin

    @property
    def kernels(self) -> list[Kernel]:
        return [k for c in self.categories.values() for k in c.kernels]

    def get(self, qualname: str) -> Kernel:
        """A kernel by ``category/name`` (or a bare name when it is unique)."""
        matches = [k for k in self.kernels if qualname in (k.qualname, k.name)]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            options = ", ".join(k.qualname for k in matches)
            raise UsageError(f"kernel {qualname!r} is ambiguous: {options}")
        known = ", ".join(k.qualname for k in self.kernels)
        raise UsageError(f"unknown kernel {qualname!r} (known: {known})")

    def select(self, patterns: list[str] | tuple[str, ...]) -> list[Kernel]:
        """Kernels matching any of ``patterns`` (names or globs like ``unary_ops/*``)."""
        chosen: list[Kernel] = []
        for pattern in patterns:
            if any(ch in pattern for ch in "*?["):
                found = [k for k in self.kernels if fnmatch.fnmatch(k.qualname, pattern)]
                if not found:
                    raise UsageError(f"no kernel matches {pattern!r}")
            else:
                found = [self.get(pattern)]
            chosen.extend(k for k in found if k not in chosen)
        return chosen


def _origin(root: Path) -> str:
    try:
        same = root.resolve() == paths.library_dir().resolve()
    except FileNotFoundError:  # an install without its data: everything is the user's
        same = False
    return BUNDLED if same else PROJECT


def _entries(folder: Path) -> list[Path]:
    """The visible entries of ``folder``, sorted; an unreadable folder is a clear error."""
    try:
        return sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    except OSError as err:
        raise UsageError(f"{display_path(folder)}: cannot read this folder: "
                         f"{err.strerror or err}") from None


def _load_folder(root: Path, origin: str) -> dict[str, Category]:
    folders = [p for p in _entries(root) if p.is_dir()]
    categories = {folder.name: _load_category(folder, origin) for folder in folders}
    seen: dict[str, Kernel] = {}
    for kernel in (k for c in categories.values() for k in c.kernels):
        other = seen.setdefault(kernel.name, kernel)
        if other is not kernel:  # one name, two generated tops (<kernel>_f32) and torch ops
            raise UsageError(
                f"{display_path(kernel.source)}: kernel {kernel.name!r} is also "
                f"{other.qualname}; kernel names must be unique across categories (a "
                f"kernel's name names its generated functions, e.g. {kernel.name}_f32)")
    _check_tops([k for c in categories.values() for k in c.kernels], {})
    return categories


def _tops_of(kernels: list[Kernel]) -> dict[str, Kernel]:
    return {top: k for k in kernels for top in k.top_names}


def _check_tops(kernels: list[Kernel], others: dict[str, Kernel], where: str = "") -> None:
    """No two kernels share a hardware top (``top:`` or the default ``<kernel>_<tag>``):
    the top names the HLS function, RTL module, .xo, xclbin kernel and host class, so two
    of one name cannot coexist in a build tree, a library .xclbin or a host program."""
    seen = dict(others)
    names = {k.name: k for k in [*others.values(), *kernels]}
    for kernel in kernels:
        for dtype in kernel.dtypes:
            top = kernel.top_name(dtype)
            other = seen.setdefault(top, kernel)
            if other is not kernel:
                raise UsageError(
                    f"{display_path(kernel.source)}: top: {top!r} (the {dtype} variant's "
                    f"hardware top) is also {where}{other.qualname}'s; every top must be "
                    "unique across the project and fpgakern's bundled library")
            named = names.get(top)
            if named is not None and named is not kernel:
                # runtime.open(...).kernel(name) takes a kernel's name or a top
                raise UsageError(
                    f"{display_path(kernel.source)}: top: {top!r} (the {dtype} variant's "
                    f"hardware top) is the name of kernel {named.qualname}; a top may be "
                    "its own kernel's name, no other's")


def _check_clashes(own: dict[str, Category], bundled: dict[str, Category],
                   root: Path) -> None:
    """One line for the first name the project shares with the bundled library."""
    names = {k.name: k for c in bundled.values() for k in c.kernels}
    for category in own.values():
        if category.name in bundled:
            raise UsageError(
                f"{display_path(root / category.name)}: category {category.name!r} is also "
                f"in fpgakern's bundled library; rename this folder (a project adds "
                f"categories beside the bundled ones, it cannot extend or replace them)")
        for kernel in category.kernels:
            other = names.get(kernel.name)
            if other is not None:
                raise UsageError(
                    f"{display_path(kernel.source)}: kernel {kernel.name!r} is also "
                    f"fpgakern's bundled {other.qualname}; rename it (a kernel's name "
                    f"names its generated functions, e.g. {kernel.name}_f32)")
    _check_tops([k for c in own.values() for k in c.kernels],
                _tops_of([k for c in bundled.values() for k in c.kernels]),
                "fpgakern's bundled ")


def _load_category(folder: Path, origin: str = PROJECT) -> Category:
    category_doc = None
    text = folder.name
    defaults: dict[str, object] = {}
    # lexists: a dangling or looping _category.yaml is an error to report, not "absent".
    if os.path.lexists(folder / CATEGORY_FILE):
        category_doc = yamlpos.load(folder / CATEGORY_FILE)
        text, defaults = schema.load_category(category_doc)
    kernels = tuple(
        validate.validate(yamlpos.load(path), folder.name, defaults, category_doc)
        for path in _entries(folder)
        if path.suffix == ".yaml" and path.name != CATEGORY_FILE
    )
    return Category(folder.name, text, kernels, origin)
