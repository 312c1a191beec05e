"""The kernel spec schema, as data, and its validation into :class:`Kernel`.

``FIELDS`` is the single description of the format: validation reads it, and
``docs/spec-format.md`` documents the same table.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from fpgakern.errors import SpecError, shown
from fpgakern.ir import contraction, expr, fft, shapes
from fpgakern.ir.dtypes import DTYPES, RESULT_DTYPES
from fpgakern.ir.kernel import ACC, Kernel, ScalarArg, default_top_name, parse_graph
from fpgakern.ir.ops import Accuracy
from fpgakern.ladder import DEFAULT_RUNGS, LAST_RUNG
from fpgakern.spec.names import (
    IDENTIFIER,
    RESERVED,
    RESERVED_PREFIXES,
    STREAM_ONLY_NAMES,
    check_identifier,
    library_symbol,
)
from fpgakern.spec.yamlpos import Located

MAX_COMPUTE_UNITS = 16


@dataclass(frozen=True)
class Field:
    """One key of a kernel spec."""

    name: str
    kind: str  # for messages and docs: "string", "list of names", ...
    doc: str
    required: bool = False
    category_default: bool = True  # may come from the category's _category.yaml


# The spec's ``control``: chained (ap_ctrl_chain, started by the host), free_running, or
# auto_restart (a register kernel, fpgakern.spec.registers).
CONTROLS = ("chained", "free_running", "auto_restart")
# The rung stream kernels build: dataflow, the one whose engines are joined by streams.
STREAM_RUNG = 2

FIELDS: dict[str, Field] = {
    f.name: f
    for f in (
        Field("kernel", "name", "kernel name; must equal the file name", required=True,
              category_default=False),
        Field("doc", "string", "one-line description", required=True, category_default=False),
        Field("mirrors", "string", "the framework operator it mirrors, e.g. torch.add"),
        Field("inputs", "list of names", "tensor inputs, in argument order", required=True),
        Field("scalars", "mapping name: default", "scalar arguments with their defaults"),
        Field("outputs", "list of one name", "the tensor output", required=True),
        Field("dtypes", "list of dtypes", f"element types ({', '.join(DTYPES)})", required=True),
        Field("expression", "expression", "what each output element is (every kernel but a "
              "transform)", category_default=False),
        Field("transform", "transform",
              f"a spectral kernel's transform of rows ({', '.join(fft.TRANSFORMS)}), instead "
              "of an expression", category_default=False),
        Field("contraction", "index sets",
              "a contraction kernel's indices, einsum-style (mk,kn->mn; bmk,bkn->bmn; "
              "mk,nk->mn): its first two inputs are the operands, its expression (default "
              "acc) the epilogue applied to each contracted value acc (docs/matrix.md)",
              category_default=False),
        Field("indices", "mapping name: indices",
              "a contraction's further inputs, each with the output indices it varies "
              "along (bias: n)", category_default=False),
        Field("rungs", "list of rungs",
              f"optimisation rungs to build (0-{LAST_RUNG}), default "
              f"{', '.join(map(str, DEFAULT_RUNGS))}"),
        Field("compute_units", "integer", "compute units at rung 3 (multi_cu), default 4"),
        Field("shapes", "mapping name: shape",
              "each tensor's dimensions, e.g. x: (N, C, *), weight: (C)", category_default=False),
        Field("let", "mapping name: expression",
              "named parts of the expression, in order; each may use the ones before",
              category_default=False),
        Field("accuracy", "mapping",
              "a row kernel's bound against float64: ulps, row_ulps, sum_ulps",
              category_default=False),
        Field("top", "name, or mapping dtype: name",
              "the hardware top's name (default <kernel>_<dtype tag>, e.g. add_f32)",
              category_default=False),
        Field("streams", "list of names",
              "inputs and outputs that are AXI4-Stream ports instead of pointers to memory "
              "(an elementwise kernel of 32-bit elements, built at rung 2)",
              category_default=False),
        Field("args", "list of names",
              "the C signature's argument order, every input, output, scalar and n once "
              "(default: inputs, output, scalars, n), e.g. [c, a, b, n]",
              category_default=False),
        Field("control", "string",
              f"{', '.join(CONTROLS)}: free_running has no control port (ap_ctrl_none); "
              "every input and output is then a stream; auto_restart makes a register "
              "kernel, started once and fed through its mailbox", category_default=False),
    )
}


CATEGORY_KEYS = {"doc", "defaults"}

# Dotted ASCII names (\w would admit any Unicode letter): torch.add, torch.nn.functional.relu.
_MIRRORS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
MAX_DOC_CHARS = 200
MAX_MIRRORS_CHARS = 100
# Output folders beside the kernels' build/<category>/ folders (build/reports/latest,
# build/library/...): a category of that name would write over them.
_RESERVED_CATEGORIES = frozenset({"reports", "library"})

def parse_names(doc: Located, key: str, value: Any, *,
                exactly_one: bool = False) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise doc.error(key, "expected a non-empty list of names")
    if exactly_one and len(value) != 1:
        raise doc.error(key, f"exactly one {key.removesuffix('s')} is supported, got "
                             f"{len(value)}")
    names = tuple(check_identifier(doc, key, v, key, i) for i, v in enumerate(value))
    for i, name in enumerate(names):
        if name in names[:i]:
            raise doc.error(key, f"{shown(name)} is listed twice", key, i)
    return names


def parse_scalars(doc: Located, value: Any) -> tuple[ScalarArg, ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise doc.error("scalars", "expected a mapping of name: default value")
    out = []
    for name, default in value.items():
        check_identifier(doc, "scalars", name, "scalars", name)
        if isinstance(default, bool) or not isinstance(default, int | float):
            raise doc.error(
                f"scalars.{name}", f"default must be a number, got {shown(default)}", "scalars",
                name,
            )
        out.append(ScalarArg(name, default))
    return tuple(out)


def parse_dtypes(doc: Located, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise doc.error("dtypes", f"expected a non-empty list of dtypes ({', '.join(DTYPES)})")
    for i, name in enumerate(value):
        if not isinstance(name, str) or name not in DTYPES:
            raise doc.error(
                "dtypes", f"unknown dtype {shown(name)} (known: {', '.join(DTYPES)})", "dtypes", i
            )
        if name in value[:i]:
            raise doc.error("dtypes", f"{shown(name)} is listed twice", "dtypes", i)
    return tuple(value)


def parse_rungs(doc: Located, value: Any) -> tuple[int, ...]:
    if value is None:
        return DEFAULT_RUNGS
    if not isinstance(value, list) or not value:
        raise doc.error("rungs", f"expected a non-empty list of rung numbers 0-{LAST_RUNG}")
    for i, rung in enumerate(value):
        if isinstance(rung, bool) or not isinstance(rung, int) or not 0 <= rung <= LAST_RUNG:
            raise doc.error("rungs", f"unknown rung {shown(rung)} (rungs are 0-{LAST_RUNG})",
                            "rungs", i)
    return tuple(sorted(set(value)))


def _compute_units(doc: Located, value: Any) -> int:
    if value is None:
        return 4
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_COMPUTE_UNITS:
        expected = f"expected an integer 1-{MAX_COMPUTE_UNITS}, got {shown(value)}"
        raise doc.error("compute_units", expected)
    return value


def one_line(doc: Located, key: str, value: Any, limit: int = MAX_DOC_CHARS) -> str:
    """A line of text that generated C++ and SystemVerilog copy into ``//`` comments."""
    if not isinstance(value, str) or not value.strip():
        raise doc.error(key, "expected a non-empty one-line string")
    text = value.strip()
    if "\n" in text:
        raise doc.error(key, "must be a single line")
    if len(text) > limit:
        raise doc.error(key, f"is {len(text)} characters long (at most {limit})")
    # A backslash (or its trigraph ??/) at the end of a // comment splices the next line
    # of generated code into the comment.
    if text.endswith(("\\", "??/")):
        raise doc.error(key, "may not end with a backslash or ??/ (the generated code's "
                             "// comment would swallow its next line)")
    return text


