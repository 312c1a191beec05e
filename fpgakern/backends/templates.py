"""Jinja2 rendering shared by the generators, with per-kind template dispatch.

A template name like ``rung_dataflow.cpp.j2`` resolves to ``<kind>/<name>`` when the
kernel's kind (``Kernel.kind``: ``elementwise``, ``reduction``, ...) provides it and to
``default/<name>`` otherwise (the way dbt dispatches macros per adapter): a kind overrides
only what differs. Dispatch never looks at the category (the folder a spec sits in), so
a ``sum(x)`` written in any category gets the reduction templates.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2

from fpgakern import __version__

# The shared fallback folder; every other folder of the template root is a kind's.
DEFAULT = "default"


@functools.cache
def environment(root: Path) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def resolve(root: Path, kind: str | None, template: str) -> str:
    """The template path ``kind`` uses for ``template``: its own, else the default one.
    ``kind=None`` (code that spans kernels of several kinds) takes the default."""
    if kind is not None:
        specific = f"{kind}/{template}"
        if (root / specific).is_file():
            return specific
    return f"{DEFAULT}/{template}"


def render(root: Path, kind: str | None, name: str, **context: Any) -> str:
    """Render template ``name`` for kernels of ``kind`` from the template folder ``root``."""
    env = environment(root)

    def dispatch(template: str) -> str:
        return resolve(root, kind, template)

    return env.get_template(dispatch(name)).render(
        dispatch=dispatch, version=__version__, **context
    )
