"""``fpgakern vitis``: the Vitis HLS driver, its script and the report parser.

No Vitis is installed here. A fake ``vitis_hls`` on PATH stands in for it ONLY to check
the command line fpgakern runs, the files it writes first, and that the reports Vitis
would leave are read into fpgakern's report; the report samples in tests/data/vitis/
are written by hand in AMD's documented layout, not produced by Vitis.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from fpgakern.cli import main
from fpgakern.tools import vitis

DATA = Path(__file__).parent / "data" / "vitis"

FAKE = """#!{python}
import json, os, re, shutil, sys
from pathlib import Path
log = Path(os.environ["FAKE_VITIS_LOG"])
log.write_text(json.dumps({{"argv": sys.argv[1:], "cwd": os.getcwd()}}))
script = Path(sys.argv[2]).read_text()
top = re.search(r"^set_top (\\S+)$", script, re.M).group(1)
report = Path("hls_prj/solution1")
(report / "syn/report").mkdir(parents=True)
(report / "sim/report").mkdir(parents=True)
shutil.copy("{data}/add_f32_csynth.xml", report / f"syn/report/{{top}}_csynth.xml")
shutil.copy("{data}/add_f32_cosim.rpt", report / f"sim/report/{{top}}_cosim.rpt")
print("INFO: [HLS 200-111] Finished Command csynth_design")
"""


def test_the_csynth_parser_reads_ii_latency_and_resources():
    figures = vitis.parse_csynth(DATA / "add_f32_csynth.xml")
    assert (figures.top, figures.part) == ("add_f32", "xcu55c-fsvh2892-2L-e")
    assert (figures.target_clock_ns, figures.estimated_clock_ns) == (3.33, 2.431)
    assert (figures.latency_best, figures.latency_worst) == (79, 4174)
    assert (figures.interval_min, figures.interval_max) == (80, 4175)
    assert figures.resources == {"BRAM_18K": 6, "DSP": 2, "FF": 3521, "LUT": 4210, "URAM": 0}
    assert figures.available["LUT"] == 1303680
    assert [(lp.name, lp.ii, lp.trip_count) for lp in figures.loops] == \
        [("load", 1, None), ("compute", 1, None), ("store", 2, 4096)]
    assert vitis.parse_cosim(DATA / "add_f32_cosim.rpt") == "Pass"


def test_a_bad_report_is_one_error(tmp_path):
    bad = tmp_path / "x_csynth.xml"
    bad.write_text("<profile><unclosed></profile>")
    with pytest.raises(vitis.ToolError, match="cannot read the synthesis report"):
        vitis.parse_csynth(bad)
    assert vitis.parse_cosim(tmp_path / "absent.rpt") is None


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # PATH holds only the fake tool's folder: no real Vitis can be found by accident.
    monkeypatch.setenv("PATH", str(bin_dir))
    return tmp_path, bin_dir


def test_without_vitis_it_says_so_in_one_line(project):
    done = CliRunner().invoke(main, ["vitis", "binary_ops/add", "--opt", "2"])
    assert done.exit_code != 0
    assert done.output.count("\n") == 1 and "vitis_hls" in done.output, done.output
    assert not (project[0] / "build").exists()  # nothing written before the check


def test_with_a_fake_vitis_hls_it_writes_the_script_and_reports_its_figures(project):
    root, bin_dir = project
    fake = bin_dir / "vitis_hls"
    fake.write_text(FAKE.format(python=sys.executable, data=DATA))
    fake.chmod(0o755)
    log = root / "fake.json"
    os.environ["FAKE_VITIS_LOG"] = str(log)
    try:
        done = CliRunner().invoke(main, ["vitis", "binary_ops/add", "--opt", "2",
                                         "--dtype", "float32", "--json"])
    finally:
        del os.environ["FAKE_VITIS_LOG"]
    assert done.exit_code == 0, done.output
    folder = root / "build/binary_ops/add/opt2/float32/vitis"
    call = json.loads(log.read_text())
    assert call == {"argv": ["-f", str(folder / "run_hls.tcl")], "cwd": str(folder)}
    script = (folder / "run_hls.tcl").read_text().splitlines()
    assert "set_top add_f32" in script
    assert "open_solution -reset solution1 -flow_target vitis" in script
    assert "set_part {xcu55c-fsvh2892-2L-e}" in script
    assert "create_clock -period 3.333 -name default" in script
    commands = [line.split()[0] for line in script if not line.startswith("#")]
    assert commands[-3:] == ["csynth_design", "cosim_design", "exit"]
    # csim judges against torch's reference, cosim against the flushing one; the case
    # files the script names exist and differ where the special values hold subnormals.
    csim_argv = next(x for x in script if x.startswith("csim_design")).split("{")[1]
    cases = csim_argv.rstrip("}").split()[::2]
    assert cases and all(Path(c).is_file() for c in cases)
    specials = [c for c in cases if Path(c.replace("csim_", "cosim_")).read_bytes()
                != Path(c).read_bytes()]
    assert specials, "the cosim reference flushes subnormals"
    (result,) = json.loads(done.output)["results"]
    assert result["vitis"]["latency_worst"] == 4174 and result["vitis"]["cosim"] == "Pass"
    assert result["vitis"]["error"] is None
    report = (root / "build/reports/vitis/vitis.md").read_text()
    assert "| binary_ops/add opt2 float32 | 2 | 4174 | 4210 | 3521 | 2 | 6 | Pass |" in report
    assert json.loads((root / "build/reports/vitis/vitis.json").read_text())[0]["variant"] \
        == "binary_ops/add opt2 float32"


def test_a_failing_vitis_run_fails_the_command(project):
    root, bin_dir = project
    fake = bin_dir / "vitis_hls"
    fake.write_text(f"#!{sys.executable}\nimport sys\nprint('ERROR: [HLS 207-3776] boom')\n"
                    "sys.exit(1)\n")
    fake.chmod(0o755)
    done = CliRunner().invoke(main, ["vitis", "unary_ops/neg", "--opt", "1",
                                     "--dtype", "float32"])
    assert done.exit_code == 1
    assert "FAIL unary_ops/neg opt1 float32" in done.output and "exit code 1" in done.output
