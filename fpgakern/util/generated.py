"""The command line of a generator script that writes one source file (or, with
``--check``, only verifies that the committed copy is current)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path


def write_or_check(doc: str, out: Path, render: Callable[[], str],
                   notes: Callable[[], Iterable[str]], script: str,
                   argv: Sequence[str] | None = None) -> int:
    """Write ``render()`` to ``out`` and print ``notes()`` (one line each); with ``--check``
    write nothing and return 1 (naming ``script`` to rerun) when ``out`` differs from it.
    ``doc`` is the script's docstring, whose first line describes it in ``--help``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not out.exists() or out.read_text() != text:
            print(f"{out.name} is stale: rerun {Path(script).name}", file=sys.stderr)
            return 1
        return 0
    out.write_text(text)
    for line in notes():
        print(line)
    return 0
