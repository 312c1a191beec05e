"""``args:``, a kernel's C argument order as its spec declares it (issue 29, item 7):
AMD's examples put the output first (``vector_add(c, a, b, n)``) or the size before a
stream (``mem_read(mem, size, stream)``). The interface's ids and registers follow it;
every argument must be listed once; shaped and transform kernels keep their order."""

from __future__ import annotations

from pathlib import Path

import pytest

from fpgakern.errors import SpecError
from fpgakern.interface import interface
from fpgakern.ladder import plan
from fpgakern.spec.library import Library

EXAMPLES = Path(__file__).parent / "data" / "xrt_examples_project" / "kernel_specs"


def load(tmp_path: Path, text: str) -> Library:
    path = tmp_path / "kernel_specs" / "my_ops" / "mine.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return Library(tmp_path / "kernel_specs")


def layout(qualname: str, rung: int, dtype: str = "int32") -> list[tuple[str, int, int]]:
    kernel = Library(EXAMPLES).get(qualname)
    return [(a.name, a.id, a.offset) for a in interface(plan(kernel, rung, dtype)).args]


def test_the_output_first():
    assert layout("xrt_examples/vector_add", 4) == [("out", 0, 0x10), ("a", 1, 0x1C),
                                                     ("b", 2, 0x28), ("n", 3, 0x34)]


def test_the_size_before_a_stream():
    """mem_read(mem, size, stream): the stream takes no register, wherever it stands."""
    assert layout("xrt_examples/mem_read", 2) == [("mem", 0, 0x10), ("n", 1, 0x1C),
                                                   ("stream", 2, 0)]


def test_the_default_order_is_inputs_output_scalars_n(tmp_path):
    text = ("kernel: mine\ndoc: d.\ninputs: [x]\noutputs: [y]\nscalars: {alpha: 1}\n"
            "dtypes: [float32]\nexpression: alpha * x\n")
    kernel = load(tmp_path, text).get("my_ops/mine")
    assert kernel.arguments == ("x", "y", "alpha", "n")
    again = load(tmp_path, text + "args: [alpha, y, n, x]\n").get("my_ops/mine")
    face = interface(plan(again, 4, "float32"))
    assert [(a.name, a.offset) for a in face.args] == [("alpha", 0x10), ("y", 0x18),
                                                        ("n", 0x24), ("x", 0x2C)]


BASE = ("kernel: mine\ndoc: d.\ninputs: [a, b]\noutputs: [c0]\ndtypes: [int32]\n"
        "expression: a + b\n")


@pytest.mark.parametrize("args, message", [
    ("[c0, a, b]", "every argument must be listed once; missing n"),
    ("[c0, a, b, n, a]", "'a' is listed twice"),
    ("[c0, a, b, size]", "'size' is not an argument of the kernel (a, b, c0, n)"),
    ("c0", "expected a non-empty list of names"),
])
def test_refusals_name_the_file_line_and_key(tmp_path, args, message):
    with pytest.raises(SpecError) as err:
        load(tmp_path, BASE + f"args: {args}\n").get("my_ops/mine")
    assert "mine.yaml:7: args" in str(err.value) and message in str(err.value)


def test_shaped_kernels_keep_their_order(tmp_path):
    text = ("kernel: mine\ndoc: d.\ninputs: [x, bias]\noutputs: [y]\ndtypes: [float32]\n"
            "shapes:\n  x: (N, C, *)\n  bias: (C)\nexpression: x + bias\nargs: [y, x, bias]\n")
    with pytest.raises(SpecError, match="only elementwise, reduction and register kernels"):
        load(tmp_path, text).get("my_ops/mine")


def test_stream_only_names(tmp_path):
    """input, output and stream (AMD's stream kernels' names) may name a stream argument,
    never a pointer."""
    kernel = Library(EXAMPLES).get("xrt_examples/increment")
    assert kernel.inputs == ("input",) and kernel.outputs == ("output",)
    text = ("kernel: mine\ndoc: d.\ninputs: [input]\noutputs: [y]\ndtypes: [int32]\n"
            "expression: input + 1\n")
    with pytest.raises(SpecError, match=r"mine.yaml:3: inputs.*may name a stream argument"):
        load(tmp_path, text).get("my_ops/mine")
