"""Jinja2 rendering shared by the generators, with per-category template dispatch.

A template name like ``rung_dataflow.cpp.j2`` resolves to ``<category>/<name>`` when the
category provides it and to ``default/<name>`` otherwise (the way dbt dispatches macros
per adapter): a category overrides only what differs.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2

from fpgakern import __version__


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


def render(root: Path, category: str, name: str, **context: Any) -> str:
    """Render template ``name`` for ``category`` from the template folder ``root``."""
    env = environment(root)

    def dispatch(template: str) -> str:
        specific = f"{category}/{template}"
        return specific if (root / specific).is_file() else f"default/{template}"

    return env.get_template(dispatch(name)).render(
        dispatch=dispatch, version=__version__, **context
    )
