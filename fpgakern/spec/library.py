"""The kernel library: every spec under ``kernel_specs/<category>/``, loaded and validated."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

from fpgakern.errors import UsageError, display_path
from fpgakern.ir.kernel import Kernel
from fpgakern.spec import schema, yamlpos

CATEGORY_FILE = "_category.yaml"


@dataclass(frozen=True)
class Category:
    name: str
    doc: str
    kernels: tuple[Kernel, ...]


class Library:
    """All categories and kernels of one ``kernel_specs`` folder.

    Loading validates every spec; the first problem raises a SpecError naming its file,
    line and key, before anything is generated.
    """

    def __init__(self, root: Path) -> None:
        if not root.is_dir():
            raise UsageError(f"{display_path(root)}: kernel spec folder not found")
        self.root = root
        self.categories: dict[str, Category] = {}
        folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
        for folder in folders:
            self.categories[folder.name] = _load_category(folder)

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


def _load_category(folder: Path) -> Category:
    category_doc = None
    text, defaults = folder.name, {}
    if (folder / CATEGORY_FILE).exists():
        category_doc = yamlpos.load(folder / CATEGORY_FILE)
        text, defaults = schema.load_category(category_doc)
    kernels = tuple(
        schema.validate(yamlpos.load(path), folder.name, defaults, category_doc)
        for path in sorted(folder.glob("*.yaml"))
        if path.name != CATEGORY_FILE
    )
    return Category(folder.name, text, kernels)
