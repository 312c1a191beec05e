"""The benchmark scripts still run against the package they measure (they are not part of
the default suite's work, so an API change could break them unseen)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from fpgakern import paths

BENCHMARKS = sorted((paths.SOURCE_ROOT / "benchmarks").glob("*.py"))


# Every script's --help in one child process (each run as __main__ in turn, with its own
# argv and its output captured): one interpreter's start-up and imports for them all.
_HELP_ALL = """
import contextlib, io, json, runpy, sys
report = {}
for path in sys.argv[1:]:
    out, code = io.StringIO(), None
    sys.argv = [path, "--help"]
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_path(path, run_name="__main__")
        except SystemExit as stop:
            code = stop.code
    report[path] = [code, out.getvalue()]
print(json.dumps(report))
"""


def test_every_benchmark_imports_and_explains_itself():
    done = subprocess.run([sys.executable, "-c", _HELP_ALL, *map(str, BENCHMARKS)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    for script in BENCHMARKS:
        code, text = report[str(script)]
        assert code in (0, None) and "usage:" in text, (script.name, code, text[-500:])


def _operator_resources():  # noqa: ANN202 -- a benchmark script, loaded as a module
    path = paths.SOURCE_ROOT / "benchmarks" / "operator_resources.py"
    spec = importlib.util.spec_from_file_location("operator_resources", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_operator_resources_finds_the_operators():
    module = _operator_resources()
    found = module.discover()
    assert {"fk_fp32_add", "fk_fp32_fma", "fk_fp32_div", "fk_fp32_exp",
            "fk_int32_div"} <= set(found)
    # Cores are counted inside the op-table modules that instantiate them.
    assert "fk_fp32_addsub" not in found and "fk_lzc" not in found


def test_operator_resources_renders_the_reduction_accumulators(tmp_path):
    """The accumulators are generated, not files of the operator library: the resource
    table lists them and gives Yosys their rendered text beside their library modules."""
    module = _operator_resources()
    assert {"fk_reduce_fp32_sum", "fk_reduce_int32_max"} <= set(module.discover())
    files = module._sources("fk_reduce_fp32_sum", tmp_path)
    assert files[0] == "fk_reduce_fp32_sum.sv"
    assert "module fk_reduce_fp32_sum" in (tmp_path / files[0]).read_text()
    library = "".join(Path(f).read_text() for f in files[1:])
    assert "module fk_reduce_core" in library and "module fk_fp32_add " in library


def test_resource_table_has_every_operator_at_its_latency():
    """docs/operators.md's generated table has a row for every operator module, with the
    op table's latency: a new operator cannot land without its Yosys figures (issue 14)."""
    module = _operator_resources()
    text = module.DOCS.read_text()
    rows = module._table_rows(text.split(module.BEGIN, 1)[1].split(module.END, 1)[0])
    latencies = {name: latency for name, (_, latency) in module._op_table_modules().items()}
    missing = [m for m in module.discover() if m not in rows]
    assert not missing, f"no resource row (operator_resources.py --write-docs {' '.join(missing)})"
    for name, latency in latencies.items():
        cells = [c.strip() for c in rows[name].split("|")]
        assert cells[3] == str(latency), f"{name}: table latency {cells[3]}, op table {latency}"
        assert cells[4].isdigit(), f"{name}: synthesis failed or no LUT figure"


def _nn_accuracy():  # noqa: ANN202 -- a benchmark script, loaded as a module
    path = paths.SOURCE_ROOT / "benchmarks" / "nn_accuracy.py"
    spec = importlib.util.spec_from_file_location("nn_accuracy", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_nn_accuracy_runs_the_rtl_and_fails_over_a_bound(capsys, monkeypatch):
    bench = _nn_accuracy()
    assert bench.main(["--n", "8192", "--only", "hardswish"]) == 0
    table = capsys.readouterr().out
    # ours equals torch bit for bit (the same exact ops in the same order)
    assert "| hardswish | 12,343 | <= 2 ulp |" in table
    assert table.splitlines()[-1].split("|")[8].strip() == "0"
    rtl = bench.rtl_elementwise

    def three_ulps_off(node, x):  # noqa: ANN001, ANN202
        out = rtl(node, x)
        move = np.isfinite(out) & (out != 0)
        return np.where(move, (out.view(np.uint32) + np.uint32(3)).view(np.float32), out)

    monkeypatch.setattr(bench, "rtl_elementwise", three_ulps_off)
    assert bench.main(["--n", "8192", "--only", "hardswish"]) == 1
