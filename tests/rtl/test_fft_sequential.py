"""The sequential FFT kernels (fpgakern.backends.rtl.fft_sequential, rungs 0 and 1) in
Verilator via cocotb, bit for bit against fpgakern.ir.fft.transform, and their lint.

One Verilator build per transform and rung (n and rows are run-time arguments, so one
build runs every case); each build takes about a minute on the shared cores, so the
default run builds two (fft at rung 1, irfft at rung 0 under random AXI pauses: about
2.5 minutes) and ``-m slow`` the rest, rung 1 under pauses, the cycles with a 64-cycle
memory and the longest transform (n = 65536).

    pytest tests/rtl/test_fft_sequential.py -s            # default; -s prints the cycles
    pytest tests/rtl/test_fft_sequential.py -s -m slow    # everything else
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from fpgakern.backends.rtl import fft_sequential
from fpgakern.ir import fft
from fpgakern.tools import verilator

HERE = Path(__file__).resolve().parent
SLOW = pytest.mark.slow
STYLES = ["normal", "special", "wide", "tiny"]  # row r of run i: STYLES[(r + i) % 4]


def _runs(transform: str, rung: int, sizes: list[int], rows: int = 3) -> list[dict]:
    runs = []
    for i, n in enumerate(sizes):
        norm = ("backward", "ortho", "forward")[i % 3]
        runs.append({"n": n, "rows": rows if n <= 64 else 2, "styles": STYLES,
                     "scale": float(fft.norm_scale(transform, n, norm))})
    return runs


def run_fft(transform: str, rung: int, runs: list[dict], work: Path, **options) -> list[dict]:
    from cocotb_tools.runner import get_runner

    top = f"{transform}_seq_r{rung}"
    # Rows up to 1024 simulate in less time than g++ -O2 takes over the model (the
    # default case: 17.5 s at -O2, 9.4 s at -O0); the longest transforms want -O2.
    cxx_opt = "-O0" if max(r["n"] for r in runs) <= 1024 else "-O2"
    files = fft_sequential.generate_fft_sequential(top, transform, rung, work / "rtl")
    os.environ["PATH"] = verilator.environment()["PATH"]
    runner = get_runner("verilator")
    runner.build(sources=files, hdl_toplevel=top, build_dir=work / "build",
                 build_args=[*verilator.FLAGS, "-Wno-fatal", "-Wno-SYMRSVDWORD",
                             "--output-split", "0", "-CFLAGS", cxx_opt],
                 always=True)
    iface = fft_sequential.fft_interface(top, transform)
    config = {"transform": transform, "runs": runs,
              "offsets": {a.name: a.offset for a in iface.args}, **options}
    log = work / "sim.log"
    results = runner.test(
        hdl_toplevel=top, test_module="fft_seq_tb", test_dir=HERE, build_dir=work / "build",
        extra_env={"FK_FFT": json.dumps(config), "PYTHONPATH": str(HERE)},
        log_file=log, results_xml=str(work / "results.xml"))
    text = log.read_text() if log.exists() else ""
    assert results is not None
    failed = re.search(r"FAIL=(\d+)", text)
    assert failed is None or failed.group(1) == "0", text[-5000:]
    found = [{"n": int(m[0]), "rows": int(m[1]), "cycles": int(m[2]), "per": float(m[3])}
             for m in re.findall(r"RESULT n=(-?\d+) rows=(-?\d+) cycles=(\d+) "
                                 r"per_transform=([\d.]+)", text)]
    assert len(found) == len(runs), text[-5000:]
    for r in found:
        print(f"{transform} rung {rung}: n={r['n']} rows={r['rows']} "
              f"{r['cycles']} cycles, {r['per']:.0f} per transform")
    return found


# Default: the real inverse kernel at rung 0 under random AXI pauses (fft at rungs 0 and 1
# runs in tests/sim/test_library_sim.py; each model is a minute of verilating).
@pytest.mark.parametrize(("transform", "rung"), [
    pytest.param("fft", 1, marks=SLOW), ("irfft", 0),
    pytest.param("ifft", 1, marks=SLOW), pytest.param("rfft", 1, marks=SLOW),
    pytest.param("irfft", 1, marks=SLOW), pytest.param("fft", 0, marks=SLOW),
    pytest.param("ifft", 0, marks=SLOW), pytest.param("rfft", 0, marks=SLOW),
])
def test_fft_sequential_bit_exact(transform, rung, tmp_path):
    sizes = [8, 16, 64] + ([1024] if rung == 1 else [])
    runs = _runs(transform, rung, sizes)
    # Arguments that run nothing: n not a power of two, too small, rows 0.
    runs += [{"n": 12, "rows": 2, "scale": 1.0}, {"n": 4, "rows": 1, "scale": 1.0},
             {"n": 16, "rows": 0, "scale": 1.0}]
    run_fft(transform, rung, runs, tmp_path, backpressure=rung == 0)


@SLOW
@pytest.mark.parametrize("transform", fft.TRANSFORMS)
def test_fft_sequential_backpressure(transform, tmp_path):
    run_fft(transform, 1, _runs(transform, 1, [16, 256], rows=2), tmp_path, backpressure=True)


# Cycles per transform at rung 1 with a 64-cycle read latency, against the ideal.
@SLOW
@pytest.mark.parametrize("transform", ["fft", "rfft", "irfft"])
def test_fft_sequential_cycles(transform, tmp_path):
    n = 1024
    (result,) = run_fft(transform, 1, _runs(transform, 1, [n], rows=2), tmp_path,
                        memory="lean")
    ideal = fft_sequential.ideal_cycles(transform, n)
    assert result["per"] <= ideal + 300, (result, ideal)


# The longest transform: 17-bit lengths, 16-bit bit reversal, the whole work memory.
@SLOW
@pytest.mark.parametrize("transform", ["fft", "irfft"])
def test_fft_sequential_max_length(transform, tmp_path):
    n = fft.MAX_FFT
    runs = [{"n": n, "rows": 1, "styles": ["normal"],
             "scale": float(fft.norm_scale(transform, n, "ortho"))}]
    (result,) = run_fft(transform, 1, runs, tmp_path, memory="lean")
    assert result["per"] <= fft_sequential.ideal_cycles(transform, n) + 300, result


@pytest.mark.parametrize("rung", fft_sequential.RUNGS)
@pytest.mark.parametrize("transform", fft.TRANSFORMS)
def test_fft_sequential_lints_clean(transform, rung, tmp_path):
    top = f"{transform}_seq_r{rung}"
    files = fft_sequential.generate_fft_sequential(top, transform, rung, tmp_path)
    result = verilator.lint(files, top=top)
    assert result.ok, result.output


def test_interface_registers():
    iface = fft_sequential.fft_interface("k", "rfft")
    assert [(a.name, a.offset) for a in iface.args] == [
        ("x", 0x10), ("out", 0x1C), ("scale", 0x28), ("rows", 0x30), ("n", 0x38)]
    assert [p.data_width for p in iface.masters] == [64]
    text = fft_sequential.render_fft_sequential("k", "rfft", 1)["k.sv"]
    assert "module k (" in text and "fk_fft_butterfly" in text
