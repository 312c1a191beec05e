"""Time the README's test command the way a new user first runs it.

    python benchmarks/suite_budget.py [--rev REV] [--budget SECONDS] [--reuse-python]

Clones this repository at ``--rev`` (default HEAD, so commit first) into a temporary
folder, installs it into a fresh virtualenv as the README's set-up command does (not
timed), and runs the README's test command there with every cache empty: a fresh
fpgakern cache (compiled models, csim binaries), a fresh XDG cache (YoWASP's compiled
Yosys) and ccache disabled. Prints the wall time against the budget (the default tier's
8 minutes on 2 cores) and the slowest 20 tests with their share of all the test time
(two workers: the shares add up to about twice the wall time's), and what the compiled
caches' builds cost by kind (``$FPGAKERN_BUILD_LOG``). ``--reuse-python`` runs
the clone with this interpreter's installed packages instead of a fresh virtualenv (the
clone's own fpgakern first on the path): quicker, for a second measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fpgakern.tools.cache import BUILD_LOG_VARIABLE

ROOT = Path(__file__).resolve().parents[1]
BUDGET_S = 8 * 60
DURATION = re.compile(r"^\s*([\d.]+)s (call|setup|teardown)\s+(\S+)")


def readme_test_command(readme: Path) -> list[str]:
    """The README's test command: the last step of the set-up line that runs pytest."""
    for line in readme.read_text().splitlines():
        if "pytest" in line and "&&" in line:
            return shlex.split(line.split("&&")[-1])
    sys.exit(f"{readme}: no set-up line runs pytest")


def install(clone: Path, venv: Path) -> Path:
    """A fresh virtualenv with the clone installed as the README says; its python."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    for args in (["-e", f"{clone}[test]"], ["--no-deps", "pynq"]):
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *args], check=True)
    return python


def slowest(output: str, count: int) -> tuple[list[tuple[float, str]], float]:
    """The ``count`` slowest test phases pytest's ``--durations=0`` listed, and the sum of
    all of them."""
    phases = [(float(m.group(1)), f"{m.group(3)} ({m.group(2)})")
              for m in map(DURATION.match, output.splitlines()) if m]
    phases.sort(reverse=True)
    return phases[:count], sum(seconds for seconds, _ in phases)


def print_builds(builds: list[dict], cpu: float) -> None:
    """What the cache builds cost, by kind (fpgakern.tools.cache's build log)."""
    kinds: dict[str, list[float]] = {}
    for build in builds:
        count_seconds_cpu = kinds.setdefault(build["kind"], [0, 0.0, 0.0])
        count_seconds_cpu[0] += 1
        count_seconds_cpu[1] += build["seconds"]
        count_seconds_cpu[2] += build["cpu"]
    print(f"\n{'builds':>8}  {'wall s':>7}  {'cpu s':>7}  {'share':>6}  cache kind")
    for kind, (count, seconds, used) in sorted(kinds.items(), key=lambda kv: -kv[1][2]):
        print(f"{count:8.0f}  {seconds:7.1f}  {used:7.1f}  {used / cpu:6.1%}  {kind}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the commit to clone (default HEAD)")
    parser.add_argument("--budget", type=float, default=BUDGET_S,
                        help=f"seconds the run must stay within (default {BUDGET_S})")
    parser.add_argument("--reuse-python", action="store_true",
                        help="run with this interpreter instead of a fresh virtualenv")
    parser.add_argument("--log", type=Path, help="also write pytest's output here (and the "
                        "cache builds' log beside it, .builds.jsonl)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fpgakern-budget-") as scratch_name:
        scratch = Path(scratch_name)
        clone = scratch / "fpgakern"
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)],
                       check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", args.rev], check=True)
        builds = scratch / "builds.jsonl"
        env = dict(os.environ, FPGAKERN_CACHE_DIR=str(scratch / "cache"),
                   XDG_CACHE_HOME=str(scratch / "xdg"), CCACHE_DISABLE="1",
                   **{BUILD_LOG_VARIABLE: str(builds)})
        if args.reuse_python:
            python = Path(sys.executable)
            env["PYTHONPATH"] = str(clone)
        else:
            python = install(clone, scratch / "venv")
            env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
            env.pop("VIRTUAL_ENV", None)
        command = readme_test_command(clone / "README.md")
        if command[0] in ("python", "python3"):
            command[0] = str(python)
        command += ["--durations=0", "-p", "no:cacheprovider"]
        revision = subprocess.run(["git", "-C", str(clone), "rev-parse", "--short", "HEAD"],
                                  capture_output=True, text=True, check=True).stdout.strip()
        print(f"{shlex.join(command)}  (clone of {revision}, empty caches, "
              f"{os.cpu_count()} cores)", flush=True)
        started = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command, cwd=clone, env=env, capture_output=True, text=True,
                              check=False)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        compiled = [json.loads(line) for line in builds.read_text().splitlines()] \
            if builds.is_file() else []
    output = done.stdout + done.stderr
    if args.log:
        args.log.write_text(output)
        args.log.with_suffix(".builds.jsonl").write_text(
            "".join(json.dumps(build) + "\n" for build in compiled))
    top, total = slowest(output, 20)
    summary = next((line.strip("= ") for line in reversed(output.splitlines())
                    if " in " in line and ("passed" in line or "failed" in line)), "")
    print(f"\n{'seconds':>8}  {'share':>6}  test")
    for seconds, name in top:
        print(f"{seconds:8.1f}  {seconds / total:6.1%}  {name}")
    print_builds(compiled, cpu)
    print(f"\n{summary}")
    verdict = "within" if wall <= args.budget else "OVER"
    # The CPU time the run used (every process it started): on a machine shared with
    # other work the wall time grows, this hardly; the run needs at least cpu / cores.
    cores = os.cpu_count() or 1
    print(f"cpu time {cpu:.0f} s (user + system of every process; at least "
          f"{cpu / cores:.0f} s of wall time on {cores} idle cores)")
    print(f"wall time {int(wall // 60)} min {wall % 60:.0f} s ({wall:.0f} s; all tests' "
          f"time {total:.0f} s): {verdict} the budget of {args.budget:.0f} s")
    sys.exit(0 if done.returncode == 0 and wall <= args.budget else 1)


if __name__ == "__main__":
    main()