def check_keys(doc: Located, data: dict[str, Any], known: dict[str, Field] | set[str]) -> None:
    for key in data:
        if key not in known:
            close = difflib.get_close_matches(key, list(known), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(known)})"
            raise doc.error(key, f"unknown key{hint}")


def load_category(doc: Located) -> tuple[str, dict[str, Any]]:
    """Validate a ``_category.yaml``: returns its doc line and its defaults."""
    data = doc.value
    if not isinstance(data, dict):
        raise SpecError(doc.file, 1, None, "a category file must be a mapping")
    check_keys(doc, data, CATEGORY_KEYS)
    text = one_line(doc, "doc", data.get("doc", doc.file.parent.name))
    defaults = data.get("defaults")
    defaults = {} if defaults is None else defaults
    if not isinstance(defaults, dict):
        raise doc.error("defaults", "expected a mapping of spec keys")
    allowed = {k: f for k, f in FIELDS.items() if f.category_default}
    for key in defaults:
        if key not in allowed:
            raise doc.error("defaults", f"{shown(key)} cannot be a category default",
                            "defaults", key)
    return text, defaults


def validate(
    doc: Located,
    category: str,
    defaults: dict[str, Any] | None = None,
    category_doc: Located | None = None,
) -> Kernel:
    """Validate one kernel spec (merged over its category's defaults) into a Kernel."""
    data = doc.value
    if not isinstance(data, dict):
        raise SpecError(doc.file, 1, None, "a kernel spec must be a mapping of keys")
    check_keys(doc, data, FIELDS)
    check_category(doc, category)
    merged = {**(defaults or {}), **data}
    for f in FIELDS.values():
        if f.required and f.name not in merged:
            raise SpecError(doc.file, 1, f.name, "missing required key")
    if "transform" in data:
        for key in ("streams", "control"):
            if key in data:
                raise doc.error(key, "a transform kernel has no stream ports")
        if "args" in data:
            raise doc.error("args", "a transform kernel's arguments keep their order "
                                    "(args: is for elementwise and reduction kernels)")
        return _transform_kernel(doc, category, merged, source_of(doc, data, category_doc))
    if "contraction" in data:
        return _contraction_kernel(doc, category, merged, source_of(doc, data, category_doc))
    for key in ("indices",):
        if key in data:
            raise doc.error(key, "only a contraction kernel (contraction: mk,kn->mn) "
                                 "indexes its inputs")
    if "expression" not in merged:
        raise SpecError(doc.file, 1, "expression", "missing required key (or a transform: "
                        f"{', '.join(fft.TRANSFORMS)})")

    source = source_of(doc, data, category_doc)
    name = check_identifier(doc, "kernel", merged["kernel"])
    if name != doc.file.stem:
        raise doc.error("kernel", f"name {shown(name)} must match the file name "
                                  f"{shown(doc.file.stem)}")
    inputs = parse_names(source("inputs"), "inputs", merged["inputs"])
    outputs = parse_names(source("outputs"), "outputs", merged["outputs"], exactly_one=True)
    scalars = parse_scalars(source("scalars"), merged.get("scalars"))
    dtypes = parse_dtypes(source("dtypes"), merged["dtypes"])
    check_defaults(source("scalars"), scalars, dtypes)
    check_no_clashes(doc, name, inputs, outputs, scalars)
    lets = _lets(doc, data.get("let"), {*inputs, *outputs, *(s.name for s in scalars), name})
    kernel = Kernel(
        name=name,
        category=category,
        doc=one_line(doc, "doc", merged["doc"]),
        mirrors=_mirrors(source("mirrors"), merged.get("mirrors")),
        inputs=inputs,
        scalars=scalars,
        outputs=outputs,
        dtypes=dtypes,
        expression=_expression(doc, merged["expression"]),
        rungs=parse_rungs(source("rungs"), merged.get("rungs")),
        compute_units=_compute_units(source("compute_units"), merged.get("compute_units")),
        source=doc.file,
        shapes=_shapes(doc, data.get("shapes")),
        lets=lets,
        stated_accuracy=_accuracy(doc, data.get("accuracy")),
        tops=parse_tops(doc, data.get("top"), name, dtypes,
                   {*inputs, *outputs, *(s.name for s in scalars), *(n for n, _ in lets)}),
        streams=_streams(doc, data.get("streams"), (*inputs, *outputs)),
        free_running=_control(doc, data.get("control")) == "free_running",
    )
    _check_expression(doc, kernel)
    _check_shapes(doc, kernel)
    kernel = _check_streams(doc, data, kernel)
    return with_arg_order(doc, data.get("args"), kernel)


