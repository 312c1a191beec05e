"""Errors that reach the user as one clear line, never as a traceback."""

from __future__ import annotations

from pathlib import Path

# A message is one terminal line: values quoted in it are cut to this many characters, and
# a whole SpecError message to MAX_MESSAGE (a 1 MiB key must not become a 1 MiB line).
MAX_SHOWN = 60
MAX_MESSAGE = 400


def printable(text: str) -> str:
    """``text`` with every unprintable character escaped (newlines, NUL, ANSI escapes,
    bidi overrides), so that it cannot break the one-line form or drive the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def shorten(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` cut to about ``limit`` characters, marking the cut with ``...``."""
    return text if len(text) <= limit else text[: max(limit - 3, 1)] + "..."


def shown(value: object, limit: int = MAX_SHOWN) -> str:
    """``repr(value)`` for a message: printable and at most about ``limit`` characters."""
    try:
        text = repr(value)
    except ValueError:  # an int too long for str() (sys.get_int_max_str_digits)
        text = f"<{type(value).__name__} too large to show>"
    return shorten(printable(text), limit)


def display_path(path: str | Path) -> str:
    """A path as the user would type it: relative to the working directory when it is below it."""
    p = Path(path)
    try:
        # Resolve the folder only: a spec that is a symlink (to /dev/zero, say) is still
        # shown under its own name.
        return str((p.parent.resolve() / p.name).relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


class FpgakernError(Exception):
    """An error the user can act on; the CLI prints it as one line and exits non-zero."""

    exit_code = 1


class UsageError(FpgakernError):
    """Bad input from the user: a malformed spec, an unknown kernel, a wrong option."""

    exit_code = 2


class SpecError(UsageError):
    """A kernel spec problem, located at file, line and key."""

    def __init__(self, file: str | Path, line: int | None, key: str | None, message: str) -> None:
        self.file = Path(file)
        self.line = line
        self.key = key
        self.message = message
        where = printable(display_path(file)) + (f":{line}" if line else "")
        what = f"{shorten(printable(key))}: {message}" if key else message
        super().__init__(f"{where}: {shorten(printable(what), MAX_MESSAGE)}")


class ToolError(FpgakernError):
    """An external tool is missing or failed (g++, Verilator, Yosys, v++)."""
