"""Shared fixtures: the real kernel library and scratch spec trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from fpgakern import paths
from fpgakern.spec.library import Library

REPO = paths.SOURCE_ROOT


@pytest.fixture(scope="session")
def library() -> Library:
    return Library(REPO / "kernel_specs")


@pytest.fixture(autouse=True, scope="session")
def _shared_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Tests share one build cache per session unless the caller chose one."""
    import os

    if "FPGAKERN_CACHE_DIR" not in os.environ:
        os.environ["FPGAKERN_CACHE_DIR"] = str(paths.cache_dir())


def _write_spec(root: Path, rel: str, text: str) -> Path:
    path = root / "kernel_specs" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def write_spec():
    """``write_spec(root, "binary_ops/add.yaml", text)`` writes a spec under root."""
    return _write_spec