def with_arg_order(doc: Located, value: Any, kernel: Kernel) -> Kernel:
    """The spec's ``args``: a C signature's order of the kernel's arguments (AMD's
    ``vector_add(c, a, b, n)``, ``mem_read(mem, n, out)``), each named exactly once."""
    if value is None:
        return kernel
    if kernel.kind not in ("elementwise", "reduction", "registers"):
        raise doc.error("args", f"only elementwise, reduction and register kernels declare "
                                f"their argument order; {kernel.name} is a "
                                f"{kernel.kind.replace('_', ' ')}")
    if isinstance(value, str) or not isinstance(value, list) or not value:
        raise doc.error("args", "expected a non-empty list of names")
    names = kernel.arguments
    order: list[str] = []
    for i, name in enumerate(value):
        if name not in names:
            raise doc.error("args", f"{shown(name)} is not an argument of the kernel "
                                    f"({', '.join(names)})", "args", i)
        if name in order:
            raise doc.error("args", f"{shown(name)} is listed twice", "args", i)
        order.append(name)
    missing = [n for n in names if n not in order]
    if missing:
        raise doc.error("args", f"every argument must be listed once; missing "
                                f"{', '.join(missing)}")
    return replace(kernel, arg_order=tuple(order))


def _streams(doc: Located, value: Any, ports: tuple[str, ...]) -> tuple[str, ...]:
    if value is None:
        return ()
    names = parse_names(doc, "streams", value)
    for i, name in enumerate(names):
        if name not in ports:
            raise doc.error("streams", f"{shown(name)} is not an input or output of the "
                                       f"kernel ({', '.join(ports)})", "streams", i)
    return names


