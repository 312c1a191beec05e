"""Rendering of the XML templates under ``fpgakern/link/templates/`` (fpgakern.util.jinja's
environment, which escapes every substituted value for XML: kernel argument types such
as ``stream<ap_axiu<32>>&`` must reach kernel.xml as ``stream&lt;...``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fpgakern.util.jinja import environment

TEMPLATES = Path(__file__).resolve().parent / "templates"


def hex_upper(value: int, width: int = 0) -> str:
    """``0x1C`` the way v++ and kernel.xml spell register offsets and sizes."""
    return f"0x{value:0{width}X}"


def render(template: str, **context: Any) -> str:
    return environment(TEMPLATES, (("hex", hex_upper),)).get_template(template).render(**context)
