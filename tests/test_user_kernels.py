"""A user's own kernels, in a category of their own, through every step and the runtime.

``tests/data/user_project/kernel_specs/my_ops/`` is written the way docs/spec-format.md
tells a user to: full reductions (``sum(x)``, ``max(abs(x))``, ``min(x)``), a reduction of
two inputs (``sum(a * b)``) and composed elementwise expressions with scalars, for float32
and int32. None of it sits in ``reduce_ops/``: the kernel's kind, never its category,
decides the generated code.

Default suite: the representative variants and those the runtime tests open (25 of 60)
through hls, csim, host, rtl, lint and xo; the full pipeline
with RTL simulation on one variant per kind x dtype, split between the ``sim`` step and
the runtime's hw_emu (four Verilator models in all); sw_emu on every kernel and dtype.
The ``slow`` sweep builds every variant and simulates every rung, in the build and
through the runtime.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from variant_selection import representative_variants

import fpgakern.runtime as rt
from fpgakern import paths
from fpgakern.backends import hls, host
from fpgakern.backends.rtl.generate import generate as generate_rtl
from fpgakern.cli import main
from fpgakern.cli.build import execute
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ladder import plan
from fpgakern.orchestrate.step import StepContext
from fpgakern.orchestrate.steps.rtl import FILELIST, Rtl
from fpgakern.orchestrate.steps.sim import Sim
from fpgakern.orchestrate.worker import StepJob, run_job
from fpgakern.runtime.check import run_case
from fpgakern.spec.library import Library
from fpgakern.tools import verilator
from fpgakern.verify import csim, stimulus
from fpgakern.verify.rtlsim.models import build_key, code_text, source_texts

USER_PROJECT = Path(__file__).parent / "data" / "user_project"
USER = Library(USER_PROJECT / "kernel_specs")
KINDS = {
    "my_ops/total": "reduction", "my_ops/peak": "reduction", "my_ops/smallest": "reduction",
    "my_ops/dot": "reduction", "my_ops/scale_shift": "elementwise",
    "my_ops/blend": "elementwise",
}
VARIANTS = [(k.qualname, r, d) for k in USER.kernels for r in k.rungs for d in k.dtypes]
KERNEL_DTYPES = [(k.qualname, d) for k in USER.kernels for d in k.dtypes]
STEPS_BUT_SIM = ("hls", "csim", "host", "rtl", "lint", "xo")
# One Verilator model per kind x dtype: two through the build's sim step, two through the
# runtime's hw_emu (whose harness is a model of its own).
SIM_VARIANTS = [("my_ops/dot", 4, "float32"), ("my_ops/blend", 2, "int32")]
HW_EMU_VARIANTS = [("my_ops/dot", 2, "int32"), ("my_ops/scale_shift", 2, "float32")]
# What the default tier builds through every step but sim: the representative variants
# (tests/variant_selection.py: every rung of each kind, every dtype and interface shape,
# every operator in C simulation) and those the runtime tests below open (each kernel's
# highest rung, the rung-3 reductions, the hw_emu and host-program variants). Every
# variant is built by the slow sweep.
BUILT_VARIANTS = sorted({
    *representative_variants(USER),
    *((k.qualname, max(k.rungs), d) for k in USER.kernels for d in k.dtypes),
    ("my_ops/dot", 3, "int32"), ("my_ops/smallest", 3, "int32"),
    *SIM_VARIANTS, *HW_EMU_VARIANTS,
})

needs_verilator = pytest.mark.skipif(verilator.missing() is not None,
                                     reason=str(verilator.missing()))


def _ids(variants: list[tuple]) -> list[str]:
    return ["-".join(str(part) for part in v).replace("/", ".") for v in variants]


# ----------------------------------------------------------------------------- the project


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the user project, one per test session (pytest-xdist workers
    share it: builds of one tree take turns, and the second finds the first's results)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root = shared / "user_project"
    with open(shared / "user_project.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "kernel_specs").is_dir():
            shutil.copytree(USER_PROJECT / "kernel_specs", root / "kernel_specs")
    return root


def build(root: Path, *args: str) -> dict:
    """``fpgakern build ARGS`` in the project, as a user runs it; its --json report."""
    result = CliRunner().invoke(
        main, ["build", *args, "--specs", str(root / "kernel_specs"),
               "--out", str(root / "build"), "--json"], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def statuses(data: dict) -> dict[tuple[str, int, str, str], tuple[str, str]]:
    return {(v["kernel"], v["rung"], v["dtype"], t["step"]): (t["status"], t.get("detail", ""))
            for v in data["variants"] for t in v["tasks"]}


def build_variants(root: Path, variants: list[tuple[str, int, str]]) -> dict:
    """``variants`` of the project through every step but sim, in one build (the csim
    step among them: the runtime opens only variants whose manifest, which lists the
    steps of the latest build, records a passing csim); the build's --json report."""
    library = Library(root / "kernel_specs")
    plans = [plan(library.get(name), rung, dtype) for name, rung, dtype in variants]
    return execute(plans, root / "build", "local", None, None, STEPS_BUT_SIM, True,
                   "fpgakern build (tests/test_user_kernels.py)").data