def _control(doc: Located, value: Any) -> str:
    if value is None:
        return CONTROLS[0]
    if value not in CONTROLS:
        raise doc.error("control", f"expected {', '.join(CONTROLS)}, got {shown(value)}")
    return str(value)


def _check_streams(doc: Located, data: dict[str, Any], kernel: Kernel) -> Kernel:
    """A kernel with stream ports: elementwise, 32-bit elements on every stream, rung 2
    (its default), no torch op; free-running only when every port is a stream and there
    are no scalars (it has no control port to take them). Returns the kernel with its
    rungs settled."""
    for key, names in (("inputs", kernel.inputs), ("outputs", kernel.outputs)):
        for i, name in enumerate(names):
            if name in STREAM_ONLY_NAMES and name not in kernel.streams:
                raise doc.error(key, f"{shown(name)} is reserved in the generated "
                                     "C++/SystemVerilog (it may name a stream argument: "
                                     "list it in streams:)", key, i)
    if kernel.free_running and set(kernel.streams) != {*kernel.inputs, *kernel.outputs}:
        raise doc.error("control", "a free_running kernel has no control port, so every "
                                   "input and output must be listed in streams:")
    if not kernel.streams:
        return kernel
    if kernel.kind != "elementwise":
        raise doc.error("streams", f"only elementwise kernels have stream ports; "
                                   f"{kernel.name} is a {kernel.kind.replace('_', ' ')}")
    if kernel.free_running and kernel.scalars:
        raise doc.error("scalars", "a free_running kernel has no control port to take "
                                   "scalars (write the value into the expression)")
    if kernel.mirrors is not None:
        raise doc.error("mirrors", "a kernel with stream ports runs only in a linked chain "
                                   "of kernels, so it cannot back a torch operator")
    for dtype in kernel.dtypes:
        for port in kernel.streams:
            bits = kernel.pointer_dtype(port, dtype).bits
            if bits != 32:
                raise doc.error("streams", f"{port} carries {bits}-bit elements for {dtype}; "
                                           "stream ports carry 32-bit elements")
    if "rungs" not in data:
        return replace(kernel, rungs=(STREAM_RUNG,))
    if kernel.rungs != (STREAM_RUNG,):
        raise doc.error("rungs", f"a kernel with stream ports builds rung {STREAM_RUNG} "
                                 f"(dataflow) only, got {', '.join(map(str, kernel.rungs))}")
    return kernel


def source_of(doc: Located, data: dict[str, Any],
              category_doc: Located | None) -> Callable[[str], Located]:
    """Where a key's value is reported: the spec's line, or the category file's line for a
    value the category supplied."""
    def source(key: str) -> Located:
        return doc if key in data or category_doc is None else _Shifted(category_doc, key)
    return source


# The one scalar of a transform kernel: the factor every result is multiplied by
# (fpgakern.ir.fft.norm_scale makes it from torch's norm).
TRANSFORM_SCALE = ScalarArg("scale", 1.0)
# What a transform kernel's spec may not say: it has no expression, and its scalar,
# shapes (rows of its one input) and accuracy (fpgakern.ir.fft) are the kind's.
_NOT_FOR_TRANSFORMS = ("expression", "scalars", "shapes", "let", "accuracy")


