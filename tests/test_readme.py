"""The front page is true: every shell command and Python block of README.md runs as
written, the page fits one screen, and its links (and the docs pages') lead somewhere.

The quick commands run in the default tier, in a scratch folder with the caller's model
cache (the tour builds binary_ops/add at rung 4, whose models other default-tier tests
build too). The long ones are listed in ``SLOW`` by their exact text, with the reason,
and run under ``-m slow``, so every command on the page is run by some tier.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fpgakern import paths

REPO = paths.SOURCE_ROOT
README = REPO / "README.md"
MAX_LINES = 160

SLOW = {
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && "
    "fpgakern build binary_ops/add --opt 4":
        "makes a virtualenv in a copy of the repository and installs fpgakern into it",
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && "
    "pip install --no-deps pynq && python -m pytest -n 2":
        "makes a virtualenv in a copy of the repository and runs the whole default tier",
}

# What the README's Python blocks promise, checked after each block runs in the same
# process (keyed by a line the block must hold).
PYTHON_CHECKS = {
    'out = dev.kernel("binary_ops/add")(a, b, alpha=2.0)': """
assert np.array_equal(out, a + np.float32(2) * b), "the kernel's a + 2 * b"
assert torch.equal(y, torch.add(torch.tensor(a), torch.tensor(b), alpha=2)), "torch.add's bits"
assert torch.equal(z, torch.exp(torch.tensor(a))), "the fallback is torch.exp"
import fpgakern.compiler
report = fpgakern.compiler.last_report()
assert len(report.running) == 1 and not report.left_out, report
assert report.last_call is not None and report.last_call.kernel_calls == 1, report
assert r.shape == (64,) and bool((r >= 0).all()), r
""",
}

FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def blocks(language: str, text: str | None = None) -> list[str]:
    text = README.read_text() if text is None else text
    return [body for lang, body in FENCE.findall(text) if lang == language]


def commands(block: str) -> list[str]:
    """The block's commands, a line continued with a backslash joined to the next."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line.strip() for line in joined.splitlines() if line.strip()]


def command_text(command: str) -> str:
    """A command without its trailing comment, as SLOW names it."""
    return re.sub(r"\s+#.*$", "", command).strip()


def quick_blocks() -> list[str]:
    return [b for b in blocks("sh") if not any(command_text(c) in SLOW for c in commands(b))]


def environment() -> dict[str, str]:
    """The caller's environment (its FPGAKERN_CACHE_DIR included) with this Python's
    scripts first on PATH, as an activated virtualenv has them."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def run_script(script: str, cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert done.returncode == 0, done.stdout[-8000:]


def test_readme_fits_one_screen():
    lines = README.read_text().count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines (at most {MAX_LINES})"


def test_slow_commands_are_on_the_readme_and_blocks_are_one_tier():
    """SLOW names commands the README has, and a block is quick or slow as a whole (its
    commands share a shell: a later one may need an earlier one's folder)."""
    on_page = {command_text(c) for b in blocks("sh") for c in commands(b)}
    assert set(SLOW) <= on_page, set(SLOW) - on_page
    for block in blocks("sh"):
        slow = {command_text(c) in SLOW for c in commands(block)}
        assert len(slow) == 1, block
    assert quick_blocks(), "the README has no quick commands left to run"
    for block in blocks("python"):
        assert any(key in block for key in PYTHON_CHECKS), (
            f"a README Python block without checks in PYTHON_CHECKS:\n{block}")


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for a page's headings."""
    text = FENCE.sub("", page.read_text())
    return {re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            for line in text.splitlines() if line.startswith("#")}


def _broken_links(page: Path) -> list[str]:
    broken = []
    for target in LINK.findall(FENCE.sub("", page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path) if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target}: no heading with that anchor")
    return broken


def test_readme_links_resolve():
    targets = LINK.findall(FENCE.sub("", README.read_text()))
    docs = {t.partition("#")[0] for t in targets if t.startswith("docs/")}
    # Every page of docs/ is linked from the front page.
    assert docs >= {f"docs/{p.name}" for p in (REPO / "docs").glob("*.md")}
    assert _broken_links(README) == []


@pytest.mark.parametrize("page", sorted((REPO / "docs").glob("*.md")) + [REPO / "tests" /
                                                                         "README.md"],
                         ids=lambda p: p.relative_to(REPO).as_posix())
def test_docs_links_resolve(page):
    assert _broken_links(page) == []


def test_readme_quick_commands_and_python_run_as_written(tmp_path):
    """The tour's commands in order, in one shell per block, from an empty folder; then
    each Python block (with its checks) in the folder the commands left."""
    env = environment()
    end = tmp_path / "cwd"
    for block in quick_blocks():
        script = "\n".join(["set -euo pipefail",
                            "trap 'echo \"README command failed: $BASH_COMMAND\"' ERR",
                            *commands(block), f"pwd > {end}"])
        run_script(script, tmp_path, env)
    cwd = Path(end.read_text().strip())
    for index, block in enumerate(blocks("python")):
        checks = [check for key, check in PYTHON_CHECKS.items() if key in block]
        script = cwd / f"readme_block_{index}.py"
        script.write_text(block + "".join(checks))
        done = subprocess.run([sys.executable, str(script)], cwd=cwd, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert done.returncode == 0, done.stdout[-8000:]
        assert "FallbackWarning" in done.stdout, "the torch.exp fallback gave no reason"


def _copy_of_the_repository(dest: Path) -> Path:
    """The repository's files as they are in the work tree (tracked and new, not ignored),
    so the set-up commands run on what a fresh clone of this tree would hold."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=REPO, check=True,
                            stdout=subprocess.PIPE).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


@pytest.mark.parametrize("command", sorted(SLOW), ids=lambda c: c.rsplit("&& ", 1)[-1])
def test_readme_long_command_waits_for_the_slow_tier(command):
    """Named in the default tier's summary, so that none is forgotten: the test below
    runs it under -m slow."""
    pytest.skip(f"README command {command!r} runs under -m slow: {SLOW[command]}")


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(SLOW), ids=lambda c: c.rsplit("&& ", 1)[-1])
def test_readme_setup_command_runs_as_written(command, tmp_path):
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs the git checkout to copy")
    clone = _copy_of_the_repository(tmp_path / "fpgakern")
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH") and not k.startswith("PYTEST_")}
    run_script(f"set -euo pipefail\n{command}", clone, env)
