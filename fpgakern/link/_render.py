"""Rendering of the XML templates under ``fpgakern/link/templates/``.

Unlike the C++ generators' environment (``fpgakern.backends.templates``) this one escapes
every substituted value for XML: kernel argument types such as ``stream<ap_axiu<32>>&``
must reach kernel.xml as ``stream&lt;...``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"


def hex_upper(value: int, width: int = 0) -> str:
    """``0x1C`` the way v++ and kernel.xml spell register offsets and sizes."""
    return f"0x{value:0{width}X}"


@functools.cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=True,
    )
    env.filters["hex"] = hex_upper
    return env


def render(template: str, **context: Any) -> str:
    return _environment().get_template(template).render(**context)
