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
    assert "2 fused kernel(s) from 1 partition(s), 1 matrix kernel(s) of the library" in out
    assert "0 node(s) left to torch:" in out
    assert "kernel matrix_ops/linear (contraction): t addmm <- arg2_1 arg0_1 arg1_1" in out
    # The second call: x and every parameter are on the device already.
    assert "transfers 0 to device (0 B), 1 from device (4 B)" in out
    assert (tmp_path / ".fpgakern" / "compile" / "kernel_specs" / "compiled").is_dir()
