"""Reproducible artifacts with honest dates: SOURCE_DATE_EPOCH when set, else fpgakern's
release date; never 0 (``file`` said every .xclbin was made in 1970), and two builds of
the same inputs are byte-identical."""

from __future__ import annotations

import calendar
import io
import shutil
import subprocess
import time
import zipfile

import pytest
from click.testing import CliRunner

from fpgakern.cli import main
from fpgakern.link import axlf, repro
from fpgakern.link.inspect import inspect_bytes

SDE = 1_700_000_000  # 2023-11-14T22:13:20Z


def cli(*args: str, env: dict[str, str | None] | None = None):
    result = CliRunner().invoke(main, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    return result


@pytest.fixture(autouse=True)
def _no_sde(monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)


def test_release_epoch_is_the_release_date():
    release = calendar.timegm(time.strptime(repro.RELEASE_DATE, "%Y-%m-%d"))
    assert release == repro.RELEASE_EPOCH
    assert time.gmtime(repro.RELEASE_EPOCH).tm_year >= 2026


def test_build_time_rules(monkeypatch):
    assert repro.build_time() == repro.RELEASE_EPOCH
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(SDE))
    assert repro.build_time() == SDE
    assert repro.build_time("42") == 42  # an explicit --timestamp wins
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")  # a valid value, not "unset"
    assert repro.build_time() == 0
    assert repro.zip_date_time() == (1980, 1, 1, 0, 0, 0)  # clamped to the zip era


def _link(tmp_path, folder: str, env: dict[str, str | None] | None = None) -> bytes:
    out = tmp_path / folder / "lib.xclbin"  # one name: the project name is in the bytes
    out.parent.mkdir()
    result = cli("link", "binary_ops/add@opt2", "unary_ops/exp", "-p", "u250", "-o", str(out),
                 "--build-dir", str(tmp_path / "tree"), env=env)
    assert result.exit_code == 0, result.output
    return out.read_bytes()


def test_xclbin_stamp_is_the_release_not_1970_and_reproducible(tmp_path):
    one, two = _link(tmp_path, "a"), _link(tmp_path, "b")
    assert one == two
    assert axlf.read(one).header["m_timeStamp"] == repro.RELEASE_EPOCH
    assert inspect_bytes(one)["generated_by"]["time_stamp"] == "2026-11-24-00:00:00"
    if shutil.which("file"):  # the report that showed 1970
        described = subprocess.run(["file", str(tmp_path / "a" / "lib.xclbin")],
                                   capture_output=True,
                                   text=True).stdout
        if "xclbin" in described:
            assert "1970" not in described and "2026" in described, described


def test_xclbin_honours_source_date_epoch(tmp_path):
    data = _link(tmp_path, "a", env={"SOURCE_DATE_EPOCH": str(SDE)})
    assert axlf.read(data).header["m_timeStamp"] == SDE
    assert inspect_bytes(data)["generated_by"]["time_stamp"] == "2023-11-14-22:13:20"
    assert data != _link(tmp_path, "b")  # the date is in the bytes


def _xo(tree, env: dict[str, str | None] | None = None) -> bytes:
    result = cli("build", "binary_ops/add", "--opt", "2", "--dtype", "float32", "--until",
                 "xo", "--out", str(tree), env=env)
    assert result.exit_code == 0, result.output
    return (tree / "binary_ops" / "add" / "opt2" / "float32" / "add_f32.xo").read_bytes()


def _dates(data: bytes) -> set[tuple[int, ...]]:
    return {info.date_time for info in zipfile.ZipFile(io.BytesIO(data)).infolist()}


def test_xo_from_two_builds_is_byte_identical_and_dated(tmp_path):
    one, two = _xo(tmp_path / "one"), _xo(tmp_path / "two")
    assert one == two
    assert _dates(one) == {(2026, 11, 24, 0, 0, 0)}  # the release, not 1980-01-01
    stamped = _xo(tmp_path / "three", env={"SOURCE_DATE_EPOCH": str(SDE)})
    assert _dates(stamped) == {(2023, 11, 14, 22, 13, 20)}
