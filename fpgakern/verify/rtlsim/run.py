"""Starting a built model as a cocotb simulation and collecting its JSON result.

The model is started directly (not through cocotb's runner, which rebuilds with
``--public-flat-rw``): the environment below is what ``cocotb_tools.runner`` sets for
Verilator. The testbench (a module in ``sim/``) reads its job from ``FK_SIM_JOB`` and
writes its result to the job's ``result`` path.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from fpgakern.errors import ToolError
from fpgakern.tools import verilator
from fpgakern.verify.rtlsim.models import Model, cocotb_libs_dir
from fpgakern.verify.rtlsim.wrapper import WRAPPER, sim_dir


def cocotb_env(test_module: str, job_file: Path, results_xml: Path) -> dict[str, str]:
    import cocotb_tools.config
    from find_libpython import find_libpython  # a cocotb dependency

    env = verilator.environment()
    libpython = env.get("LIBPYTHON_LOC") or find_libpython()
    if not libpython:
        raise ToolError("cocotb cannot find libpython for this Python")
    env["PATH"] = env["PATH"] + os.pathsep + str(cocotb_libs_dir())
    # The testbench imports fpgakern and the sim/ helpers, whatever the caller's cwd.
    path = [str(sim_dir()), *sys.path]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(p for p in path if p))
    env["PYGPI_PYTHON_BIN"] = sys.executable
    env["GPI_USERS"] = f"{libpython};{cocotb_tools.config.pygpi_entry_point()}"
    env["COCOTB_TOPLEVEL"] = WRAPPER
    env["COCOTB_TEST_MODULES"] = test_module
    env["TOPLEVEL_LANG"] = "verilog"
    env["COCOTB_RESULTS_FILE"] = str(results_xml)
    env["COCOTB_TRUST_INERTIAL_WRITES"] = "1"
    env["FK_SIM_JOB"] = str(job_file)
    env.setdefault("COCOTB_LOG_LEVEL", "WARNING")
    # cocotb rewrites the asserts of every imported module (numpy included) through
    # pytest at each start: ~1 s of CPU per simulation. The testbenches state their
    # failures explicitly, so the rewriting buys nothing.
    env.setdefault("COCOTB_REWRITE_ASSERTION_FILES", "")
    return env


def run_test(model: Model, test_module: str, job: dict, run_dir: Path, *,
             waves: Path | None = None, timeout: float = 3600.0) -> tuple[dict | None, str]:
    """Run ``test_module`` on ``model`` with ``job``; returns (result JSON or None, log).

    The result is None when the simulation ended without writing one (a crash, an
    exception before the first case); the log then says why.
    """
    run_dir = run_dir.resolve()  # the simulation runs inside it
    run_dir.mkdir(parents=True, exist_ok=True)
    # Two runs of the same variant (two shells, pytest-xdist) take turns in its folder.
    with open(run_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _run_locked(model, test_module, job, run_dir, waves, timeout)


def _run_locked(model: Model, test_module: str, job: dict, run_dir: Path,
                waves: Path | None, timeout: float) -> tuple[dict | None, str]:
    result_file = run_dir / "result.json"
    result_file.unlink(missing_ok=True)
    job = {**job, "result": str(result_file)}
    job_file = run_dir / "job.json"
    job_file.write_text(json.dumps(job, indent=1))
    command = [str(model.executable)]
    if waves is not None:
        command += ["--trace", "--trace-file", str(waves)]
    env = cocotb_env(test_module, job_file, run_dir / "results.xml")
    try:
        done = subprocess.run(command, cwd=run_dir, env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)
        log = done.stdout + done.stderr
    except subprocess.TimeoutExpired as expired:
        partial = expired.stdout or ""  # bytes even under text=True, on some Pythons
        if isinstance(partial, bytes):
            partial = partial.decode(errors="replace")
        log = f"simulation killed after {timeout:.0f} s\n{partial}"
    (run_dir / "sim.log").write_text(log)
    if not result_file.exists():
        return None, log
    return json.loads(result_file.read_text()), log


@dataclass(frozen=True)
class TestOutcome:
    """One cocotb test of a testbench module, from cocotb's results.xml."""

    name: str
    passed: bool
    message: str


def run_cocotb_tests(model: Model, test_module: str, job: dict, run_dir: Path, *,
                     timeout: float = 1800.0) -> tuple[list[TestOutcome], str]:
    """Run every cocotb test of ``test_module``; outcomes from results.xml, and the log."""
    _, log = run_test(model, test_module, job, run_dir, timeout=timeout)
    xml = run_dir.resolve() / "results.xml"
    if not xml.exists():
        return [], log
    outcomes = []
    for case in ElementTree.parse(xml).getroot().iter("testcase"):
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        message = "" if failure is None else (failure.get("message") or failure.text or "failed")
        outcomes.append(TestOutcome(case.get("name", "?"), failure is None, message))
    return outcomes, log
