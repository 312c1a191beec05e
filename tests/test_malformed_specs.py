"""Malformed specs never crash or hang fpgakern (issue 11).

Every case below is a project whose ``kernel_specs/`` holds one bad file. ``fpgakern
build`` must answer with exactly one line, ``error: <file>[:<line>]: [<key>: ]<message>``,
exit code 2, no traceback, within TIME_LIMIT, and leave ``build/`` exactly as it was.

The corpus is data: ``tests/data/malformed_specs/<case>.yaml``, each file starting with

    # expect: <the start of the message after "error: ">
    # install: <where under kernel_specs/ it goes>   (default: my_ops/axpy.yaml)
    # subprocess                                     (run in a child process)

Line numbers in ``expect`` count these header lines: they are the file's own lines. The
wording of a YAML syntax error is the parser's (libyaml's differs from PyYAML's pure-Python
one), so those cases expect only ``<file>:<line>: invalid YAML: ``.
Cases that cannot be files in git (FIFOs, symlinks, multi-megabyte files) are made by
``GENERATED`` below. Most cases run the CLI in-process with click's CliRunner; the ones
that, without the fixes, would eat all memory or never return (``/dev/zero``, FIFOs, alias
bombs, huge values) run ``python -m fpgakern`` in a child with a memory rlimit and a
timeout, so that a regression fails the test instead of the machine.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from fpgakern.cli import main

DATA = Path(__file__).parent / "data" / "malformed_specs"
CATEGORY = ("doc: My own kernels.\ndefaults:\n  inputs: [x, y]\n  outputs: [out]\n"
            "  dtypes: [float32, int32]\n")
GOOD = ("kernel: axpy\ndoc: Scaled sum, out = alpha * x + y.\nmirrors: torch.add\n"
        "scalars:\n  alpha: 2\nexpression: alpha * x + y\n")
DEFAULT_INSTALL = "my_ops/axpy.yaml"
# --until hls --opt 0: should a case not be rejected, the build it starts is short.
COMMAND = ["build", "my_ops/axpy", "--opt", "0", "--until", "hls"]
TIME_LIMIT = 2.0  # seconds for the CLI to reject a spec (beyond interpreter start-up)
MEMORY_LIMIT = 1 << 30  # address space of a child process, bytes
CHILD_TIMEOUT = 15.0  # a child still running then has hung: kill it and fail


@dataclass(frozen=True)
class Case:
    name: str
    expect: str  # the start of the message after "error: "
    install: str  # the path under kernel_specs/ the case writes
    make: Callable[[Path], None]  # writes the case at that path
    subprocess: bool = False


def _file_case(path: Path) -> Case:
    data = path.read_bytes()
    header: dict[str, str] = {}
    for line in data.split(b"\n"):
        if not line.startswith(b"# "):
            break
        key, _, value = line[2:].decode("utf-8").partition(":")
        header[key.strip()] = value.strip()
    assert "expect" in header, f"{path.name}: no '# expect:' line"
    return Case(path.stem, header["expect"], header.get("install", DEFAULT_INSTALL),
                lambda target: target.write_bytes(data), "subprocess" in header)


def _symlink(to: str) -> Callable[[Path], None]:
    return lambda target: target.symlink_to(to)


def _fifo(target: Path) -> None:
    os.mkfifo(target)


def _mkdir(target: Path) -> None:
    target.mkdir()


def _text(text: str) -> Callable[[Path], None]:
    return lambda target: target.write_text(text)


def _loop(target: Path) -> None:
    target.symlink_to(target.name + ".other")
    target.with_name(target.name + ".other").symlink_to(target.name)


SPEC = "kernel_specs/my_ops/axpy.yaml"
CAT = "kernel_specs/my_ops/_category.yaml"
CAT_INSTALL = "my_ops/_category.yaml"
HUGE_EXPRESSION = "alpha * x + y" + " + y" * 25_000  # 100k characters of v + v + ...

GENERATED = [
    Case("special_directory", f"{SPEC}: not a regular file (a directory)", DEFAULT_INSTALL,
         _mkdir),
    Case("special_dangling_symlink", f"{SPEC}: cannot read: dangling symbolic link",
         DEFAULT_INSTALL, _symlink("nowhere.yaml")),
    Case("special_symlink_loop", f"{SPEC}: cannot read: symbolic link loop", DEFAULT_INSTALL,
         _loop),
    Case("special_dev_null", f"{SPEC}: not a regular file (a character device)",
         DEFAULT_INSTALL, _symlink("/dev/null")),
    Case("special_dev_zero", f"{SPEC}: not a regular file (a character device)",
         DEFAULT_INSTALL, _symlink("/dev/zero"), subprocess=True),
    Case("special_fifo", f"{SPEC}: not a regular file (a named pipe (FIFO))", DEFAULT_INSTALL,
         _fifo, subprocess=True),
    Case("category_file_directory", f"{CAT}: not a regular file (a directory)", CAT_INSTALL,
         _mkdir),
    Case("category_file_dangling_symlink", f"{CAT}: cannot read: dangling symbolic link",
         CAT_INSTALL, _symlink("gone.yaml")),
    Case("category_file_symlink_loop", f"{CAT}: cannot read: symbolic link loop", CAT_INSTALL,
         _loop),
    Case("category_file_fifo", f"{CAT}: not a regular file (a named pipe (FIFO))",
         CAT_INSTALL, _fifo, subprocess=True),
    Case("too_large_file", f"{SPEC}: file is too large (1048577 bytes; a spec may be at most "
         "1048576 bytes, 1 MiB)", DEFAULT_INSTALL,
         _text(GOOD + "#" * ((1 << 20) - len(GOOD)) + "\n")),
    Case("too_many_values", f"{SPEC}:7: rungs: too many YAML values (more than 10000)",
         DEFAULT_INSTALL, _text(GOOD + "rungs: [" + "0, " * 12_000 + "0]\n")),
    Case("huge_flow_list", f"{SPEC}:7: rungs: too many YAML values (more than 10000)",
         DEFAULT_INSTALL, _text(GOOD + "rungs: [" + "0," * 500_000 + "0]\n"), subprocess=True),
    Case("huge_expression_100k", f"{SPEC}:6: expression: is 100013 characters long (at most "
         "1000)", DEFAULT_INSTALL, _text(GOOD.replace("alpha * x + y\n", HUGE_EXPRESSION + "\n")),
         subprocess=True),
    # libyaml stops this at its own depth limit (1000), the pure-Python parser at ours.
    Case("huge_yaml_nesting", f"{SPEC}:7: ",
         DEFAULT_INSTALL, _text(GOOD + "rungs: " + "[" * 100_000 + "\n")),
    Case("binary_garbage", f"{SPEC}:2: not UTF-8 text (byte 0x80 at offset 127)",
         DEFAULT_INSTALL, lambda target: target.write_bytes(bytes(range(1, 256)) * 4)),
]


def _cases() -> list[Case]:
    return [_file_case(p) for p in sorted(DATA.glob("*.yaml"))] + GENERATED


CASES = _cases()


def _project(root: Path, case: Case) -> dict[str, tuple[str, bytes]]:
    """A project with a good category and kernel plus build/ output, then the case on
    top; returns the snapshot of build/ to compare with afterwards."""
    for rel, text in (("my_ops/_category.yaml", CATEGORY), ("my_ops/axpy.yaml", GOOD)):
        path = root / "kernel_specs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    target = root / "kernel_specs" / case.install
    target.parent.mkdir(parents=True, exist_ok=True)
    if os.path.lexists(target):
        target.unlink()
    case.make(target)
    build = root / "build"
    for rel, data in (("my_ops/axpy/opt0/float32/manifest.json", b'{"kernel": "my_ops/axpy"}'),
                      ("history.sqlite", bytes(range(256))),
                      ("reports/latest/run_results.json", b"[]\n")):
        (build / rel).parent.mkdir(parents=True, exist_ok=True)
        (build / rel).write_bytes(data)
    return _snapshot(build)


def _snapshot(folder: Path) -> dict[str, tuple[str, bytes]]:
    """Every entry under ``folder``: its kind and, for a file, its bytes."""
    out: dict[str, tuple[str, bytes]] = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path).encode())
        elif path.is_dir():
            out[rel] = ("dir", b"")
        else:
            out[rel] = ("file", path.read_bytes())
    return out


def _check(case: Case, exit_code: int, output: str, elapsed: float) -> None:
    assert "Traceback" not in output, output[-2000:]
    lines = output.splitlines()
    assert len(lines) == 1, f"expected one line, got {len(lines)}: {output[:2000]!r}"
    assert lines[0].startswith("error: " + case.expect), lines[0]
    assert exit_code == 2, f"exit code {exit_code}: {lines[0]}"
    assert elapsed < TIME_LIMIT, f"took {elapsed:.2f} s"


def test_corpus_covers_the_classes():
    """At least 80 cases, none without an expectation."""
    assert len(CASES) >= 80
    assert len({c.name for c in CASES}) == len(CASES)
    assert all(c.expect and c.expect != "TODO" for c in CASES)


IN_PROCESS = [c for c in CASES if not c.subprocess]
CHILD = [c for c in CASES if c.subprocess]


@pytest.mark.parametrize("case", IN_PROCESS, ids=[c.name for c in IN_PROCESS])
def test_malformed_spec_in_process(case, tmp_path, monkeypatch):
    before = _project(tmp_path, case)
    monkeypatch.chdir(tmp_path)
    started = time.monotonic()
    result = CliRunner().invoke(main, COMMAND)
    elapsed = time.monotonic() - started
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{type(result.exception).__name__}: {result.exception}")
    _check(case, result.exit_code, result.output, elapsed)
    assert _snapshot(tmp_path / "build") == before


def _limit_memory() -> None:  # runs in the child before exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _run_child(cwd: Path, args: list[str]) -> tuple[int, str, str, float]:
    """Run the CLI in its own session, so that on a timeout the whole process group (a
    build's worker processes too) is killed, not only the child."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    started = time.monotonic()
    child = subprocess.Popen([sys.executable, "-m", "fpgakern", *args], cwd=cwd, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=_limit_memory, start_new_session=True)
    try:
        stdout, stderr = child.communicate(timeout=CHILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        _kill_group(child.pid)
        child.communicate()
        pytest.fail(f"fpgakern {' '.join(args)} still running after {CHILD_TIMEOUT} s")
    finally:
        _kill_group(child.pid)  # nothing the child started may outlive the test
    return child.returncode, stdout, stderr, time.monotonic() - started


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # already gone
        os.killpg(pgid, signal.SIGKILL)


@pytest.fixture(scope="module")
def startup_seconds(tmp_path_factory) -> float:
    """How long the CLI takes to start and reject a good project's unknown kernel: the
    share of a child's time that is not spent on the spec."""
    root = tmp_path_factory.mktemp("startup")
    _project(root, Case("good", "", DEFAULT_INSTALL, _text(GOOD)))
    code, _, stderr, elapsed = _run_child(root, ["build", "my_ops/nope"])
    assert code == 2 and "unknown kernel" in stderr, stderr
    return elapsed


@pytest.mark.parametrize("case", CHILD, ids=[c.name for c in CHILD])
def test_malformed_spec_in_child_process(case, tmp_path, startup_seconds):
    before = _project(tmp_path, case)
    code, stdout, stderr, elapsed = _run_child(tmp_path, COMMAND)
    assert stdout == ""
    _check(case, code, stderr, max(elapsed - startup_seconds, 0.0))
    assert _snapshot(tmp_path / "build") == before


def test_list_reports_the_same_line(tmp_path, monkeypatch):
    """``fpgakern list`` loads the same specs and fails the same way."""
    case = next(c for c in CASES if c.name == "unknown_tag")
    _project(tmp_path, case)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["list"])
    _check(case, result.exit_code, result.output, 0.0)