def _transform_kernel(doc: Located, category: str, merged: dict[str, Any],
                      source: Callable[[str], Located]) -> Kernel:
    """A spectral kernel: ``transform: fft`` and one input, one output, one dtype (the
    input's: complex64, float32 for rfft)."""
    transform = merged["transform"]
    if transform not in fft.TRANSFORMS:
        raise doc.error("transform", f"unknown transform {shown(transform)} (known: "
                                     f"{', '.join(fft.TRANSFORMS)})")
    for key in _NOT_FOR_TRANSFORMS:
        if key in merged:
            raise source(key).error(key, f"a transform kernel has no {key} (its scale "
                                         "argument and rows are the kind's: "
                                         "docs/spectral.md)")
    name = check_identifier(doc, "kernel", merged["kernel"])
    if name != doc.file.stem:
        raise doc.error("kernel", f"name {shown(name)} must match the file name "
                                  f"{shown(doc.file.stem)}")
    inputs = parse_names(source("inputs"), "inputs", merged["inputs"], exactly_one=True)
    outputs = parse_names(source("outputs"), "outputs", merged["outputs"], exactly_one=True)
    check_no_clashes(doc, name, inputs, outputs, (TRANSFORM_SCALE,))
    dtypes = parse_dtypes(source("dtypes"), merged["dtypes"])
    wanted = "float32" if transform == "rfft" else "complex64"
    if dtypes != (wanted,):
        raise source("dtypes").error("dtypes", f"{transform} takes {wanted} rows: dtypes "
                                               f"must be [{wanted}]")
    rungs = parse_rungs(source("rungs"), merged.get("rungs"))
    if any(r > MAX_TRANSFORM_RUNG for r in rungs):
        raise source("rungs").error("rungs", f"a transform kernel builds rungs "
                                             f"0-{MAX_TRANSFORM_RUNG}")
    return Kernel(
        name=name, category=category, doc=one_line(doc, "doc", merged["doc"]),
        mirrors=_mirrors(source("mirrors"), merged.get("mirrors")), inputs=inputs,
        scalars=(TRANSFORM_SCALE,), outputs=outputs, dtypes=dtypes, expression="",
        rungs=rungs,
        compute_units=_compute_units(source("compute_units"), merged.get("compute_units")),
        source=doc.file, transform=transform,
        tops=parse_tops(doc, merged.get("top"), name, dtypes,
                   {*inputs, *outputs, TRANSFORM_SCALE.name}))


def parse_tops(doc: Located, value: Any, name: str, dtypes: tuple[str, ...],
          arguments: set[str]) -> tuple[tuple[str, str], ...]:
    """``top``: one name for a kernel of one dtype, or a mapping dtype: name (the dtypes
    it leaves out keep their default tops). Each is a name the generated C++,
    SystemVerilog, file names and host code can carry, no C/C++ library function's
    (:data:`fpgakern.spec.names.C_LIBRARY_NAMES`), no argument's, and no two dtypes share one."""
    if value is None:
        return ()
    if isinstance(value, str):
        check_identifier(doc, "top", value, "top")  # before it is quoted in a suggestion
        if len(dtypes) != 1:
            raise doc.error("top", f"one name for {len(dtypes)} dtypes: name each dtype's "
                                   f"top with a mapping, such as {{{dtypes[0]}: {value}, "
                                   f"{dtypes[1]}: {value}_{dtypes[1]}}}")
        pairs: list[tuple[Any, Any]] = [(dtypes[0], value)]
        paths: list[tuple[str, ...]] = [("top",)]
    elif isinstance(value, dict) and value:
        pairs = list(value.items())
        paths = [("top", str(d)) for d in value]
        for dtype, _ in pairs:
            if dtype not in dtypes:
                raise doc.error("top", f"{shown(dtype)} is not one of the kernel's dtypes "
                                       f"({', '.join(dtypes)})", "top", str(dtype))
    else:
        raise doc.error("top", "expected a name (top: vadd) or a mapping dtype: name "
                               "(top: {float32: vadd, int32: vadd_int})")
    out: list[tuple[str, str]] = []
    for (dtype, top), path in zip(pairs, paths, strict=True):
        check_identifier(doc, "top", top, *path)
        if library_symbol(top):
            raise doc.error("top", f"{shown(top)} is a C/C++ library function the generated "
                                   "code and host programs also see: choose another name",
                            *path)
        if top in arguments:
            raise doc.error("top", f"{shown(top)} is already an argument's or let's name",
                            *path)
        out.append((dtype, top))
    chosen = dict(out)
    for (dtype, top), path in zip(out, paths, strict=True):
        other = next((d for d in dtypes if d != dtype
                      and chosen.get(d, default_top_name(name, d)) == top), None)
        if other is not None:
            raise doc.error("top", f"{shown(top)} is also the {other} variant's top", *path)
    return tuple(out)


