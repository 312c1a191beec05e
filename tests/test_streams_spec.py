"""``streams:`` and ``control: free_running`` (issue 18): what a spec may say, the interface
it gives (stream args take no register; a free-running kernel has no control port), and
each refusal naming file:line and the key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from fpgakern.cli import main
from fpgakern.errors import SpecError
from fpgakern.interface import interface
from fpgakern.ladder import plan
from fpgakern.spec.library import Library

STREAM_PROJECT = Path(__file__).parent / "data" / "stream_project"

MM2S = """\
kernel: mover
doc: Memory to stream.
inputs: [mem]
outputs: [out]
dtypes: [float32]
streams: [out]
expression: mem
"""

FREE = """\
kernel: mover
doc: Free-running square.
inputs: [x]
outputs: [y]
dtypes: [float32, int32]
streams: [x, y]
control: free_running
expression: x * x
"""


def load(tmp_path: Path, text: str) -> Library:
    path = tmp_path / "kernel_specs" / "my_ops" / "mover.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return Library(tmp_path / "kernel_specs")


def refusal(tmp_path: Path, text: str) -> str:
    with pytest.raises(SpecError) as err:
        load(tmp_path, text).get("my_ops/mover")
    return str(err.value)


def test_a_stream_output_takes_no_register_and_builds_rung_2(tmp_path):
    kernel = load(tmp_path, MM2S).get("my_ops/mover")
    assert kernel.streams == ("out",) and not kernel.free_running
    assert kernel.rungs == (2,)
    face = interface(plan(kernel, 2, "float32"))
    assert [(a.name, a.kind, a.offset) for a in face.args] == [
        ("mem", "pointer", 0x10), ("out", "stream", 0), ("n", "scalar", 0x1C)]
    out = face.arg("out")
    assert (out.address_qualifier, out.size, out.host_size, out.port) == (4, 0, 8, "out")
    assert out.ctype == "stream<ap_axiu<32, 0, 0, 0> >&"
    assert [(p.name, p.mode, p.port_type) for p in face.ports] == [
        ("m_axi_gmem0", "master", "addressable"), ("out", "write_only", "stream"),
        ("s_axi_control", "slave", "addressable")]
    assert face.hw_control_protocol == "ap_ctrl_chain" and face.has_control


def test_a_free_running_kernel_has_no_control_port_and_no_size(tmp_path):
    kernel = load(tmp_path, FREE).get("my_ops/mover")
    assert kernel.free_running and kernel.size_args == ()
    face = interface(plan(kernel, 2, "int32"))
    assert face.hw_control_protocol == "ap_ctrl_none" and not face.has_control
    assert [(a.name, a.kind, a.direction) for a in face.args] == [
        ("x", "stream", "in"), ("y", "stream", "out")]
    assert [(p.name, p.mode) for p in face.ports] == [("x", "read_only"), ("y", "write_only")]


@pytest.mark.parametrize(("text", "line", "message"), [
    (MM2S.replace("streams: [out]", "streams: [outt]"), 6,
     "streams: 'outt' is not an input or output of the kernel (mem, out)"),
    (MM2S.replace("expression: mem", "expression: sum(mem)"), 6,
     "streams: only elementwise kernels have stream ports; mover is a reduction"),
    (MM2S.replace("float32", "complex64"), 6,
     "streams: out carries 64-bit elements for complex64; stream ports carry 32-bit"),
    (MM2S + "rungs: [2, 4]\n", 8,
     "rungs: a kernel with stream ports builds rung 2 (dataflow) only, got 2, 4"),
    (MM2S + "mirrors: torch.clone\n", 8, "mirrors: a kernel with stream ports runs only in"),
    (MM2S + "control: free_running\n", 8,
     "control: a free_running kernel has no control port, so every input and output"),
    (MM2S + "control: freerunning\n", 8,
     "control: expected chained, free_running, auto_restart, got 'freerunning'"),
    (FREE.replace("expression: x * x", "scalars: {a: 1}\nexpression: x * a"), 8,
     "scalars: a free_running kernel has no control port to take scalars"),
    ("kernel: mover\ndoc: An FFT.\ninputs: [x]\noutputs: [out]\ndtypes: [complex64]\n"
     "scalars: {scale: 1}\ntransform: fft\nstreams: [x]\n", 8,
     "streams: a transform kernel has no stream ports"),
])
def test_refusals_name_the_file_line_and_key(tmp_path, text, line, message):
    said = refusal(tmp_path, text)
    assert re.search(rf"mover\.yaml:{line}: ", said), said
    assert message in said, said


def test_the_cli_says_why_a_stream_kernel_has_no_rung_4(monkeypatch):
    monkeypatch.chdir(STREAM_PROJECT)
    result = CliRunner().invoke(main, ["build", "stream_ops/mm2s", "--opt", "4"])
    assert result.exit_code != 0
    assert ("stream_ops/mm2s does not build rung 4 (its rungs: 2; a kernel with stream "
            "ports builds the dataflow rung only)") in result.output


def test_fpgakern_list_shows_streams_and_free_running(monkeypatch):
    monkeypatch.chdir(STREAM_PROJECT)
    result = CliRunner().invoke(main, ["list"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "free-running, streams x, y" in result.output
    assert "streams out" in result.output
