"""Errors that reach the user as one clear line, never as a traceback."""

from __future__ import annotations

from pathlib import Path


def display_path(path: str | Path) -> str:
    """A path as the user would type it: relative to the working directory when it is below it."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
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
        where = display_path(file) + (f":{line}" if line else "")
        what = f"{key}: {message}" if key else message
        super().__init__(f"{where}: {what}")


class ToolError(FpgakernError):
    """An external tool is missing or failed (g++, Verilator, Yosys, v++)."""