MAX_TRANSFORM_RUNG = 4  # no rung 5: a transform's CUs are rung 3's


def _shapes(doc: Located, value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict) or not value:
        raise doc.error("shapes", "expected a mapping of tensor name: shape, such as "
                                  "x: (N, C, *)")
    out = []
    for name, shape in value.items():
        try:
            out.append((str(name), shapes.parse_shape(shape)))
        except shapes.ShapeError as err:
            raise doc.error("shapes", f"{name}: {err}", "shapes", name) from None
    return tuple(out)


def _lets(doc: Located, value: Any, taken: set[str]) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict) or not value:
        raise doc.error("let", "expected a mapping of name: expression")
    out = []
    for name, text in value.items():
        check_identifier(doc, "let", name, "let", name)
        if name in taken:
            raise doc.error("let", f"{shown(name)} is already an argument or the kernel's name",
                            "let", name)
        if isinstance(text, bool) or not isinstance(text, str | int | float):
            raise doc.error(f"let.{name}", "expected an expression", "let", name)
        out.append((name, str(text)))
    return tuple(out)


_ACCURACY_KEYS = ("ulps", "row_ulps", "sum_ulps")


def _accuracy(doc: Located, value: Any) -> Accuracy | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not value:
        raise doc.error("accuracy", "expected a mapping such as {ulps: 8, row_ulps: 2}")
    for key, number in value.items():
        if key not in _ACCURACY_KEYS:
            raise doc.error("accuracy", f"unknown key {shown(key)} (known: "
                            f"{', '.join(_ACCURACY_KEYS)})", "accuracy", key)
        if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= 1 << 20:
            raise doc.error("accuracy", f"{key}: expected a whole number of ulps 0-1048576, got "
                            f"{shown(number)}", "accuracy", key)
    return Accuracy("rows", value.get("ulps", 0), row_ulps=value.get("row_ulps", 0),
                    sum_ulps=value.get("sum_ulps", 0))


def _check_shapes(doc: Located, kernel: Kernel) -> None:
    """Shapes resolve, and a shaped expression splits into stages (fpgakern.ir.shapes);
    reductions inside an expression, and ``accuracy``, need shapes."""
    if not kernel.shapes:
        if kernel.stated_accuracy is not None:
            raise doc.error("accuracy", "only a kernel that reduces along rows (one with "
                                        "shapes) states its accuracy")
        return
    complex_dtypes = [d for d in kernel.dtypes if DTYPES[d].is_complex]
    if complex_dtypes:  # issue 16, phase 1: plain elementwise kernels only
        raise doc.error("dtypes", f"{complex_dtypes[0]} is for kernels without shapes "
                                  "for now (issue 16)", "dtypes")
    try:
        kernel.layout  # noqa: B018 (resolves, or raises)
    except shapes.ShapeError as err:
        raise doc.error("shapes", str(err)) from None
    for dtype_name in kernel.dtypes:
        try:
            staged = kernel.staged(dtype_name)
        except shapes.ShapeError as err:
            raise doc.error("expression", str(err)) from None
        rows = staged is not None and staged.kind != "broadcast"
        if rows and kernel.stated_accuracy is None and DTYPES[dtype_name].is_float:
            raise doc.error("shapes", "a float kernel that reduces along rows states its "
                                      "bound against float64: accuracy: {ulps: U, row_ulps: R} "
                                      "(docs/spec-format.md)")


class _Shifted(Located):
    """The category file's positions, for a key whose value the category supplied."""

    def __init__(self, category_doc: Located, key: str) -> None:
        lines = {k[1:]: v for k, v in category_doc.lines.items() if k[:2] == ("defaults", key)}
        super().__init__(category_doc.file, category_doc.value, lines)


def _mirrors(doc: Located, value: Any) -> str | None:
    if value is None:
        return None
    text = one_line(doc, "mirrors", value, MAX_MIRRORS_CHARS)
    if not _MIRRORS.fullmatch(text):
        raise doc.error("mirrors",
                        f"expected a dotted operator name like torch.add, got {shown(text)}")
    return text


