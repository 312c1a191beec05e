"""Task keys cover everything that decides a task's output, and nothing else.

Each key test edits one generator input in a private copy of the source tree (fpgakern/,
hls_templates/, sim/, kernel_specs/), computes every task key of the whole library in a
fresh interpreter on that copy (``scheduler.task_keys``: nothing runs), and checks that
exactly the tasks which read the input changed key, every variant's, and that the rest
kept theirs. Folders are discovered, not named, so renaming a template folder keeps the
tests meaningful. One end-to-end test builds for real (up to csim, no Verilator).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fpgakern import ladder, paths
from fpgakern.orchestrate import step as step_module
from fpgakern.orchestrate.scheduler import task_keys
from fpgakern.orchestrate.steps import steps

SOURCE_FOLDERS = ("fpgakern", "hls_templates", "sim", "kernel_specs")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")

ALL = frozenset(steps())
# The HLS templates feed hls and host; csim compiles and xo packs what hls wrote.
HLS_SIDE = frozenset({"hls", "csim", "host", "xo"})
# The RTL library and templates feed rtl; lint, sim and xo take what rtl wrote.
RTL_SIDE = frozenset({"rtl", "lint", "sim", "xo"})

KEYS_SCRIPT = """
import json, sys
from pathlib import Path
import fpgakern
from fpgakern.cli._select import plans_for
from fpgakern.orchestrate.scheduler import task_keys
from fpgakern.spec.library import Library

plans = plans_for(Library(Path(sys.argv[1])), (), all_kernels=True, rungs=None, dtype=None)
keys = task_keys(plans)
print(json.dumps({"package": fpgakern.__file__,
                  "keys": [[str(v), s, k] for (v, s), k in keys.items()]}))
"""

Keys = dict[tuple[str, str], str]


def copy_sources(target: Path, source: Path = paths.SOURCE_ROOT) -> Path:
    for name in SOURCE_FOLDERS:
        shutil.copytree(source / name, target / name, ignore=IGNORE)
    return target


def env_for(tree: Path) -> dict[str, str]:
    """An environment whose fpgakern is the one in ``tree`` (PYTHONPATH comes before the
    editable install) with a private tool cache."""
    return {**os.environ, "PYTHONPATH": str(tree), "FPGAKERN_CACHE_DIR": str(tree / ".cache")}


def keys_of(tree: Path, package_root: Path | None = None, specs: Path | None = None) -> Keys:
    """Every task key of the whole library, computed by the fpgakern of ``tree``."""
    package_root = package_root or tree
    specs = specs or tree / "kernel_specs"
    done = subprocess.run([sys.executable, "-c", KEYS_SCRIPT, str(specs)], cwd=tree,
                          env=env_for(package_root), capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert Path(data["package"]).is_relative_to(package_root), data["package"]
    return {(variant, step): key for variant, step, key in data["keys"]}


def changed(before: Keys, after: Keys) -> set[tuple[str, str]]:
    assert before.keys() == after.keys(), "the edit changed which tasks exist"
    return {task for task, key in before.items() if after[task] != key}


def tasks_of(keys: Keys, step_names: frozenset[str]) -> set[tuple[str, str]]:
    """Every variant's tasks of these steps (skipped tasks have no key: not among them)."""
    return {task for task in keys if task[1] in step_names}


def touch(path: Path) -> None:
    """Append a comment in the file's own language: a real edit that keeps it valid."""
    name = path.name
    if name.endswith(".j2"):
        line = "{# edited #}"
    elif name.endswith(".py"):
        line = "# edited"
    elif name.endswith((".h", ".hpp", ".c", ".cpp", ".sv", ".v", ".svh")):
        line = "// edited"
    elif name.endswith((".yaml", ".yml")):
        line = "# edited"
    else:
        line = ""
    path.write_text(path.read_text() + line + "\n")


def edit(path: Path, pattern: str, replacement: str) -> None:
    text = path.read_text()
    new, count = re.subn(pattern, replacement, text, count=1)
    assert count == 1, f"{pattern!r} not found in {path}: update this test's edit"
    path.write_text(new)


def first_file(folder: Path) -> Path:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix != ".pyc")
    assert files, f"{folder} is empty"
    return files[0]


def template_folders() -> list[str]:
    return sorted(p.name for p in paths.data_dir("hls_templates").iterdir() if p.is_dir())


