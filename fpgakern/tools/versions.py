"""Version lines of external tools: part of every cache key that a tool's output feeds."""

from __future__ import annotations

import functools
import subprocess


@functools.cache
def _tool_version(command: tuple[str, ...]) -> str | None:
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=60,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else None


def tool_version(command: list[str]) -> str | None:
    """First line of ``command``'s output, or None when it does not run (asked once per
    process: task fingerprints ask for the same versions many times)."""
    return _tool_version(tuple(command))
