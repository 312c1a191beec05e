"""Spec loading and validation: good specs load, each kind of bad spec names file:line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fpgakern.errors import SpecError
from fpgakern.ladder import DEFAULT_RUNGS
from fpgakern.spec.library import Library

GOOD = """\
kernel: add
doc: Elementwise sum with scaling.
mirrors: torch.add
inputs: [a, b]
scalars:
  alpha: 1
outputs: [out]
dtypes: [float32, int32]
expression: a + alpha * b
"""


def load(tmp_path: Path, text: str, name: str = "add") -> Library:
    path = tmp_path / "kernel_specs" / "binary_ops" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return Library(tmp_path / "kernel_specs")


def test_good_spec_loads(tmp_path):
    kernel = load(tmp_path, GOOD).get("binary_ops/add")
    assert kernel.inputs == ("a", "b")
    assert kernel.scalars[0].name == "alpha" and kernel.scalars[0].default == 1
    assert kernel.dtypes == ("float32", "int32")
    assert kernel.rungs == DEFAULT_RUNGS
    assert kernel.compute_units == 4
    assert kernel.top_name("float32") == "add_f32"


def test_category_defaults_apply_and_spec_overrides(tmp_path, write_spec):
    write_spec(tmp_path, "unary_ops/_category.yaml",
               "doc: One-input ops.\ndefaults:\n  inputs: [x]\n  outputs: [out]\n"
               "  dtypes: [float32]\n  rungs: [0, 2]\n")
    write_spec(tmp_path, "unary_ops/neg.yaml",
               "kernel: neg\ndoc: Negation.\ndtypes: [float32, int32]\nexpression: -x\n")
    library = Library(tmp_path / "kernel_specs")
    kernel = library.get("unary_ops/neg")
    assert kernel.inputs == ("x",)
    assert kernel.dtypes == ("float32", "int32")
    assert kernel.rungs == (0, 2)
    assert library.categories["unary_ops"].doc == "One-input ops."


def test_starter_library_is_complete(library):
    names = {k.qualname for k in library.kernels}
    expected = {f"binary_ops/{n}" for n in ("add", "sub", "mul", "div", "maximum", "minimum")}
    expected |= {f"unary_ops/{n}" for n in ("neg", "abs", "relu", "sqrt", "exp", "sigmoid")}
    expected |= {"reduce_ops/sum", "reduce_ops/max"}
    assert expected <= names


# Each bad spec: (what changes, the expected line, the expected key, a message fragment).
BAD = [
    ("dtypes: [float32, int32]", "dtypes: [float32, float33]", 8, "dtypes",
     "unknown dtype 'float33' (known: float32, int32, complex64)"),
    ("dtypes: [float32, int32]", "dtypes: []", 8, "dtypes", "non-empty list"),
    ("dtypes: [float32, int32]", "dtypes: [float32, float32]", 8, "dtypes", "listed twice"),
    ("expression: a + alpha * b", "expresion: a + alpha * b", 9, "expresion",
     "unknown key (did you mean 'expression'?)"),
    ("expression: a + alpha * b\n", "", 1, "expression", "missing required key"),
    ("kernel: add", "kernel: ad", 1, "kernel", "must match the file name"),
    ("kernel: add", "kernel: Add", 1, "kernel", "not a valid name"),
    ("inputs: [a, b]", "inputs: [a, int]", 4, "inputs", "reserved"),
    ("inputs: [a, b]", "inputs: [a, ap_start]", 4, "inputs", "reserved"),
    ("inputs: [a, b]", "inputs: [a, 'b-c']", 4, "inputs", "not a valid name"),
    ("inputs: [a, b]", "inputs: [a, a]", 4, "inputs", "listed twice"),
    ("inputs: [a, b]", "inputs: []", 4, "inputs", "non-empty list"),
    ("outputs: [out]", "outputs: [out, out2]", 7, "outputs", "exactly one output"),
    ("outputs: [out]", "outputs: [a]", 7, "outputs", "already declared"),
    ("  alpha: 1", "  alpha: two", 6, "scalars.alpha", "must be a number"),
    ("expression: a + alpha * b", "expression: a + alpha * c", 9, "expression",
     "unknown name 'c'"),
    ("expression: a + alpha * b", "expression: a + alpha *", 9, "expression", "cannot parse"),
    ("expression: a + alpha * b", "expression: a + alpha * b + sqrt(a)", 9, "expression",
     "op sqrt is not defined for int32"),
    ("expression: a + alpha * b", "expression: a + alpha * b + 1.5", 9, "expression",
     "float literal 1.5 in int32"),
    ("expression: a + alpha * b", "expression: a + b", 9, "expression",
     "'alpha' is declared but not used"),
    ("expression: a + alpha * b", "expression: a + sum(b) * alpha", 9, "expression",
     "may only stand at the root"),
    ("expression: a + alpha * b", "expression: a + alpha * b\nrungs: [0, 7]", 10, "rungs",
     "unknown rung 7"),
    ("expression: a + alpha * b", "expression: a + alpha * b\ncompute_units: 0", 10,
     "compute_units", "expected an integer 1-16"),
    ("doc: Elementwise sum with scaling.", "doc: ''", 2, "doc", "non-empty one-line"),
    ("mirrors: torch.add", "mirrors: torch add!", 3, "mirrors", "dotted operator name"),
    ("expression: a + alpha * b", "expression: a + alpha * b\nexpression: a", 10,
     "expression", "duplicate key"),
    ("expression: a + alpha * b", "expression: frobnicate(a, b) + alpha", 9, "expression",
     "unknown op frobnicate()"),
    ("expression: a + alpha * b", "expression: maximum(a) + alpha * b", 9, "expression",
     "takes 2 operand(s), got 1"),
    ("expression: a + alpha * b", "expression: a + alpha * b[0]", 9, "expression",
     "unsupported syntax"),
]


@pytest.mark.parametrize(("old", "new", "line", "key", "fragment"), BAD,
                         ids=[f"{b[3]}-{i}" for i, b in enumerate(BAD)])
def test_bad_spec_names_file_line_and_key(tmp_path, old, new, line, key, fragment):
    assert old in GOOD
    with pytest.raises(SpecError) as info:
        load(tmp_path, GOOD.replace(old, new, 1))
    message = str(info.value)
    assert re.match(rf"^.*kernel_specs/binary_ops/add\.yaml:{line}: {re.escape(key)}: ", message)
    assert fragment in message
    assert "\n" not in message


def test_yaml_syntax_error_is_located(tmp_path):
    with pytest.raises(SpecError) as info:
        load(tmp_path, GOOD.replace("inputs: [a, b]", "inputs: [a, b"))
    assert re.search(r"add\.yaml:\d+: invalid YAML", str(info.value))


def test_spec_must_be_a_mapping(tmp_path):
    with pytest.raises(SpecError, match=r"add\.yaml:1: a kernel spec must be a mapping"):
        load(tmp_path, "- just\n- a list\n")


def test_category_default_error_names_the_category_file(tmp_path, write_spec):
    write_spec(tmp_path, "unary_ops/_category.yaml",
               "doc: d\ndefaults:\n  inputs: [x]\n  outputs: [out]\n  dtypes: [float64]\n")
    write_spec(tmp_path, "unary_ops/neg.yaml", "kernel: neg\ndoc: Negation.\nexpression: -x\n")
    with pytest.raises(SpecError, match=r"_category\.yaml:5: dtypes: unknown dtype 'float64'"):
        Library(tmp_path / "kernel_specs")


def test_unknown_kernel_lists_known_ones(library):
    from fpgakern.errors import UsageError

    with pytest.raises(UsageError, match=r"unknown kernel 'binary_ops/nope' \(known: .*add"):
        library.get("binary_ops/nope")


def test_glob_selection(library):
    chosen = library.select(["unary_ops/s*"])
    assert {k.name for k in chosen} == {"sqrt", "sigmoid", "sign", "softsign", "square", "sin"}


# --- top: the hardware top's name (issue 18) --------------------------------------------

VADD = """\
kernel: vadd
doc: Vector add, as AMD's hello-world host expects it.
inputs: [in1, in2]
outputs: [out]
dtypes: [int32]
top: vadd
expression: in1 + in2
"""


def test_top_names_the_hardware_top(tmp_path):
    kernel = load(tmp_path, VADD, "vadd").get("binary_ops/vadd")
    assert kernel.top_name("int32") == "vadd"
    assert kernel.top_names == ("vadd",)


def test_top_mapping_names_some_dtypes_and_the_others_keep_their_tags(tmp_path):
    text = GOOD.replace("expression: a + alpha * b",
                        "expression: a + alpha * b\ntop: {float32: vadd_flt}")
    kernel = load(tmp_path, text).get("binary_ops/add")
    assert kernel.top_name("float32") == "vadd_flt"
    assert kernel.top_name("int32") == "add_i32"
    both = GOOD.replace("expression: a + alpha * b",
                        "expression: a + alpha * b\ntop:\n  float32: vadd\n  int32: vadd_int")
    assert load(tmp_path, both).get("binary_ops/add").top_names == ("vadd", "vadd_int")


def test_a_kernel_without_top_keeps_its_dtype_tags(library):
    assert library.get("binary_ops/add").top_names == ("add_f32", "add_i32", "add_c64")


BAD_TOPS = [  # (the top: line, its line number, a message fragment)
    ("top: vadd", 10, "one name for 2 dtypes: name each dtype's top with a mapping"),
    ("top: {float64: vadd}", 10, "'float64' is not one of the kernel's dtypes"),
    ("top:\n  float32: vadd\n  complex64: vc", 12, "'complex64' is not one of the kernel's"),
    ("top: [vadd]", 10, "expected a name (top: vadd) or a mapping dtype: name"),
    ("top: {float32: Vadd}", 10, "'Vadd' is not a valid name"),
    ("top: {float32: exp}", 10, "'exp' is a C/C++ library function"),
    ("top: {float32: sqrtf}", 10, "'sqrtf' is a C/C++ library function"),
    ("top: {float32: memcpy}", 10, "'memcpy' is a C/C++ library function"),
    ("top: {float32: main}", 10, "reserved"),
    ("top: {float32: module}", 10, "reserved"),  # an SV keyword: the top is the RTL module
    ("top: {float32: ap_vadd}", 10, "reserved"),
    ("top: {float32: alpha}", 10, "'alpha' is already an argument's or let's name"),
    ("top: {float32: add_i32}", 10, "'add_i32' is also the int32 variant's top"),
    ("top:\n  float32: vadd\n  int32: vadd", 11, "'vadd' is also the int32 variant's top"),
]


@pytest.mark.parametrize(("line_text", "line", "fragment"), BAD_TOPS,
                         ids=[f"top-{i}" for i in range(len(BAD_TOPS))])
def test_bad_top_names_file_line_and_key(tmp_path, line_text, line, fragment):
    text = GOOD.replace("expression: a + alpha * b", f"expression: a + alpha * b\n{line_text}")
    with pytest.raises(SpecError) as info:
        load(tmp_path, text)
    message = str(info.value)
    assert re.match(rf"^.*kernel_specs/binary_ops/add\.yaml:{line}: top: ", message), message
    assert fragment in message
    assert "\n" not in message


def test_top_is_no_category_default(tmp_path, write_spec):
    write_spec(tmp_path, "my_ops/_category.yaml", "doc: d\ndefaults:\n  top: vadd\n")
    write_spec(tmp_path, "my_ops/neg.yaml", "kernel: neg\ndoc: N.\ninputs: [x]\n"
               "outputs: [out]\ndtypes: [int32]\nexpression: -x\n")
    with pytest.raises(SpecError, match=r"_category\.yaml:3: defaults: 'top' cannot be a "
                                        "category default"):
        Library(tmp_path / "kernel_specs")


def test_a_transform_kernel_takes_a_top(tmp_path, write_spec):
    write_spec(tmp_path, "my_ops/myfft.yaml", "kernel: myfft\ndoc: F.\ninputs: [x]\n"
               "outputs: [out]\ndtypes: [complex64]\ntransform: fft\ntop: fft_rows\n")
    kernel = Library(tmp_path / "kernel_specs").get("my_ops/myfft")
    assert kernel.top_name("complex64") == "fft_rows"


def test_two_kernels_of_one_top_are_an_error_at_library_load(tmp_path, write_spec):
    from fpgakern.errors import UsageError

    write_spec(tmp_path, "my_ops/vadd.yaml", VADD)
    write_spec(tmp_path, "your_ops/plus.yaml", VADD.replace("kernel: vadd", "kernel: plus"))
    with pytest.raises(UsageError, match=r"your_ops/plus\.yaml: top: 'vadd' \(the int32 "
                                         r"variant's hardware top\) is also my_ops/vadd's"):
        Library(tmp_path / "kernel_specs")
    # a top that is another kernel's default top clashes too
    write_spec(tmp_path, "your_ops/plus.yaml",
               VADD.replace("kernel: vadd", "kernel: plus").replace("top: vadd", "top: zz_i32"))
    write_spec(tmp_path, "your_ops/zz.yaml", VADD.replace("kernel: vadd", "kernel: zz")
               .replace("top: vadd\n", ""))
    with pytest.raises(UsageError, match=r"top: 'zz_i32' .* is also your_ops/"):
        Library(tmp_path / "kernel_specs")


@pytest.mark.parametrize(("top", "message"), [
    ("add_i32", r"top: 'add_i32' .* is also fpgakern's bundled binary_ops/add's"),
    ("relu", r"top: 'relu' .* is the name of kernel unary_ops/relu"),
])
def test_a_project_top_may_not_be_a_bundled_kernels_top_or_name(tmp_path, write_spec, top,
                                                                 message):
    from fpgakern import paths
    from fpgakern.errors import UsageError

    write_spec(tmp_path, "my_ops/plus.yaml",
               VADD.replace("kernel: vadd", "kernel: plus").replace("top: vadd", f"top: {top}"))
    with pytest.raises(UsageError, match=message):
        Library(tmp_path / "kernel_specs", bundled=paths.library_dir())


def test_c_library_names_are_one_reasoned_list():
    from fpgakern.spec import names

    for name in ("exp", "sqrt", "abs", "sin", "log", "pow", "fma", "max", "min", "div",
                 "printf", "main", "malloc", "free", "memcpy", "exit", "expf", "logl"):
        assert names.library_symbol(name), name
    for name in ("vadd", "krnl_vadd", "mmult", "vector_add", "poolf"):
        assert not names.library_symbol(name), name


