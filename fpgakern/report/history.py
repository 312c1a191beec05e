"""Build history in SQLite, and the regressions a build shows against the previous one.

Each build's tasks are stored with their figures; the nightly report compares the newest
run with the one before: a task that newly fails, a throughput (elements per cycle) that
drops, or a resource estimate that grows beyond a tolerance.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HISTORY = "history.sqlite"
THROUGHPUT_TOLERANCE = 0.02  # a 2 % drop in elements/cycle is a regression
RESOURCE_TOLERANCE = 0.05  # 5 % more LUT/FF/DSP/BRAM is a regression
RESOURCE_KEYS = ("lut", "ff", "dsp", "bram")

_SCHEMA = """
create table if not exists runs (
    id integer primary key autoincrement,
    started text not null,
    command text not null,
    passed integer not null
);
create table if not exists tasks (
    run integer not null references runs(id),
    kernel text not null, rung integer not null, dtype text not null, step text not null,
    status text not null, detail text, seconds real, data text,
    primary key (run, kernel, rung, dtype, step)
);
"""


@dataclass(frozen=True)
class Regression:
    kind: str  # "new failure", "throughput", "resources"
    what: str  # kernel opt<N> dtype step
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.what}: {self.detail}"


def connect(root: Path) -> sqlite3.Connection:
    root.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(root / HISTORY)
    db.executescript(_SCHEMA)
    return db


def record(root: Path, results: dict[str, Any]) -> int:
    """Store one build's ``run_results`` data; returns the run id."""
    with connect(root) as db:
        cursor = db.execute("insert into runs (started, command, passed) values (?, ?, ?)",
                            (results["generated_at"], results["command"],
                             int(results["passed"])))
        run = int(cursor.lastrowid or 0)
        db.executemany(
            "insert into tasks values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(run, v["kernel"], v["rung"], v["dtype"], t["step"], t["status"], t["detail"],
              t["seconds"], json.dumps(t["data"]))
             for v in results["variants"] for t in v["tasks"]],
        )
    return run


def _tasks(db: sqlite3.Connection, run: int) -> dict[tuple[str, int, str, str], dict[str, Any]]:
    rows = db.execute("select kernel, rung, dtype, step, status, data from tasks where run = ?",
                      (run,))
    return {(k, r, d, s): {"status": st, "data": json.loads(data or "{}")}
            for k, r, d, s, st, data in rows}


def regressions(root: Path, run: int) -> list[Regression]:
    """What got worse in ``run`` compared with the run before it (tasks both ran)."""
    with connect(root) as db:
        previous = db.execute("select max(id) from runs where id < ?", (run,)).fetchone()[0]
        if previous is None:
            return []
        now, before = _tasks(db, run), _tasks(db, previous)
    found: list[Regression] = []
    good = {"passed", "cached"}
    for key, task in sorted(now.items()):
        old = before.get(key)
        if old is None:
            continue
        what = f"{key[0]} opt{key[1]} {key[2]} {key[3]}"
        if task["status"] == "failed" and old["status"] in good:
            found.append(Regression("new failure", what, "passed in the previous run"))
        rate, old_rate = (task["data"].get("elements_per_cycle"),
                          old["data"].get("elements_per_cycle"))
        if rate is not None and old_rate and rate < old_rate * (1 - THROUGHPUT_TOLERANCE):
            found.append(Regression("throughput", what,
                                    f"{old_rate:.3f} -> {rate:.3f} elements/cycle"))
        for resource in RESOURCE_KEYS:
            new_value = task["data"].get("resources", {}).get(resource)
            old_value = old["data"].get("resources", {}).get(resource)
            if new_value is not None and old_value and \
                    new_value > old_value * (1 + RESOURCE_TOLERANCE):
                found.append(Regression("resources", what,
                                        f"{resource} {old_value} -> {new_value}"))
    return found
