"""complex64 RTL by lowering (fpgakern.ir.complex_lowering): each complex64 kernel's
float32 (re, im) graphs, evaluated with the op table's float32 references, give the
complex64 reference's bits on every pair of special values and on random data; a kernel
of complex64 in and float32 out (abs, angle, real, imag) its one float32 graph, bit for
bit but abs (the scaled hypot: within 1 ulp of the reference's float64 hypot). The RTL
operators are each proven against those float32 references (tests/oplib), and the
schedule against the graph (the RTL simulations), so this is the step between."""

from __future__ import annotations

import numpy as np
import pytest

from fpgakern.backends.rtl.generate import datapath_of, render
from fpgakern.errors import UsageError
from fpgakern.ir import complex_lowering, expr
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ladder import plan
from fpgakern.paths import library_dir
from fpgakern.spec.library import Library
from fpgakern.verify import reference, stimulus
from fpgakern.verify.stimulus import Case

C64 = DTYPES["complex64"]
LIBRARY = Library(library_dir())
KERNELS = [k.qualname for k in LIBRARY.kernels
           if "complex64" in k.dtypes and k.kind == "elementwise"]
# complex64 in, float32 out
REAL_OUT = [q for q in KERNELS if LIBRARY.get(q).output_dtype("complex64").name == "float32"]
# A wider grid than the kernels' special values: huge and tiny parts (Smith's scaling),
# negative, fractional and subnormal ones.
WIDE_PARTS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, 3e38, 1e-38, 2.5, -1.7e-40,
                       1e-30, 1e30, 1.4e-45], dtype=np.float32)


def _grid(parts: np.ndarray) -> np.ndarray:
    re, im = np.meshgrid(parts, parts, indexing="ij")
    return np.stack([re.ravel(), im.ravel()], axis=-1).astype(np.float32).view(
        np.complex64).ravel()