def rtl_folders() -> list[str]:
    """The package folders holding SystemVerilog: the support and operator libraries and
    the RTL templates, wherever they live."""
    found = {p.parent for pattern in ("*.sv", "*.sv.j2") for p in paths.PACKAGE_DIR.rglob(pattern)}
    return sorted(str(p.relative_to(paths.SOURCE_ROOT)) for p in found)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> tuple[Path, Keys]:
    """One copy of the sources and its keys, for every test of the module to start from."""
    tree = copy_sources(tmp_path_factory.mktemp("pristine"))
    return tree, keys_of(tree)


@pytest.fixture
def tree(pristine, tmp_path) -> Path:
    """A copy of the pristine copy, for one test to edit."""
    return copy_sources(tmp_path / "src", pristine[0])


def assert_rekeys(pristine: tuple[Path, Keys], tree: Path, expected: frozenset[str]) -> None:
    before = pristine[1]
    got = changed(before, keys_of(tree))
    want = tasks_of(before, expected)
    assert want, f"no task of {sorted(expected)} has a key: nothing to check"
    assert got == want, (f"re-keyed but should not: {sorted(got - want)[:5]}; "
                         f"kept but should re-key: {sorted(want - got)[:5]}")


def test_op_table_spelling_rekeys_every_step(pristine, tree):
    # The op table holds each op's C++ spelling, its RTL module and its numpy reference:
    # every step's code reads it.
    edit(tree / "fpgakern" / "ir" / "ops" / "elementwise.py", r'"fk::(\w+)\(\{0\}\)"',
         r'"fk::\1(({0}))"')
    assert_rekeys(pristine, tree, ALL)


def test_ladder_chunk_rekeys_every_step(pristine, tree):
    edit(tree / "fpgakern" / "ladder" / "microarch.py", r"chunk: ClassVar\[int\] = (\d+)",
         "chunk: ClassVar[int] = 2048")
    assert_rekeys(pristine, tree, ALL)


@pytest.mark.parametrize("folder", template_folders())
def test_template_folder_rekeys_its_readers(pristine, tree, folder):
    """hls_templates/csim holds the stand-ins for the Vitis headers that only csim compiles
    against; every other folder (kinds, default, common macros, include) is rendered or
    copied by hls and host."""
    touch(first_file(tree / "hls_templates" / folder))
    assert_rekeys(pristine, tree, frozenset({"csim"}) if folder == "csim" else HLS_SIDE)


@pytest.mark.parametrize("folder", rtl_folders())
def test_rtl_library_rekeys_rtl_and_its_readers(pristine, tree, folder):
    files = sorted((tree / folder).glob("*.sv*"))
    touch(files[0])
    assert_rekeys(pristine, tree, RTL_SIDE)


def test_sim_folder_rekeys_sim_only(pristine, tree):
    # The cocotb testbenches, the memory model (C++ and SV) and the wrapper template.
    touch(first_file(tree / "sim" / "fkmem"))
    assert_rekeys(pristine, tree, frozenset({"sim"}))


# The hls step reads no platform file: a named platform reaches it as the variant's
# memory system (in the variant's key), and without one it places on
# ladder.DEFAULT_MEMORY, a constant of its code that tests/test_ladder.py holds to
# u55c.yaml. fpgakern/link's templates and platform files re-key xo alone.
LINK_DATA_TASKS = frozenset({"xo"})


def test_link_templates_rekey_xo(pristine, tree):
    templates = {p.parent for p in (tree / "fpgakern" / "link").rglob("*.xml.j2")}
    assert templates
    touch(first_file(sorted(templates)[0]))
    assert_rekeys(pristine, tree, LINK_DATA_TASKS)


def test_platform_files_rekey_the_xo_step(pristine, tree):
    touch(tree / "fpgakern" / "link" / "platforms" / "u55c.yaml")
    assert_rekeys(pristine, tree, LINK_DATA_TASKS)


@pytest.mark.parametrize(("module", "expected"), [
    ("backends/host/__init__.py", {"host"}),  # the host generator: no other step imports it
    ("verify/csim.py", {"csim"}),
    ("backends/rtl/lint.py", {"lint"}),
])
def test_generator_module_rekeys_the_steps_that_import_it(pristine, tree, module, expected):
    touch(tree / "fpgakern" / module)
    assert_rekeys(pristine, tree, frozenset(expected))