def _expression(doc: Located, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise doc.error("expression", "expected an expression such as 'a + alpha * b'")
    return str(value)


def check_category(doc: Located, category: str) -> None:
    """The folder name is a C++ namespace and a folder of build/: a plain, unused name."""
    if not IDENTIFIER.fullmatch(category):
        raise SpecError(doc.file, None, None, f"category folder {shown(category)} is not a "
                        "valid name (lower-case letter, then letters, digits or _; at most 31 "
                        "characters)")
    if category in RESERVED or category in _RESERVED_CATEGORIES or category.startswith(
        RESERVED_PREFIXES
    ):
        raise SpecError(doc.file, None, None, f"category folder {shown(category)} is a reserved "
                        "name")


def check_defaults(doc: Located, scalars: tuple[ScalarArg, ...], dtypes: tuple[str, ...]) -> None:
    """Every dtype variant passes each scalar's default to its kernel: it must be a value
    of each (no NaN default for an int32 variant, no 1e39 for float32; a complex64
    variant's scalars are float32)."""
    for scalar in scalars:
        for scalar_dtype in dict.fromkeys(DTYPES[d].scalar_dtype for d in dtypes):
            problem = expr.value_problem(scalar.default, scalar_dtype, integral=True)
            if problem:
                raise doc.error(f"scalars.{scalar.name}", f"default {shown(scalar.default)} is "
                                f"not a valid {scalar_dtype} ({problem})", "scalars", scalar.name)


def check_no_clashes(
    doc: Located,
    name: str,
    inputs: tuple[str, ...],
    outputs: tuple[str, ...],
    scalars: tuple[ScalarArg, ...],
) -> None:
    seen: dict[str, str] = {}
    for key, names in (("inputs", inputs), ("outputs", outputs),
                       ("scalars", tuple(s.name for s in scalars))):
        for arg in names:
            if arg in seen:
                raise doc.error(key, f"{shown(arg)} is already declared in {seen[arg]}")
            if arg == name:
                raise doc.error(key, f"argument {shown(arg)} has the kernel's own name")
            seen[arg] = key


def _check_expression(doc: Located, kernel: Kernel) -> None:
    try:  # limits and syntax first: the same for every dtype, so named for none
        expr.syntax(kernel.expression)
    except expr.ExprError as err:
        raise doc.error("expression", str(err)) from None
    for dtype_name in kernel.dtypes:
        try:
            # Parsed here for one dtype (Kernel.graph parses every dtype at once, so its
            # error could be another dtype's), with the arguments Kernel gives it.
            root, _ = parse_graph(kernel.expression, kernel.expression_inputs, kernel.scalars,
                                  kernel.lets, bool(kernel.shapes), dtype_name)
        except expr.ExprError as err:
            suffix = f" (for {dtype_name})" if len(kernel.dtypes) > 1 else ""
            let = next((n for n, _ in kernel.lets if str(err).startswith(f"{n}: ")), None)
            if let is not None:
                message = str(err).removeprefix(f"{let}: ")
                raise doc.error(f"let.{let}", f"{message}{suffix}", "let", let) from None
            raise doc.error("expression", f"{err}{suffix}") from None
        if root.dtype not in RESULT_DTYPES:
            raise doc.error("expression", f"result is {root.dtype}; outputs must be a dtype of "
                                          f"{', '.join(RESULT_DTYPES)}")
        used = {n.name for n in root.walk() if isinstance(n, expr.Input | expr.Scalar)}
        for arg in [*kernel.expression_inputs, *(s.name for s in kernel.scalars)]:
            if arg == ACC and kernel.contraction is not None:
                continue  # a contraction's own message (_contraction_kernel)
            if arg not in used:
                raise doc.error("expression", f"{shown(arg)} is declared but not used")



# The dtypes a contraction is built for (int32 wraps, as torch's integer mm does).
CONTRACTION_DTYPES = ("float32", "int32")
# What a contraction's spec may not say: its shapes are its indices'.
_NOT_FOR_CONTRACTIONS = ("shapes", "accuracy", "streams", "control", "transform")


def _contraction_kernel(doc: Located, category: str, merged: dict[str, Any],
                        source: Callable[[str], Located]) -> Kernel:
    """A contraction kernel: ``contraction: mk,kn->mn``, two operand inputs, then the
    epilogue's further inputs (each named in ``indices``), an optional epilogue
    ``expression`` over ``acc`` (default ``acc``), float32 and/or int32."""
    for key in _NOT_FOR_CONTRACTIONS:
        if key in merged:
            raise source(key).error(key, f"a contraction kernel has no {key} (its shapes "
                                         "are its indices': docs/matrix.md)")
    if "args" in merged:
        raise source("args").error("args", "a contraction kernel takes no args: (its "
                                           "arguments are its operands, further inputs and "
                                           "output, in order)")
    try:
        parsed = contraction.parse(merged["contraction"])
    except contraction.ContractionError as err:
        raise doc.error("contraction", str(err)) from None
    name = check_identifier(doc, "kernel", merged["kernel"])
    if name != doc.file.stem:
        raise doc.error("kernel", f"name {shown(name)} must match the file name "
                                  f"{shown(doc.file.stem)}")
    inputs = parse_names(source("inputs"), "inputs", merged["inputs"])
    if len(inputs) < 2:
        raise source("inputs").error("inputs", f"a contraction's first two inputs are its "
                                               f"operands ({parsed.a} and {parsed.b}); got "
                                               f"{len(inputs)} input")
    outputs = parse_names(source("outputs"), "outputs", merged["outputs"], exactly_one=True)
    scalars = parse_scalars(source("scalars"), merged.get("scalars"))
    dtypes = parse_dtypes(source("dtypes"), merged["dtypes"])
    for i, dtype in enumerate(dtypes):
        if dtype not in CONTRACTION_DTYPES:
            raise source("dtypes").error("dtypes", f"a contraction is built for "
                                                   f"{' and '.join(CONTRACTION_DTYPES)}, "
                                                   f"not {dtype}", "dtypes", i)
    check_defaults(source("scalars"), scalars, dtypes)
    check_no_clashes(doc, name, inputs, outputs, scalars)
    kernel = Kernel(
        name=name, category=category, doc=one_line(doc, "doc", merged["doc"]),
        mirrors=_mirrors(source("mirrors"), merged.get("mirrors")), inputs=inputs,
        scalars=scalars, outputs=outputs, dtypes=dtypes,
        expression=_expression(doc, merged.get("expression", ACC)),
        rungs=parse_rungs(source("rungs"), merged.get("rungs")),
        compute_units=_compute_units(source("compute_units"), merged.get("compute_units")),
        source=doc.file,
        lets=_lets(doc, merged.get("let"), {*inputs, *outputs, *(s.name for s in scalars),
                                             name}),
        tops=parse_tops(doc, merged.get("top"), name, dtypes,
                   {*inputs, *outputs, *(s.name for s in scalars)}),
        contraction=parsed,
        indices=_indices(doc, merged.get("indices"), parsed, inputs[2:]),
    )
    _check_expression(doc, kernel)
    if ACC not in {n.name for n in kernel.graph(dtypes[0]).walk()
                   if isinstance(n, expr.Input)}:
        raise doc.error("expression", f"the epilogue does not use {ACC}, the contracted "
                                      "value")
    for dtype in dtypes:
        result = kernel.graph(dtype).dtype
        if result != dtype:
            raise doc.error("expression", f"the epilogue gives {result} for {dtype} "
                                          f"operands: a contraction's result keeps its "
                                          f"operands' dtype (no dtype mix)")
    return kernel


def _indices(doc: Located, value: Any, parsed: contraction.Contraction,
             extra: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Each further input's indices: a subsequence of the output's (``bias: n`` for an
    output ``mn``), for every further input and no other name."""
    value = {} if value is None else value
    if not isinstance(value, dict):
        raise doc.error("indices", "expected a mapping of input name: indices, such as "
                                   "bias: n")
    for key in value:
        if key not in extra:
            known = ", ".join(extra) or "none"
            raise doc.error("indices", f"{shown(key)} is not one of the epilogue's inputs "
                                       f"(the inputs after the two operands: {known})",
                            "indices", key)
    out = []
    for name in extra:
        if name not in value:
            raise doc.error("indices", f"{name}: name the output indices it varies along "
                                       f"(indices: {{{name}: {parsed.out[-1]}}})")
        text = value[name]
        text = "" if text is None else text
        if not isinstance(text, str) or not all(i in parsed.out for i in text):
            bad = next((i for i in str(text) if i not in parsed.out), str(text))
            raise doc.error("indices", f"{name}: unknown index {shown(bad)} (the output's "
                                       f"indices are {parsed.out})", "indices", name)
        if text != "".join(i for i in parsed.out if i in text):
            raise doc.error("indices", f"{name}: {shown(text)} must list the output's "
                                       f"indices in the output's order ({parsed.out})",
                            "indices", name)
        out.append((name, text))
    return tuple(out)
