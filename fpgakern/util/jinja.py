"""The one way fpgakern renders a template: every generator, testbench wrapper, link file
and report takes its Jinja environment from :func:`environment`.

The options are the same everywhere: a name a template uses that its context lacks is an
error (StrictUndefined), never an empty string; a block tag takes its line with it
(trim_blocks, lstrip_blocks), so the templates indent like the files they make; a
template's final newline is kept, so a generated file ends as its template does. Values
substituted into XML and HTML are escaped (a kernel argument's type ``stream<...>`` must
reach kernel.xml as ``stream&lt;...``); into C++, SystemVerilog, config files and
anything else they go as they are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2

# Templates whose output is markup, by the name they have before ".j2".
MARKUP_SUFFIXES = (".xml", ".html")


def escapes(template_name: str | None) -> bool:
    """Whether ``template_name``'s substitutions are escaped: markup only."""
    return (template_name or "").removesuffix(".j2").endswith(MARKUP_SUFFIXES)


@functools.cache
def environment(folder: Path,
                filters: tuple[tuple[str, Callable[..., Any]], ...] = ()) -> jinja2.Environment:
    """The environment of the templates in ``folder``, with these extra ``filters`` (name,
    function); one per folder and process."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=escapes,
    )
    env.filters.update(filters)
    return env
