"""Shared fixtures of the runtime tests (their helpers: runtime_support.py).

Emulation models are cached by content under FPGAKERN_CACHE_DIR (CI: build/.cache), so a
second run reuses every model; a cold run builds each hw_emu model once (a lock file
makes pytest-xdist workers wait for each other instead of building twice).
"""

from __future__ import annotations

import pytest
from runtime_support import LIBRARY

from fpgakern.spec.library import Library


@pytest.fixture(scope="session")
def library() -> Library:
    return LIBRARY
