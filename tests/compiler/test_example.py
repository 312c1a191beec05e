"""docs/examples/compile_mlp.py runs as docs/compile.md shows it, from an empty folder."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fpgakern import paths

pytest.importorskip("torch")


def test_the_documented_example_runs_from_an_empty_folder(tmp_path):
    script = paths.SOURCE_ROOT / "docs" / "examples" / "compile_mlp.py"
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "2 fused kernel(s)" in out and "2 node(s) left to torch:" in out
    assert ("addmm (aten.addmm.default): matrix_ops/addmm: the contraction kind has no "
            "host wrapper") in out
    assert "transfers 1 to device (2.0 KiB), 1 from device (4 B)" in out
    assert (tmp_path / ".fpgakern" / "compile" / "kernel_specs" / "compiled").is_dir()
