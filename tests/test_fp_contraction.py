"""Floating-point contraction is off wherever fpgakern's HLS C++ is compiled: in the
sources (``#pragma STDC FP_CONTRACT OFF`` ahead of every include), in the Vitis HLS Tcl
(``-ffp-contract=off`` in both ``add_files -cflags``, combined operators off with
``config_op ... -impl none``), in ``v++ -c``'s pre-synthesis Tcl, and in g++'s C
simulation (``-ffp-contract=off``), shown on a user kernel ``x * y + z`` whose fused and
unfused results differ. docs/vitis.md, "Contraction".
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from fpgakern.backends import hls
from fpgakern.cli import main
from fpgakern.ladder import plan
from fpgakern.link import vitis
from fpgakern.runtime import models
from fpgakern.spec.library import Library
from fpgakern.tools import gxx
from fpgakern.verify import csim
from fpgakern.verify.stimulus import Case

PRAGMA = "#pragma STDC FP_CONTRACT OFF"
SPEC = ("kernel: muladd\ndoc: x times y plus z.\ninputs: [x, y, z]\noutputs: [out]\n"
        "dtypes: [float32]\nexpression: x * y + z\n")
# (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11 (a tie, to even): minus that, the
# unfused result is 0 and a fused multiply-add gives 2^-24.
X = np.float32(1 + 2**-12)
Z = -np.float32(1 + 2**-11)


@pytest.fixture
def muladd(tmp_path, write_spec):
    write_spec(tmp_path, "my_ops/muladd.yaml", SPEC)
    return tmp_path, Library(tmp_path / "kernel_specs").get("my_ops/muladd")


def _before_code(text: str, line: str) -> bool:
    """Whether ``line`` is in ``text`` before its first preprocessor include and before
    any line that is not a comment or blank (so it covers everything the file compiles)."""
    for current in text.splitlines():
        if current == line:
            return True
        if current.strip() and not current.startswith("//"):
            return False
    return False


def test_every_rung_of_the_kernel_has_the_pragma_before_its_code(muladd, tmp_path):
    _, kernel = muladd
    for rung in kernel.rungs:
        sources = hls.generate(plan(kernel, rung, "float32"), tmp_path / f"opt{rung}")
        text = sources.kernel.read_text()
        assert "((x * y) + z)" in text  # one expression: what clang would contract
        assert _before_code(text, PRAGMA), f"opt{rung} kernel"
        assert _before_code(sources.testbench.read_text(), PRAGMA), f"opt{rung} testbench"
        ops_h = next(h for h in sources.headers if h.name == "fpgakern_ops.h")
        assert PRAGMA in ops_h.read_text().split("namespace fk {")[0]


def test_every_generated_hls_source_of_the_library_has_the_pragma(tmp_path):
    done = CliRunner().invoke(main, ["build", "--all", "--until", "hls", "--out",
                                     str(tmp_path), "-j", "2"])
    assert done.exit_code == 0, done.output
    sources = sorted(tmp_path.glob("*/*/opt*/*/*.cpp"))
    assert len(sources) > 1000
    missing = [str(p.relative_to(tmp_path)) for p in sources
               if not _before_code(p.read_text(), PRAGMA)]
    assert not missing, missing[:5]


def test_the_vitis_hls_script_turns_contraction_and_combined_operators_off(muladd,
                                                                            monkeypatch):
    root, _ = muladd
    monkeypatch.chdir(root)
    done = CliRunner().invoke(main, ["vitis", "my_ops/muladd", "--opt", "2", "--dry-run",
                                     "--specs", "kernel_specs"])
    assert done.exit_code == 0, done.output
    script = (root / "build/my_ops/muladd/opt2/float32/vitis/run_hls.tcl").read_text()
    lines = script.splitlines()
    add_files = [line for line in lines if line.startswith("add_files")]
    assert len(add_files) == 2 and all("-ffp-contract=off}" in line for line in add_files)
    synthesis = lines.index("csynth_design")
    for op in vitis.COMBINED_FP_OPERATORS:
        line = next(i for i, text in enumerate(lines) if f"config_op {op} -impl none" in text)
        assert line < synthesis and line < next(
            i for i, text in enumerate(lines) if text.startswith("csim_design"))
    # The script names its files by absolute path: vitis_hls runs it in its own folder.
    assert all(Path(line.split("{")[1].split("}")[0]).is_absolute() for line in add_files)


def test_v_plus_plus_compile_runs_the_same_tcl_before_synthesis(muladd, tmp_path):
    _, kernel = muladd
    p = plan(kernel, 2, "float32")
    sources = hls.generate(p, tmp_path / "src")
    inv = vitis.compile_invocation(p, [sources.kernel, *sources.headers],
                                   tmp_path / "muladd_f32.xo", platform="xilinx_u55c_x")
    files = dict(inv.files)
    cfg = tmp_path / "muladd_f32.compile.cfg"
    pre_tcl = tmp_path / "muladd_f32.hls_pre.tcl"
    assert inv.commands[0][inv.commands[0].index("--config") + 1] == str(cfg)
    assert f"pre_tcl={pre_tcl}" in files[cfg].splitlines()
    assert files[pre_tcl].splitlines()[1:] == vitis.no_combined_operators()


def _testbench(sources: hls.HlsSources, flags: tuple[str, ...], out: Path) -> Path:
    gxx.run([*flags, "-I", str(sources.kernel.parent), "-I", str(csim.csim_include_dir()),
             str(sources.kernel), str(sources.testbench), "-o", str(out)], out.name)
    return out


def test_cxx_c_simulation_is_compiled_without_contraction(muladd, tmp_path):
    """g++ ignores the pragma: -ffp-contract=off is what keeps x*y + z unfused. With FMA
    instructions enabled (-mfma) the csim flags still give the unfused result, and the
    same compile without the flag fuses it (the testbench then reports a mismatch). Both
    at -O2, where g++ contracts (at csim's -Og it does not: the flag keeps the bits
    whatever the level)."""
    _, kernel = muladd
    assert gxx.NO_FP_CONTRACTION in csim.CXXFLAGS
    assert gxx.NO_FP_CONTRACTION in models.SW_CXXFLAGS  # sw_emu compiles the same C++
    assert " fma " in Path("/proc/cpuinfo").read_text(), "the check needs an FMA-capable CPU"
    p = plan(kernel, 2, "float32")
    sources = hls.generate(p, tmp_path / "src")
    n = 16
    case = Case("fusion", {"x": np.full(n, X), "y": np.full(n, X), "z": np.full(n, Z)}, {})
    result = csim.run(p, sources, [case], tmp_path / "csim")
    assert result.passed, result.summary()
    case_file = tmp_path / "case.bin"
    csim.write_case(case, p, case_file)
    verdicts = {}
    for name, flags in (("off", (*csim.CXXFLAGS, "-O2", "-mfma")),
                        ("default", (*(f for f in csim.CXXFLAGS if f != gxx.NO_FP_CONTRACTION),
                                     "-O2", "-mfma"))):
        binary = _testbench(sources, flags, tmp_path / f"tb_{name}")
        out = tmp_path / f"out_{name}.bin"
        done = subprocess.run([binary, case_file, out], capture_output=True, text=True)
        verdicts[name] = (done.returncode, set(np.fromfile(out, dtype=np.float32).tolist()))
    assert verdicts["off"] == (csim.TB_MATCH, {0.0})
    assert verdicts["default"] == (csim.TB_MISMATCH, {2.0**-24})
