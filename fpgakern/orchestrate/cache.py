"""The content-hash cache: task keys and the records that say a task's outputs are good.

A task's key hashes everything that decides its outputs: the step and its version,
fpgakern's version, the variant, the spec files, the step's key inputs (its code and data,
found from its imports: ``step.sources``; tool versions and flags: ``Step.fingerprint``)
and the keys of the tasks it comes after. After a task runs, its record
(``<variant>/.fpgakern/<step>.json``) stores the key and the sha256 of every output, and
is written last. A task is cached only when its record's key matches
and every output still has the recorded hash, so a build killed at any moment, or a
truncated or altered artifact, is rebuilt rather than trusted.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fpgakern import __version__
from fpgakern.ladder import Variant
from fpgakern.orchestrate.step import Step, StepOutcome
from fpgakern.util.files import sha256_file, sha256_text, write_text_atomic

RECORD_DIR = ".fpgakern"
RECORD_SCHEMA = 1


def task_key(
    step: Step,
    variant: Variant,
    spec_texts: dict[str, str],
    inputs: list[str],  # Step.key_inputs: code, data, tools, flags
    upstream_keys: list[str],
) -> str:
    specs = [f"{name}\n{text}" for name, text in sorted(spec_texts.items())]
    return sha256_text(
        f"schema={RECORD_SCHEMA}", __version__, step.name, str(step.version), variant.key,
        *specs, *inputs, *upstream_keys,
    )


@dataclass
class Record:
    key: str
    passed: bool
    detail: str
    files: dict[str, str]  # relative path -> sha256
    data: dict[str, Any]
    seconds: float

    def outcome(self) -> StepOutcome:
        return StepOutcome(self.passed, self.detail, list(self.files), dict(self.data),
                           self.seconds)


def record_path(variant_dir: Path, step: str) -> Path:
    return variant_dir / RECORD_DIR / f"{step}.json"


def load_record(variant_dir: Path, step: str) -> Record | None:
    path = record_path(variant_dir, step)
    try:
        raw = json.loads(path.read_text())
        return Record(**{k: raw[k] for k in Record.__dataclass_fields__})
    except (OSError, ValueError, KeyError, TypeError):
        return None  # missing or torn: the task simply runs again


def is_fresh(variant_dir: Path, step: str, key: str) -> Record | None:
    """The record when the task's outputs can be trusted as they are, else None."""
    record = load_record(variant_dir, step)
    if record is None or record.key != key or not record.passed:
        return None
    for name, digest in record.files.items():
        path = variant_dir / name
        if not path.is_file() or sha256_file(path) != digest:
            return None
    return record


def write_outputs(variant_dir: Path, files: dict[str, bytes]) -> None:
    """Move a task's outputs into the build tree, each by an atomic rename."""
    from fpgakern.util.files import write_bytes_atomic

    for name, data in files.items():
        target = variant_dir / name
        if target.is_file() and target.stat().st_size == len(data) \
                and target.read_bytes() == data:
            continue  # unchanged: keep the file (and its timestamp) as it is
        write_bytes_atomic(target, data)


def commit(variant_dir: Path, step: str, key: str, outcome: StepOutcome) -> Record:
    """Write the task's record, after its outputs: the point where it counts as done."""
    files = {name: sha256_file(variant_dir / name) for name in outcome.files}
    record = Record(key, outcome.passed, outcome.detail, files, outcome.data,
                    round(outcome.seconds, 3))
    write_text_atomic(record_path(variant_dir, step), json.dumps(asdict(record), indent=1))
    return record