def _components(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pairs = np.ascontiguousarray(x, dtype=np.complex64).view(np.float32).reshape(-1, 2)
    return pairs[:, 0].copy(), pairs[:, 1].copy()


def _lowered_result(kernel, case: Case) -> np.ndarray:
    parts: dict[str, np.ndarray] = {}
    for name in kernel.inputs:
        re, im = _components(case.tensors[name])
        parts[complex_lowering.component(name, "re")] = re
        parts[complex_lowering.component(name, "im")] = im
    flat = Case(case.label, parts, case.scalars)
    if kernel.qualname in REAL_OUT:
        root, _ = complex_lowering.lower_real(kernel.graph("complex64"), kernel.inputs)
        return reference.evaluate_node(root, flat, case.size)
    lowered = complex_lowering.lower(kernel.graph("complex64"), kernel.inputs)
    re = reference.evaluate_node(lowered.re, flat, case.size)
    im = reference.evaluate_node(lowered.im, flat, case.size)
    assert re.dtype == im.dtype == np.float32
    return np.stack([re, im], axis=-1).view(np.complex64).ravel()


def _same(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    if ours.dtype == np.float32:
        return (ours.view(np.uint32) == theirs.view(np.uint32)) | (np.isnan(ours)
                                                                   & np.isnan(theirs))
    a = ours.view(np.float32).reshape(-1, 2)
    b = theirs.view(np.float32).reshape(-1, 2)
    return ((a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))).all(1)


def _cases(kernel) -> list[Case]:
    rng = np.random.default_rng(16)
    values = _grid(WIDE_PARTS)
    if len(kernel.inputs) == 2:
        a, b = np.meshgrid(values, values, indexing="ij")
        tensors = {"a": a.ravel(), "b": b.ravel()}
    else:
        tensors = {kernel.inputs[0]: values}
    cases = [Case("random", {x: stimulus.random_values(C64, 500, rng) for x in kernel.inputs},
                  {s.name: s.default for s in kernel.scalars})]
    scalar_values = [kernel.scalars[0].default, 2.5, -0.0, np.inf, np.nan] \
        if kernel.scalars else [None]
    for value in scalar_values:
        cases.append(Case(f"special, scalars {value}", tensors,
                          {s.name: value for s in kernel.scalars}))
    return cases


@pytest.mark.parametrize("name", KERNELS)
def test_lowering_is_the_reference_bit_for_bit(name):
    kernel = LIBRARY.get(name)
    for case in _cases(kernel):
        expected = reference.expected_output(kernel, "complex64", case)
        ours = _lowered_result(kernel, case)
        same = _same(ours, expected)
        if name == "unary_ops/abs":  # the scaled hypot against float64's, rounded once
            assert (np.isnan(ours) == np.isnan(expected)).all()
            distance = np.abs(ours.view(np.int32).astype(np.int64)
                              - expected.view(np.int32).astype(np.int64))
            same |= distance <= 1  # both are >= +0: the bits are ordered
        assert same.all(), (case.label, int((~same).sum()))


def test_hypot_special_values():
    """C99's hypot: +inf where either part is infinite (beside a NaN too), NaN for NaN
    otherwise, +0 for zeros of either sign, subnormal and huge parts without underflow or
    overflow of the squares."""
    kernel = LIBRARY.get("unary_ops/abs")
    inf, nan, huge = np.inf, np.nan, np.float32(3.4028235e38)
    tiny = float(np.float32(2.0**-149))
    x = np.array([complex(inf, nan), complex(nan, -inf), complex(nan, 1), complex(-0.0, -0.0),
                  complex(3 * tiny, 4 * tiny), complex(huge, huge), complex(-3e-39, 4e-39),
                  complex(3e30, -4e30), complex(2.0**-61, 2.0**-61)], np.complex64)
    ours = _lowered_result(kernel, Case("special", {"x": x}, {}))
    assert ours[0] == ours[1] == np.inf and np.isnan(ours[2])
    assert ours[3] == 0 and not np.signbit(ours[3])
    assert ours[4] == np.float32(5 * tiny) and ours[5] == np.inf  # exact; overflows
    assert ours[6] == np.float32(5e-39) and ours[7] == np.float32(5e30)
    assert ours[8] == np.float32(2.0**-61 * np.sqrt(2.0))


def test_lowered_ops_are_float32_and_have_rtl():
    for name in KERNELS:
        kernel = LIBRARY.get(name)
        if name in REAL_OUT:
            roots = [complex_lowering.lower_real(kernel.graph("complex64"), kernel.inputs)[0]]
        else:
            lowered = complex_lowering.lower(kernel.graph("complex64"), kernel.inputs)
            roots = [lowered.re, lowered.im]
        for root in roots:
            for node in root.walk():
                assert node.dtype in ("float32", expr.BOOL), (name, node)
                if isinstance(node, expr.Apply):
                    assert "float32" in node.op.rtl, (name, node.op.name)


# Pipeline latency of each complex64 kernel, as the schedule gives it (docs/rtl.md's table
# "complex64 by lowering" says the same).
LATENCIES = {"binary_ops/add": 18, "binary_ops/sub": 18, "binary_ops/mul": 12,
             "binary_ops/div": 50, "binary_ops/mul_scalar": 12, "unary_ops/conj": 0,
             "unary_ops/abs": 44, "unary_ops/angle": 31, "unary_ops/real": 0,
             "unary_ops/imag": 0}


@pytest.mark.parametrize("name", sorted(LATENCIES))
def test_latency(name):
    p = plan(LIBRARY.get(name), 4, "complex64")
    assert datapath_of(p).latency == LATENCIES[name]


def test_datapath_slices_and_packs_64_bit_lanes():
    texts = render(plan(LIBRARY.get("binary_ops/mul"), 4, "complex64"))
    dp = texts["mul_c64_datapath.sv"]
    assert "input  logic [511:0]   x_a," in dp
    assert "assign in_a_re = x_a[lane*64 +: 32];" in dp
    assert "assign in_a_im = x_a[lane*64 + 32 +: 32];" in dp
    assert "assign y[lane*64 +: 64] = {n" in dp
    texts = render(plan(LIBRARY.get("unary_ops/conj"), 0, "complex64"))
    dp = texts["conj_c64_datapath.sv"]
    assert "input  logic [63:0]    x_x," in dp
    assert "assign y[lane*64 +: 64] = {n0_neg, in_x_re};" in dp


def test_float32_result_has_narrower_lanes():
    """complex64 in, float32 out: 64-bit lanes in, 32-bit lanes out (rung 4: a 512-bit
    input port, a 256-bit output port; rung 0: both on one 64-bit bundle, two results to
    a beat), no packing of parts."""
    texts = render(plan(LIBRARY.get("unary_ops/angle"), 4, "complex64"))
    dp = texts["angle_c64_datapath.sv"]
    assert "input  logic [511:0]   x_x," in dp and "output logic [255:0]   y" in dp
    assert "assign y[lane*32 +: 32] = n0_atan2;" in dp
    top = texts["angle_c64.sv"]
    assert "localparam int OUT_W           = 256;" in top
    assert "m_axi_gmem1_wdata," in top and "[255:0] m_axi_gmem1_wdata" in top
    assert "[511:0] m_axi_gmem0_rdata" in top
    texts = render(plan(LIBRARY.get("unary_ops/real"), 0, "complex64"))
    assert "assign y[lane*32 +: 32] = in_x_re;" in texts["real_c64_datapath.sv"]
    top = texts["real_c64.sv"]
    assert "[63:0] m_axi_gmem_wdata" in top and ".last_strb(out_last_strb)" in top


def test_component_name_clash_is_refused():
    graph = expr.parse("a * b", {"a": "complex64", "b": "complex64"}, {})
    with pytest.raises(UsageError, match="clashes"):
        complex_lowering.lower(graph, ("a", "b", "a_re"))


@pytest.mark.parametrize("text", ["conj(a) * b + 2.5 * a / b",
                                  "fma(-s, a, conj(b)) / (a - 1.5)",
                                  "(a * s - b) * (a * s - b)"])
def test_composite_expressions_lower_bit_for_bit(text):
    """Expressions a user may write (literals, scalars, nesting, shared sub-expressions)
    lower to the reference's bits as the library's kernels do."""
    root = expr.parse(text, {"a": "complex64", "b": "complex64"}, {"s": "float32"})
    lowered = complex_lowering.lower(root, ("a", "b"))
    values = _grid(WIDE_PARTS)
    a, b = (np.ascontiguousarray(v.ravel()) for v in np.meshgrid(values, values,
                                                                 indexing="ij"))
    for s in (1.0, -2.5, 0.0, np.inf):
        case = Case("special", {"a": a, "b": b}, {"s": s})
        expected = reference.evaluate_node(root, case, case.size)
        parts = {}
        for name in ("a", "b"):
            parts[f"{name}_re"], parts[f"{name}_im"] = _components(case.tensors[name])
        flat = Case("special", parts, case.scalars)
        ours = np.stack([reference.evaluate_node(lowered.re, flat, case.size),
                         reference.evaluate_node(lowered.im, flat, case.size)],
                        axis=-1).view(np.complex64).ravel()
        same = _same(ours, expected)
        assert same.all(), (s, int((~same).sum()))