def test_wheel_layout_gives_the_same_keys(pristine, tmp_path):
    """In a wheel the data folders live under fpgakern/_data: same keys, and an edit
    there re-keys as in a checkout."""
    site = tmp_path / "site"
    shutil.copytree(pristine[0] / "fpgakern", site / "fpgakern", ignore=IGNORE)
    for name in SOURCE_FOLDERS[1:]:
        shutil.copytree(pristine[0] / name, site / "fpgakern" / "_data" / name, ignore=IGNORE)
    specs = site / "fpgakern" / "_data" / "kernel_specs"
    assert keys_of(tmp_path, site, specs) == pristine[1]
    touch(first_file(site / "fpgakern" / "_data" / "hls_templates" / "csim"))
    got = changed(pristine[1], keys_of(tmp_path, site, specs))
    assert got == tasks_of(pristine[1], frozenset({"csim"}))


def test_closure_follows_every_import():
    """The closure takes imports inside functions (the sim step imports its simulator in
    run()) and those of the testbenches under sim/; each step's closure is its own."""
    def sources_of(name: str, data: tuple[str, ...] | None = None) -> step_module.Sources:
        cls = type(steps()[name])
        return step_module.sources((cls.__module__, step_module.RUNNER),
                                   cls.data if data is None else data)

    hls = sources_of("hls")
    assert {"fpgakern.ladder", "fpgakern.ir.ops", "fpgakern.backends.hls.generator",
            "fpgakern.spec.schema"} <= set(hls.modules)
    assert not any(m.startswith("fpgakern.backends.rtl") for m in hls.modules)
    sim = sources_of("sim")
    assert "fpgakern.verify.rtlsim" in sim.modules
    without_testbenches = sources_of("sim", ("!sim",))
    assert set(sim.modules) > set(without_testbenches.modules)
    rtl = sources_of("rtl")
    for folder in rtl_folders():
        assert str(Path(folder).relative_to("fpgakern")) in rtl.package_data
    assert any(p.startswith("numpy==") for p in hls.packages)


def test_sources_are_hashed_once_per_process(library):
    plans = [ladder.plan(k, r, d) for k in library.kernels[:4] for r in k.rungs
             for d in k.dtypes]
    step_module.sources.cache_clear()
    assert task_keys(plans) == task_keys(plans)
    assert step_module.sources.cache_info().misses == len(steps())


def test_source_date_epoch_rekeys_exactly_the_xo(library, monkeypatch):
    """The .xo's zip times come from SOURCE_DATE_EPOCH: a new value must rebuild it."""
    plans = [ladder.plan(library.get("binary_ops/add"), 2, "float32")]
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    before = task_keys(plans)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    after = task_keys(plans)
    assert {step for (_, step), key in after.items() if before[(_, step)] != key} == {"xo"}


def run_build(tree: Path) -> dict[tuple[int, str], str]:
    """``fpgakern build binary_ops/add`` rungs 0 and 1, float32, up to csim, by the
    fpgakern of ``tree``; the status of every task."""
    done = subprocess.run(
        [sys.executable, "-m", "fpgakern", "build", "binary_ops/add", "--rungs", "0,1",
         "--dtype", "float32", "--until", "csim", "--specs", str(tree / "kernel_specs"),
         "--out", str(tree / "build"), "--json", "--jobs", "1"],
        cwd=tree, env=env_for(tree), capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    data = json.loads(done.stdout)
    return {(v["rung"], t["step"]): t["status"] for v in data["variants"] for t in v["tasks"]}


def test_editing_the_ladder_rebuilds_the_generated_cpp(pristine, tree):
    """End to end: a cached build, then ``chunk`` changes in the ladder: the C++ of the
    buffered rung changes and every task runs again, none is served from the cache."""
    first = run_build(tree)
    assert set(first.values()) == {"passed"} and set(first) == {
        (rung, step) for rung in (0, 1) for step in ("hls", "csim")}
    assert set(run_build(tree).values()) == {"cached"}
    variant = tree / "build" / "binary_ops" / "add"
    cpp = {rung: (variant / f"opt{rung}" / "float32" / "add_f32.cpp").read_text()
           for rung in (0, 1)}
    edit(tree / "fpgakern" / "ladder" / "microarch.py", r"chunk: ClassVar\[int\] = (\d+)",
         "chunk: ClassVar[int] = 1024")

    again = run_build(tree)
    assert again == dict.fromkeys(first, "passed")
    buffered = (variant / "opt1" / "float32" / "add_f32.cpp").read_text()
    assert buffered != cpp[1] and "1024" in buffered
    # The naive rung reads no chunk: same C++, rebuilt because its generator changed.
    assert (variant / "opt0" / "float32" / "add_f32.cpp").read_text() == cpp[0]
