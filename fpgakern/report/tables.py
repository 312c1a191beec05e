"""Tables that never cut a cell: printed whole, or as plain lines when too wide.

Rich fits a table to the console's width (``COLUMNS`` outside a terminal, 80 when unset)
by wrapping and then cutting cells with an ellipsis, so a CI log read
``bina… floa… pass… pass…``. Here a table is printed only when every cell fits whole;
otherwise its facts go out as plain lines, one per row, which a terminal or log viewer
may fold but nothing cuts.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

from rich.console import Console, RenderableType
from rich.table import Table

ELLIPSIS = "\u2026"  # how rich marks a cell it had to cut


def _render(table: Table, width: int) -> str:
    text = io.StringIO()
    probe = Console(file=text, width=width, color_system=None, force_terminal=False,
                    force_interactive=False, legacy_windows=False, highlight=False)
    probe.print(table)
    return text.getvalue()


def fits(console: Console, table: Table) -> bool:
    """Whether ``table`` prints in ``console``'s width with no cell cut short.

    Rich shrinks and wraps columns to fit and cuts (with an ellipsis) what still does
    not, so the table is rendered off-screen at that width and at an unlimited one: more
    ellipses at the console's width mean something was cut.
    """
    return _render(table, console.width).count(ELLIPSIS) <= _render(table, 10_000).count(
        ELLIPSIS)


def print_table(console: Console, table: Table, lines: Iterable[RenderableType]) -> None:
    """``table`` when it fits whole (:func:`fits`), else its title and ``lines``, each
    printed whole (soft-wrapped: a terminal or log viewer may fold it, nothing cuts it)."""
    print_tables(console, [(table, lines)])


def print_tables(console: Console,
                 tables: Iterable[tuple[Table, Iterable[RenderableType]]]) -> None:
    """Several tables in one form: all as tables when every one fits whole, else all as
    their titles and lines, so that one listing never mixes the two forms."""
    tables = list(tables)
    as_tables = all(fits(console, table) for table, _ in tables)
    for table, lines in tables:
        if as_tables:
            console.print(table)
            continue
        if table.title:
            console.print(table.title, soft_wrap=True)
        for line in lines:
            console.print(line, soft_wrap=True)
