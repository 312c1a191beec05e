"""The build steps, one module each, found by convention: ``steps/<name>.py`` holds the
class ``<Name>`` (``steps/csim.py`` holds ``Csim``)."""

from __future__ import annotations

import functools
import importlib
import pkgutil

from fpgakern.orchestrate.step import Step


@functools.cache
def steps() -> dict[str, Step]:
    """Every step, in an order where each comes after the steps it depends on."""
    found: dict[str, Step] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
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