def _shared_build(project: Path, record_name: str,
                  variants: list[tuple[str, int, str]]) -> dict[tuple, tuple[str, str]]:
    """``build_variants`` once per session: one pytest-xdist worker builds, the others
    read its verdicts (a partial build by a late worker would drop the csim record of a
    variant another worker is running)."""
    record = project / record_name
    with open(project.parent / "user_project.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if record.is_file():
            return {tuple(key): tuple(value) for key, value in json.loads(record.read_text())}
        found = statuses(build_variants(project, variants))
        record.write_text(json.dumps([[list(key), list(value)] for key, value in found.items()]))
        return found


@pytest.fixture(scope="session")
def built(project: Path) -> dict[tuple[str, int, str, str], tuple[str, str]]:
    """The default tier's variants of my_ops (``BUILT_VARIANTS``) through every step but
    sim (that is a Verilator model build per variant; the sim step runs on a selection
    below)."""
    return _shared_build(project, "built.json", BUILT_VARIANTS)


@pytest.fixture(scope="session")
def built_everything(built, project: Path) -> dict[tuple[str, int, str, str], tuple[str, str]]:
    """Every variant of my_ops through every step but sim (for the slow sweep)."""
    return _shared_build(project, "built_everything.json", VARIANTS)


def variant_dir(root: Path, qualname: str, rung: int, dtype: str) -> Path:
    return root / "build" / qualname / f"opt{rung}" / dtype


# ------------------------------------------------------------------------- kind, not folder


def test_kind_comes_from_the_expression():
    assert {k.qualname: k.kind for k in USER.kernels} == KINDS
    assert USER.get("my_ops/dot").inputs == ("a", "b")


def _generated(p, folder: Path) -> dict[str, str]:
    """Every file the HLS, host and RTL generators write for plan ``p``, by name."""
    hls.generate(p, folder / "hls")
    host.generate(p, folder / "host")
    generate_rtl(p, folder / "rtl")
    return {str(f.relative_to(folder)): f.read_text()
            for f in sorted(folder.rglob("*")) if f.is_file()}


@pytest.mark.parametrize(("qualname", "moved_to"), [
    ("reduce_ops/sum", "my_stats"),  # a reduction outside reduce_ops/
    ("reduce_ops/max", "my_stats"),
    ("unary_ops/neg", "reduce_ops"),  # an elementwise kernel in a folder named reduce_ops
    ("binary_ops/add", "reduce_ops"),
])
def test_moving_a_spec_to_another_category_changes_nothing_but_its_name(
        library, tmp_path, qualname, moved_to):
    """Generated HLS C++, testbench, link config, host code and RTL of a spec are the same
    in any category, up to the category's name (paths, namespaces, headers)."""
    category, name = qualname.split("/")
    source = paths.SOURCE_ROOT / "kernel_specs" / category
    target = tmp_path / "kernel_specs" / moved_to
    target.mkdir(parents=True)
    shutil.copy(source / "_category.yaml", target)
    shutil.copy(source / f"{name}.yaml", target)
    moved = Library(tmp_path / "kernel_specs").get(f"{moved_to}/{name}")
    original = library.get(qualname)
    assert moved.kind == original.kind
    for rung in original.rungs:
        for dtype in original.dtypes:
            before = _generated(plan(original, rung, dtype), tmp_path / "a" / f"{rung}{dtype}")
            after = _generated(plan(moved, rung, dtype), tmp_path / "b" / f"{rung}{dtype}")
            assert before.keys() == after.keys()
            for file_name, text in before.items():
                renamed = re.sub(rf"\b{category}\b", moved_to, text)
                assert _reflowed(renamed) == _reflowed(after[file_name]), \
                    f"{file_name} at opt{rung} {dtype}"


def _reflowed(text: str) -> str:
    """``text`` with its ``//`` comment lines joined: a longer category name may wrap a
    header comment at another word, which changes nothing but the line breaks."""
    return re.sub(r"\n// ", " ", text)


@pytest.mark.parametrize(("qualname", "dtype"), KERNEL_DTYPES, ids=_ids(KERNEL_DTYPES))
def test_generated_kernel_has_its_kinds_shape(qualname, dtype):
    """Reductions accumulate into interleaved partials and write one element; elementwise
    kernels stream n elements out (the rung-2 body of each kind)."""
    code = hls.generator.render_kernel(plan(USER.get(qualname), 2, dtype))
    if KINDS[qualname] == "reduction":
        assert "combine_tree(partial)" in code and "out[0] =" in code
        assert "store(" not in code
    else:
        assert "store(out_stream, out, words)" in code and "partial" not in code


# ------------------------------------------------------------- a failing tool is a failure


def test_a_failing_compiler_is_a_csim_failure_not_an_internal_error(tmp_path, monkeypatch):
    """g++ rejecting the kernel used to lose csim/report.json (its folder was never made)
    and surface as 'internal error: FileNotFoundError'."""
    p = plan(USER.get("my_ops/total"), 2, "float32")
    hls_dir = tmp_path / "hls"
    hls.generate(p, hls_dir)
    inputs = {f.name: f.read_bytes() for f in hls_dir.iterdir()}
    specs = {f"my_ops/{f.name}": f.read_text()
             for f in (USER_PROJECT / "kernel_specs" / "my_ops").glob("*.yaml")}
    monkeypatch.setenv("CXX", "false")  # a compiler that fails without a word
    result = run_job(StepJob(p.variant, "csim", specs, inputs))
    assert not result.outcome.passed
    assert result.outcome.detail.startswith("g++ failed on total_f32.cpp"), result.outcome.detail
    assert "internal error" not in result.outcome.detail
    report = json.loads(result.files["csim/report.json"])
    assert report["passed"] is False and "g++ failed" in report["summary"]


def test_multi_input_reduction_cases_fill_every_input():
    """``sum(a * b)``: every case gives both tensors, of one length (a missing ``b`` was a
    KeyError in C and RTL simulation), and the special values visit both inputs."""
    for dtype in ("float32", "int32"):
        cases = stimulus.cases(USER.get("my_ops/dot"), DTYPES[dtype], size=50)
        for case in cases:
            assert set(case.tensors) == {"a", "b"}, case.label
            assert case.tensors["a"].size == case.tensors["b"].size, case.label
        special = [c for c in cases if c.label.startswith("special_")]
        values = stimulus.specials(DTYPES[dtype])
        for name in ("a", "b"):
            seen = {str(v) for c in special for v in values
                    if (np.isnan(v) and np.isnan(c.tensors[name]).any())
                    or (c.tensors[name] == v).any()}
            assert len(seen) >= (len(values) - 1) // 2, f"input {name} sees only {seen}"


# ------------------------------------------------------------------ the sim step's sources


class _Stop(Exception):
    pass


def _rtl_step(p, work: Path) -> list[Path]:
    outcome = Rtl().run(StepContext(p, work, {}))
    assert outcome.passed
    return [work / "rtl" / line for line in (work / "rtl" / FILELIST).read_text().split()]


def _capture_build(monkeypatch) -> list[tuple[str, list[Path], str]]:
    import fpgakern.verify.rtlsim as rtlsim

    calls: list[tuple[str, list[Path], str]] = []

    def fake_build(name, sources, wrapper_text, vlt_text, **kwargs):
        calls.append((name, list(sources), wrapper_text))
        raise _Stop

    monkeypatch.setattr(rtlsim, "build", fake_build)
    return calls


def test_sim_step_simulates_the_files_the_rtl_step_wrote(tmp_path, monkeypatch):
    p = plan(USER.get("my_ops/dot"), 4, "float32")
    files = _rtl_step(p, tmp_path / "variant")
    import fpgakern.backends.rtl.generate as gen

    def no_generation(*args, **kwargs):
        raise AssertionError("the sim step generated RTL of its own")

    monkeypatch.setattr(gen, "generate", no_generation)
    calls = _capture_build(monkeypatch)
    with pytest.raises(_Stop):
        Sim().run(StepContext(p, tmp_path / "variant", {}))
    [(name, sources, wrapper)] = calls
    assert sources == files  # the rtl/ folder, in filelist.f order
    assert name.startswith("dot_f32-opt4-fast-1cu")
    assert "dot_f32" in wrapper


def test_rung2_and_rung3_rtl_folders_share_one_quick_model(tmp_path, monkeypatch):
    """The two rungs' rtl/ folders differ only in comments: the build key ignores those,
    so a build simulates both rungs on one N-CU model, as ``fpgakern sim`` does."""
    calls = _capture_build(monkeypatch)
    kernel = USER.get("my_ops/total")
    for rung in (2, 3):
        files = _rtl_step(plan(kernel, rung, "int32"), tmp_path / str(rung))
        with pytest.raises(_Stop):
            Sim().run(StepContext(plan(kernel, rung, "int32"), tmp_path / str(rung), {}))
        assert calls[-1][1] == files
    (name2, files2, wrapper2), (name3, files3, wrapper3) = calls
    assert name2 == name3 == "total_i32-opt2-fast-4cu" and wrapper2 == wrapper3
    assert [f.read_text() for f in files2] != [f.read_text() for f in files3]  # comments
    assert build_key(name2, source_texts(files2), False, "-O0") == \
        build_key(name3, source_texts(files3), False, "-O0")


def test_model_key_ignores_comment_lines_only():
    text = "module m;\n  // what it does\n  logic x;  // why\nendmodule\n"
    assert code_text(text) == code_text(text.replace("what it does", "something else"))
    assert code_text(text) != code_text(text.replace("// why", "// because"))  # on a code line
    assert code_text(text) != code_text(text.replace("logic x", "logic y"))
    directive = text.replace("// what it does", "// verilator lint_off UNUSED")
    assert code_text(directive) != code_text(text)


# ------------------------------------------------------------------------- the whole build


@needs_verilator
def test_every_variant_passes_every_step_but_sim(built, project):
    """Every variant the default tier builds (``BUILT_VARIANTS``; -m slow: every one)."""
    _passed_every_step_but_sim(built, project, BUILT_VARIANTS)


@pytest.mark.slow
@needs_verilator
def test_every_variant_of_every_rung_passes_every_step_but_sim(built_everything, project):
    _passed_every_step_but_sim(built_everything, project, VARIANTS)


def _passed_every_step_but_sim(built: dict, project: Path,
                               variants: list[tuple[str, int, str]]) -> None:
    failed = {key: value for key, value in built.items()
              if value[0] not in ("passed", "cached")}
    assert not failed, failed
    for qualname, rung, dtype in variants:
        for step in STEPS_BUT_SIM:
            assert (qualname, rung, dtype, step) in built, (qualname, rung, dtype, step)
        folder = variant_dir(project, qualname, rung, dtype)
        report = json.loads((folder / "csim" / "report.json").read_text())
        labels = {c["label"] for c in report["cases"]}
        assert report["passed"] and {"random", "size_1", "odd_tail"} <= labels
        if KINDS[qualname] == "reduction":
            assert "special_0" in labels and "odd_tail" in labels
        else:
            assert "special_values" in labels
        top = USER.get(qualname).top_name(dtype)
        assert (folder / f"{top}.xo").is_file()
        assert (folder / "host" / f"{top}_host.hpp").is_file()


@needs_verilator
@pytest.mark.parametrize(("qualname", "rung", "dtype"), SIM_VARIANTS, ids=_ids(SIM_VARIANTS))
def test_full_pipeline_with_rtl_simulation(built, project, qualname, rung, dtype):
    pytest.importorskip("cocotb")
    found = statuses(build(project, qualname, "--rungs", str(rung), "--dtype", dtype))
    steps = {step: value for (_, _, _, step), value in found.items()}
    assert set(steps) == {*STEPS_BUT_SIM, "sim"}
    assert all(status in ("passed", "cached") for status, _ in steps.values()), steps
    result = json.loads((variant_dir(project, qualname, rung, dtype) / "sim" / "result.json")
                        .read_text())
    assert result["passed"] is True and result["cycles"] > 0
    # A reduction streams like an elementwise kernel: at least half the rung's ideal.
    assert result["elements_per_cycle"] >= 0.5 * result["ideal_elements_per_cycle"], result


# ------------------------------------------------------------------------------ the runtime


def _check_cases(handle, dtype: str, target: str) -> None:
    failures = []
    for case in stimulus.cases(handle.kernel, DTYPES[dtype], size=300, lanes=16):
        verdict = run_case(handle, dtype, case)
        if not verdict.passed:
            failures.append(f"{case.label}: {verdict.summary()}")
        assert handle.last_call is not None and handle.last_call.target == target
    assert not failures, failures


def _numpy(qualname: str, arrays: list[np.ndarray]) -> np.ndarray:
    """What the user expects, written with numpy directly (not the op table)."""
    x = arrays[0]
    with np.errstate(over="ignore"):
        match qualname:
            case "my_ops/total":
                return np.sum(x, dtype=x.dtype)
            case "my_ops/peak":
                return np.max(np.abs(x))
            case "my_ops/smallest":
                return np.min(x)
            case "my_ops/dot":
                return np.sum(arrays[0] * arrays[1], dtype=x.dtype)
            case "my_ops/scale_shift":
                return np.maximum(x.dtype.type(2) * x + x.dtype.type(-1), x.dtype.type(0))
            case "my_ops/blend":
                a, b = arrays
                return np.maximum(a, b) - a.dtype.type(3) * np.abs(a - b)
    raise KeyError(qualname)


def _small_arrays(kernel, dtype: str, n: int = 1001) -> list[np.ndarray]:
    """Values whose sums and products are exact in float32, so numpy's summation order
    gives the same answer as the hardware's."""
    rng = np.random.default_rng(11)
    return [rng.integers(-100, 100, n).astype(DTYPES[dtype].numpy) for _ in kernel.inputs]


@pytest.mark.parametrize(("qualname", "dtype"), KERNEL_DTYPES, ids=_ids(KERNEL_DTYPES))
def test_sw_emu_matches_numpy(built, project, monkeypatch, qualname, dtype):
    """``fpgakern.runtime.open(<build dir>, target="sw_emu")`` from the project folder,
    every kernel at its highest rung."""
    monkeypatch.chdir(project)
    dev = rt.open(project / "build", target="sw_emu")
    handle = dev.kernel(qualname)
    arrays = _small_arrays(handle.kernel, dtype)
    out = handle(*arrays)
    np.testing.assert_array_equal(out, _numpy(qualname, arrays))
    assert handle.last_call.top == USER.get(qualname).top_name(dtype)
    _check_cases(handle, dtype, "sw_emu")


@pytest.mark.parametrize("qualname", ["my_ops/dot", "my_ops/smallest"])
def test_sw_emu_reduction_over_four_compute_units(built, project, monkeypatch, qualname):
    """Rung 3: each CU reduces its share, the host merges the partial results."""
    monkeypatch.chdir(project)
    handle = rt.open(project / "build", target="sw_emu", opt=3).kernel(qualname)
    arrays = _small_arrays(handle.kernel, "int32", 4099)
    np.testing.assert_array_equal(handle(*arrays), _numpy(qualname, arrays))
    assert handle.last_call.compute_units == 4
    _check_cases(handle, "int32", "sw_emu")


@needs_verilator
@pytest.mark.parametrize(("qualname", "rung", "dtype"), HW_EMU_VARIANTS,
                         ids=_ids(HW_EMU_VARIANTS))
def test_hw_emu_matches_numpy(built, project, monkeypatch, qualname, rung, dtype):
    monkeypatch.chdir(project)
    dev = rt.open(project / "build", target="hw_emu", opt=rung)
    handle = dev.kernel(qualname)
    arrays = _small_arrays(handle.kernel, dtype)
    np.testing.assert_array_equal(handle(*arrays), _numpy(qualname, arrays))
    assert handle.last_call.cycles
    _check_cases(handle, dtype, "hw_emu")


def test_generated_host_program_runs_a_multi_input_reduction(built, project, tmp_path):
    """The build's host code for dot at rung 3 (four CUs, partials merged on the host),
    compiled against the XRT emulation library and run on sw_emu, vs numpy."""
    from fpgakern.link import linker, platforms, resolve, xclbin
    from fpgakern.runtime import emu

    p = plan(USER.get("my_ops/dot"), 3, "int32")
    library = Library(project / "kernel_specs")
    design = linker.link(resolve.resolve(["my_ops/dot@opt3:int32"], library, project / "build"),
                         platforms.load("u250"), None, "sw_emu")
    image = tmp_path / "dot.xclbin"
    image.write_bytes(xclbin.to_xclbin(design))
    emu.prepare(image, ("sw_emu",), specs=project / "kernel_specs")
    folder = variant_dir(project, "my_ops/dot", 3, "int32") / "host"
    program = emu.compile_host(folder / "dot_i32_host_main.cpp", tmp_path / "dot_host")
    cases = stimulus.cases(p.kernel, p.dtype, size=500, lanes=16)
    argv = [str(program), "-x", str(image)]
    for i, case in enumerate(cases):
        csim.write_case(case, p, tmp_path / f"case{i}.bin")
        argv += [str(tmp_path / f"case{i}.bin"), str(tmp_path / f"out{i}.bin")]
    env = dict(os.environ, XCL_EMULATION_MODE="sw_emu")
    env.pop("FPGAKERN_EMU_CONFIG", None)
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    for i, case in enumerate(cases):
        actual = np.fromfile(tmp_path / f"out{i}.bin", dtype=np.int32)
        expected = np.sum(case.tensors["a"] * case.tensors["b"], dtype=np.int32)
        assert actual.tolist() == [expected], case.label


# ------------------------------------------------------------------------ the slow sweep


@pytest.mark.slow
@needs_verilator
def test_every_variant_passes_every_step(built_everything, project):
    """Every rung of every kernel and dtype, the RTL simulated (one model per variant)."""
    found = statuses(build(project, "my_ops/*"))
    failed = {key: value for key, value in found.items()
              if value[0] not in ("passed", "cached")}
    assert not failed, failed
    assert {(*v, "sim") for v in VARIANTS} <= set(found)


@pytest.mark.slow
@needs_verilator
@pytest.mark.parametrize("target", ["sw_emu", "hw_emu"])
@pytest.mark.parametrize(("qualname", "rung", "dtype"), VARIANTS, ids=_ids(VARIANTS))
def test_runtime_every_rung(built_everything, project, monkeypatch, target, qualname, rung, dtype):
    monkeypatch.chdir(project)
    handle = rt.open(project / "build", target=target, opt=rung).kernel(qualname)
    arrays = _small_arrays(handle.kernel, dtype)
    np.testing.assert_array_equal(handle(*arrays), _numpy(qualname, arrays))
    _check_cases(handle, dtype, target)


@pytest.mark.slow
@needs_verilator
def test_sim_step_fails_on_a_broken_rtl_folder(tmp_path):
    """The sim step's verdict is about the rtl/ files: break the datapath there (the
    product reads ``a`` twice) and the simulation fails."""
    pytest.importorskip("cocotb")
    p = plan(USER.get("my_ops/dot"), 2, "int32")
    work = tmp_path / "variant"
    _rtl_step(p, work)
    datapath = work / "rtl" / "dot_i32_datapath.sv"
    text = datapath.read_text()
    broken = text.replace(".b(in_b)", ".b(in_a)")  # sum(a * a)
    assert broken != text, "mutation found nothing to change"
    datapath.write_text(broken)
    outcome = Sim().run(StepContext(p, work, {}))
    assert not outcome.passed, outcome.detail
