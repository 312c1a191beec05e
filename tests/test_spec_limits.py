"""The spec loader's limits sit exactly where docs/spec-format.md says, and no input at
all makes loading raise anything but a one-line SpecError/UsageError (issue 11).

tests/test_malformed_specs.py runs the corpus of bad specs through the CLI; this module
checks the boundaries (the limit itself passes, one more fails) and fuzzes the loader.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fpgakern.errors import FpgakernError, SpecError
from fpgakern.ir import expr
from fpgakern.spec import schema, yamlpos
from fpgakern.spec.library import Library

CATEGORY = ("doc: My own kernels.\ndefaults:\n  inputs: [x, y]\n  outputs: [out]\n"
            "  dtypes: [float32, int32]\n")
GOOD = ("kernel: axpy\ndoc: Scaled sum, out = alpha * x + y.\nmirrors: torch.add\n"
        "scalars:\n  alpha: 2\nexpression: alpha * x + y\n")


def _library(root: Path, spec: str | bytes, category: str = CATEGORY) -> Library:
    folder = root / "kernel_specs" / "my_ops"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "_category.yaml").write_text(category)
    path = folder / "axpy.yaml"
    if isinstance(spec, bytes):
        path.write_bytes(spec)
    else:
        path.write_text(spec)
    return Library(root / "kernel_specs")


def _yaml(tmp_path: Path, text: str) -> yamlpos.Located:
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    return yamlpos.load(path)


def test_file_size_limit_is_exact(tmp_path):
    pad = yamlpos.MAX_FILE_BYTES - len(GOOD) - 1  # a comment line of '#' and its newline
    _library(tmp_path, GOOD + "#" * pad + "\n")
    with pytest.raises(SpecError, match=r"axpy\.yaml: file is too large \(1048577 bytes"):
        _library(tmp_path, GOOD + "#" * (pad + 1) + "\n")


def test_node_limit_is_exact(tmp_path):
    items = yamlpos.MAX_NODES - 1  # the list itself is a value too
    assert len(_yaml(tmp_path, "[" + "0, " * (items - 1) + "0]").value) == items
    with pytest.raises(SpecError, match=r"doc\.yaml:1: too many YAML values"):
        _yaml(tmp_path, "[" + "0, " * items + "0]")


def test_yaml_depth_limit_is_exact(tmp_path):
    deepest = yamlpos.MAX_DEPTH
    _yaml(tmp_path, "[" * deepest + "]" * deepest)
    with pytest.raises(SpecError, match=r"nested too deeply \(more than 16 levels\)"):
        _yaml(tmp_path, "[" * (deepest + 1) + "]" * (deepest + 1))


def test_number_length_limit_is_exact(tmp_path):
    longest = "1" + "0" * (yamlpos.MAX_NUMBER_CHARS - 1)
    assert _yaml(tmp_path, f"v: {longest}").value == {"v": int(longest)}
    with pytest.raises(SpecError, match=r"doc\.yaml:1: v: number is 101 characters long"):
        _yaml(tmp_path, f"v: {longest}0")


def test_expression_length_limit_is_exact():
    dtypes = {"x": "float32"}
    longest = "x +" + " " * (expr.MAX_CHARS - 4) + "1"
    assert len(longest) == expr.MAX_CHARS
    expr.parse(longest, dtypes, {})
    with pytest.raises(expr.ExprError, match=r"is 1001 characters long \(at most 1000\)"):
        expr.parse(longest + "0", dtypes, {})


def test_expression_depth_limit_is_exact():
    dtypes = {"x": "float32"}
    expr.parse("-" * (expr.MAX_DEPTH - 1) + "x", dtypes, {})  # the name is a level too
    with pytest.raises(expr.ExprError, match="nested too deeply"):
        expr.parse("-" * expr.MAX_DEPTH + "x", dtypes, {})


@pytest.mark.parametrize(("default", "dtypes"), [
    (-(2**31), "[int32]"), (2**31 - 1, "[float32, int32]"), (3.4028234e38, "[float32]"),
    (-3.4028234e38, "[float32]"), (0.5, "[float32]"), (-7, "[float32, int32]"),
])
def test_extreme_valid_scalar_defaults_load(tmp_path, default, dtypes):
    spec = GOOD.replace("alpha: 2", f"alpha: {default!r}") + f"dtypes: {dtypes}\n"
    kernel = _library(tmp_path, spec).kernels[0]
    assert kernel.scalars[0].default == default


@pytest.mark.parametrize("literal", ["2147483647", "-2147483648", "2.0"])
def test_extreme_valid_int32_literals_parse(literal):
    expr.parse(f"x + {literal}", {"x": "int32"}, {})


def test_unprintable_file_name_stays_one_line(tmp_path):
    folder = tmp_path / "kernel_specs" / "my_ops"
    folder.mkdir(parents=True)
    (folder / "a\x1b[2J\nb.yaml").write_text(GOOD)
    with pytest.raises(SpecError) as info:
        Library(tmp_path / "kernel_specs")
    assert str(info.value).isprintable()
    assert "a\\x1b[2J\\nb.yaml" in str(info.value)


def test_category_doc_limits_apply(tmp_path):
    with pytest.raises(SpecError, match=r"_category\.yaml:1: doc: is 201 characters long"):
        _library(tmp_path, GOOD, CATEGORY.replace("My own kernels.", "d" * 201))


def test_category_folder_names_are_checked(tmp_path):
    folder = tmp_path / "kernel_specs" / "namespace"
    folder.mkdir(parents=True)
    (folder / "axpy.yaml").write_text(GOOD + "inputs: [x, y]\noutputs: [out]\ndtypes: [int32]\n")
    with pytest.raises(SpecError, match="category folder 'namespace' is a reserved name"):
        Library(tmp_path / "kernel_specs")


def test_all_limits_are_documented():
    docs = (Path(__file__).parents[1] / "docs" / "spec-format.md").read_text()
    for name in ("MAX_FILE_BYTES", "MAX_NODES", "MAX_DEPTH", "MAX_NUMBER_CHARS",
                 "MAX_DOC_CHARS", "MAX_MIRRORS_CHARS", "MAX_CHARS"):
        assert name in docs
    for value in ("1 MiB", str(yamlpos.MAX_NODES), f"{yamlpos.MAX_DEPTH} deep",
                  f"{yamlpos.MAX_NUMBER_CHARS} characters", f"{schema.MAX_DOC_CHARS} characters",
                  f"{expr.MAX_CHARS} characters", f"{expr.MAX_DEPTH} deep"):
        assert value in docs, value


# Fragments that matter to some layer: YAML syntax, escapes, numbers, names, expressions.
SNIPPETS = [
    "&a", "*a", "!!str", "!foo", "[", "]", "{", "}", ": ", "- ", "\n", "  ", "'", '"', "\\",
    "#", "? ", "%YAML 1.1\n", "|\n  ", ">-\n  ", ".nan", ".inf", "1e999", "9" * 120,
    "0x" + "f" * 40, "~", "null", "2001-13-45", "1:2:3", "<<", "---\n", "\x00", "\x1b",
    "\u202e", "\t", "\r", "sum(", "x[0]", "__import__", "lambda", "2147483648", "-", "1.5",
    "((((", "))))", "maximum(x, y)", "to_int32(", "inputs: [x]", "dtypes: [int32]",
    "rungs: [9]", "\ufeff", "\xe9", "ａ",
]


@st.composite
def _mutations(draw: st.DrawFn) -> tuple[bool, str]:
    in_category = draw(st.booleans())
    text = CATEGORY if in_category else GOOD
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            piece = draw(st.sampled_from(SNIPPETS) | st.text(max_size=8))
            text = text[:at] + piece + text[at:]
        else:
            text = text[:at] + text[at + draw(st.integers(1, 12)):]
    return in_category, text


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_mutations())
def test_fuzzed_specs_load_or_fail_in_one_line(tmp_path, mutation):
    in_category, text = mutation
    data = text.encode("utf-8", "surrogatepass")
    try:
        if in_category:
            library = _library(tmp_path, GOOD, "")
            (tmp_path / "kernel_specs/my_ops/_category.yaml").write_bytes(data)
            library = Library(tmp_path / "kernel_specs")
        else:
            library = _library(tmp_path, data)
        for kernel in library.kernels:
            for dtype in kernel.dtypes:
                kernel.graph(dtype)
    except FpgakernError as err:
        message = str(err)
        assert message.isprintable() and len(message) < 600, message
