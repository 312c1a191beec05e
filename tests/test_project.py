"""A user's own project: output under the project, never in the installed package;
``fpgakern init``; the project's kernels beside the bundled library."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from fpgakern import paths
from fpgakern.cli import main
from fpgakern.spec.library import BUNDLED, PROJECT, Library

REPO = paths.SOURCE_ROOT


def cli(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception  # never a traceback
    return result


# --- installed from a wheel ------------------------------------------------------------


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """fpgakern's wheel, built once. Without build isolation when hatchling is importable
    (no index needed); else pip fetches hatchling into an isolated build environment."""
    out = tmp_path_factory.mktemp("wheel")
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out),
               str(REPO)]
    if importlib.util.find_spec("hatchling") is not None:
        command.insert(5, "--no-build-isolation")
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.skip(f"cannot build the wheel here: {done.stderr.strip().splitlines()[-1:]}")
    (found,) = out.glob("fpgakern-*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A fresh virtualenv holding the wheel (not an editable install). Its dependencies
    come from this environment's site-packages through a .pth line: a path line adds the
    folder alone (its own .pth files, the editable install's among them, are not run), so
    ``import fpgakern`` finds the wheel's copy."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the venv's own paths
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True, env=env).stdout.strip())
    (site / "outer_site_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                    "--no-deps", "--no-index", "--quiet", str(wheel)], check=True,
                   timeout=300)
    # (from another folder: ``-c`` puts the working directory, the checkout, on sys.path)
    where = subprocess.run([str(python), "-c", "import fpgakern; print(fpgakern.__file__)"],
                           check=True, capture_output=True, text=True, cwd=venv,
                           env=env).stdout.strip()
    assert Path(where).parent == site / "fpgakern", where  # the wheel, not the checkout
    return {"bin": venv / "bin", "package": site / "fpgakern"}


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def test_wheel_install_builds_in_an_empty_folder(installed, tmp_path):
    work = tmp_path / "empty"
    work.mkdir()
    before = _files(installed["package"])
    assert "_data/kernel_specs/binary_ops/add.yaml" in before  # the wheel's own library
    env = {**os.environ, "PATH": f"{installed['bin']}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(installed["bin"] / "fpgakern"), "build", "binary_ops/add",
                           "--opt", "2", "--until", "csim"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 tasks" in done.stdout and "6 passed" in done.stdout
    manifest = work / "build" / "binary_ops" / "add" / "opt2" / "float32" / "manifest.json"
    assert manifest.is_file()
    assert (work / "build" / "reports" / "latest").exists()
    assert sorted(p.name for p in work.iterdir()) == ["build"]  # nothing else, no specs
    assert _files(installed["package"]) == before  # nothing written into site-packages


# --- paths ---------------------------------------------------------------------------


def test_project_root_is_nearest_kernel_specs_else_cwd(tmp_path):
    (tmp_path / "proj" / "kernel_specs").mkdir(parents=True)
    deep = tmp_path / "proj" / "src" / "deep"
    deep.mkdir(parents=True)
    assert paths.project_root(deep) == tmp_path / "proj"
    lone = tmp_path / "lone"
    lone.mkdir()
    assert paths.project_root(lone) == lone


def test_build_dir_never_in_the_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert paths.build_dir(paths.PACKAGE_DIR / "_data") == tmp_path / "build"
    assert paths.build_dir() == tmp_path / "build"


# --- fpgakern init and a project beside the bundled library ----------------------------


def test_init_build_list_and_clash(tmp_path, monkeypatch):
    project = tmp_path / "proj"
    made = cli("init", str(project))
    assert made.exit_code == 0, made.output
    category = project / "kernel_specs" / "my_ops"
    assert (category / "_category.yaml").is_file() and (category / "saxpy.yaml").is_file()
    monkeypatch.chdir(project)

    built = cli("build", "my_ops/saxpy", "--opt", "2", "--until", "csim")
    assert built.exit_code == 0, built.output
    assert (project / "build" / "my_ops" / "saxpy" / "opt2" / "int32" / "manifest.json").is_file()
    bundled = cli("build", "binary_ops/add", "--opt", "2", "--dtype", "float32", "--until", "csim")
    assert bundled.exit_code == 0, bundled.output
    assert (project / "build" / "binary_ops" / "add" / "opt2" / "float32").is_dir()

    # The Python runtime, as the README calls it (a relative build tree), sees both.
    import numpy as np

    import fpgakern.runtime as rt

    device = rt.open("build", target="sw_emu", opt=2)
    x = np.arange(-3, 4, dtype=np.int32)
    np.testing.assert_array_equal(device.kernel("my_ops/saxpy")(x, x, alpha=3), 4 * x)
    f = np.linspace(-1, 1, 7, dtype=np.float32)
    np.testing.assert_array_equal(device.kernel("binary_ops/add")(f, f), f + f)
    # From elsewhere, the build tree's own project decides which kernels it holds.
    monkeypatch.chdir(tmp_path)
    away = rt.open(project / "build", target="sw_emu", opt=2)
    np.testing.assert_array_equal(away.kernel("my_ops/saxpy")(x, x, alpha=3), 4 * x)
    monkeypatch.chdir(project)

    listed = cli("list")
    assert "my_ops (your project)" in listed.output
    assert "binary_ops (bundled with fpgakern)" in listed.output
    data = json.loads(cli("list", "--json").output)
    origins = {c["name"]: c["origin"] for c in data["categories"]}
    assert origins["my_ops"] == PROJECT and origins["binary_ops"] == BUNDLED

    # init overwrites nothing
    again = cli("init", str(project))
    assert again.exit_code == 2
    assert again.output.strip() == ("error: kernel_specs/my_ops already exists; fpgakern "
                                    "init overwrites nothing (remove it or init another folder)")

    # a kernel named like a bundled one: one clear line, exit 2
    (category / "add.yaml").write_text("kernel: add\ndoc: Mine.\nexpression: x + y\n")
    clash = subprocess.run([sys.executable, "-m", "fpgakern", "list"], cwd=project,
                           capture_output=True, text=True, timeout=120)
    assert clash.returncode == 2
    assert clash.stderr.strip() == (
        "error: kernel_specs/my_ops/add.yaml: kernel 'add' is also fpgakern's bundled "
        "binary_ops/add; rename it (a kernel's name names its generated functions, "
        "e.g. add_f32)")
    assert "Traceback" not in clash.stdout + clash.stderr


def test_category_of_the_bundled_library_is_a_clash(tmp_path, monkeypatch, write_spec):
    write_spec(tmp_path, "unary_ops/cube.yaml",
               "kernel: cube\ndoc: x cubed.\ninputs: [x]\noutputs: [out]\ndtypes: [float32]\n"
               "expression: x * x * x\n")
    monkeypatch.chdir(tmp_path)
    result = cli("build", "unary_ops/cube", "--until", "hls")
    assert result.exit_code == 2
    assert result.output.strip() == (
        "error: kernel_specs/unary_ops: category 'unary_ops' is also in fpgakern's bundled "
        "library; rename this folder (a project adds categories beside the bundled ones, "
        "it cannot extend or replace them)")


def test_one_kernel_name_in_two_project_categories_is_a_clash(tmp_path, monkeypatch,
                                                              write_spec):
    spec = ("kernel: cube\ndoc: x cubed.\ninputs: [x]\noutputs: [out]\n"
            "dtypes: [float32]\nexpression: x * x * x\n")
    write_spec(tmp_path, "mine_a/cube.yaml", spec)
    write_spec(tmp_path, "mine_b/cube.yaml", spec)
    monkeypatch.chdir(tmp_path)
    result = cli("list")
    assert result.exit_code == 2
    assert result.output.strip() == (
        "error: kernel_specs/mine_b/cube.yaml: kernel 'cube' is also mine_a/cube; kernel "
        "names must be unique across categories (a kernel's name names its generated "
        "functions, e.g. cube_f32)")


def test_specs_option_reads_that_folder_alone(tmp_path, write_spec):
    # --specs keeps its meaning: a folder of its own (here a copy of a bundled category)
    write_spec(tmp_path, "unary_ops/neg.yaml",
               "kernel: neg\ndoc: d\ninputs: [x]\noutputs: [out]\ndtypes: [float32]\n"
               "expression: -x\n")
    library = Library(tmp_path / "kernel_specs")
    assert [k.qualname for k in library.kernels] == ["unary_ops/neg"]
    assert cli("list", "--specs", str(tmp_path / "kernel_specs")).exit_code == 0


def test_project_without_specs_sees_the_bundled_library(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    library = Library.for_project()
    assert library.root == tmp_path / "kernel_specs"  # output goes beside it: here
    assert "binary_ops/add" in {k.qualname for k in library.kernels}
    assert {c.origin for c in library.categories.values()} == {BUNDLED}


def test_wheel_carries_the_bundled_library(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "fpgakern/_data/kernel_specs/binary_ops/add.yaml" in names
    assert not any("/build/" in n for n in names)


def test_unreadable_spec_folder_is_one_line(tmp_path, monkeypatch, write_spec):
    # Tests run as root, where chmod cannot deny a read: the refusal is simulated.
    write_spec(tmp_path, "mine/cube.yaml", "kernel: cube\ndoc: d\ninputs: [x]\n"
               "outputs: [out]\ndtypes: [float32]\nexpression: x * x * x\n")
    monkeypatch.chdir(tmp_path)
    real = Path.iterdir

    def iterdir(self):
        if self.name == "mine":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    result = cli("list")
    assert result.exit_code == 2
    assert result.output.strip() == ("error: kernel_specs/mine: cannot read this folder: "
                                     "Permission denied")
