"""The benchmark scripts still run against the package they measure (they are not part of
the default suite's work, so an API change could break them unseen)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from fpgakern import paths

BENCHMARKS = sorted((paths.SOURCE_ROOT / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.name)
def test_benchmark_imports_and_explains_itself(script):
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


def test_operator_resources_finds_the_operators():
    path = paths.SOURCE_ROOT / "benchmarks" / "operator_resources.py"
    spec = importlib.util.spec_from_file_location("operator_resources", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    found = module.discover()
    assert {"fk_fp32_add", "fk_fp32_fma", "fk_fp32_div", "fk_fp32_exp",
            "fk_int32_div"} <= set(found)
    # Cores are counted inside the op-table modules that instantiate them.
    assert "fk_fp32_addsub" not in found and "fk_lzc" not in found
