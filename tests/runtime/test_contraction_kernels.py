"""Contraction kernels (matrix_ops) through the Python runtime on sw_emu: every rung's
HLS C++ as the emulation model, called on numpy arrays of any size, bit for bit the
reference's (fpgakern.verify.matmul.contract, the one declared accumulation order), also
for special values, K = 0 and empty results; torch's words for operands that do not fit.

The default tier runs mm at every rung on the shapes below and one rung of each other
kernel; the slow tier runs every kernel at every rung and dtype.
"""

from __future__ import annotations

import numpy as np
import pytest
from runtime_support import LIBRARY

from fpgakern.errors import UsageError
from fpgakern.ladder import plan
from fpgakern.runtime import Device, host, open_plans
from fpgakern.runtime import matrix as runtime_matrix
from fpgakern.runtime._abi import EmulationError
from fpgakern.verify.matmul import contract

RUNGS = (0, 1, 2, 3, 4)
# (m, n, k): square, tall, wide, K = 1, odd, and more than one 32 x 32 tile.
SHAPES = [(16, 16, 16), (70, 3, 20), (3, 90, 40), (33, 17, 1), (197, 200, 301),
          (65, 66, 67)]
_devices: dict[tuple[str, int, str], Device] = {}


def handle(qualname: str, rung: int, dtype: str = "float32"):
    key = (qualname, rung, dtype)
    if key not in _devices:
        _devices[key] = open_plans([plan(LIBRARY.get(qualname), rung, dtype)], "sw_emu")
    return _devices[key].kernel(qualname)


def operands(qualname: str, m: int, n: int, k: int, rng: np.random.Generator,
             dtype: str = "float32", batch: int = 2) -> list[np.ndarray]:
    kernel = LIBRARY.get(qualname)
    sizes = runtime_matrix.Sizes(batch, m, n, k)
    shapes = [runtime_matrix.shape_of(kernel, name, sizes) for name in kernel.inputs]
    if dtype == "int32":
        return [rng.integers(-1000, 1000, s, dtype=np.int32) for s in shapes]
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def check_bits(h, arrays: list[np.ndarray], dtype: str = "float32", **scalars) -> None:
    got = runtime_matrix.call(h, tuple(arrays), scalars)
    want = contract(h.kernel, dtype, dict(zip(h.kernel.inputs, arrays, strict=True)),
                    scalars)
    assert isinstance(got, np.ndarray)
    assert got.shape == want.shape and got.dtype == want.dtype
    # Bit for bit, the signs of zeros included; any NaN matches any NaN (which NaN an
    # addition of two passes on is the compiler's choice, as in C simulation).
    same = got.view(np.uint32) == want.view(np.uint32)
    if got.dtype.kind == "f":
        same |= np.isnan(got) & np.isnan(want)
    assert same.all(), f"{(~same).sum()} of {same.size} results differ"


@pytest.mark.parametrize("rung", RUNGS)
def test_mm_every_rung_gives_the_reference_bits(rung):
    h = handle("matrix_ops/mm", rung)
    rng = np.random.default_rng(rung)
    for m, n, k in SHAPES:
        check_bits(h, operands("matrix_ops/mm", m, n, k, rng))
    info = h.last_call
    assert info is not None
    # Rung 3 splits the output's rows over its compute units in whole 32-row tiles: the
    # last shape's 65 rows are three slabs (32, 32, 1), one CU each.
    assert info.compute_units == (min(h.target("float32").compute_units, 3) if rung == 3
                                  else 1)


def special(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    x = rng.standard_normal(shape).astype(np.float32)
    picks = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e-45, -3e-39, 1e38, -1e38],
                     dtype=np.float32)
    mask = rng.random(shape) < 0.15
    x[mask] = rng.choice(picks, size=int(mask.sum()))
    return x


@pytest.mark.parametrize("rung", [2, 4])
def test_special_values_give_the_reference_bits(rung):
    h = handle("matrix_ops/mm", rung)
    rng = np.random.default_rng(10 + rung)
    check_bits(h, [special(rng, (40, 70)), special(rng, (70, 37))])
    # All-zero and -0 products: the first product is the partial's (a -0 stays -0).
    check_bits(h, [np.full((3, 5), -0.0, np.float32), np.ones((5, 4), np.float32)])
    # Subnormal products (each rounds on its own: no fused multiply-add).
    check_bits(h, [np.full((4, 130), 2.0**-70, np.float32),
                   np.full((130, 4), 2.0**-70, np.float32)])


def test_int32_wraps_as_torch_does():
    h = handle("matrix_ops/mm", 2, "int32")
    rng = np.random.default_rng(7)
    info = np.iinfo(np.int32)
    x = rng.integers(info.min, info.max, (45, 70), dtype=np.int32, endpoint=True)
    y = rng.integers(info.min, info.max, (70, 33), dtype=np.int32, endpoint=True)
    x[0, :] = info.min
    y[:, 0] = info.min
    check_bits(h, [x, y], "int32")
    wrapped = (x.astype(np.int64) @ y.astype(np.int64)) % 2**32
    got = runtime_matrix.call(h, (x, y), {})
    np.testing.assert_array_equal(got.view(np.uint32), wrapped.astype(np.uint32))


@pytest.mark.parametrize(("qualname", "scalars"), [
    ("matrix_ops/linear", {}), ("matrix_ops/linear_relu", {}), ("matrix_ops/bmm", {}),
    ("matrix_ops/addmm", {"beta": 0.5, "alpha": -2.0})])
def test_the_other_kernels_at_rung_2(qualname, scalars):
    h = handle(qualname, 2)
    rng = np.random.default_rng(3)
    for m, n, k in [(16, 16, 16), (37, 70, 45), (33, 17, 1)]:
        check_bits(h, operands(qualname, m, n, k, rng), **scalars)


def test_k_zero_and_empty_results():
    mm = handle("matrix_ops/mm", 2)
    got = runtime_matrix.call(mm, (np.zeros((3, 0), np.float32), np.zeros((0, 4), np.float32)),
                              {})
    np.testing.assert_array_equal(got.view(np.uint32), np.zeros((3, 4), np.uint32))  # +0
    addmm = handle("matrix_ops/addmm", 2)
    z = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = runtime_matrix.call(addmm, (np.zeros((3, 0), np.float32),
                                      np.zeros((0, 4), np.float32), z), {"beta": 2.0})
    np.testing.assert_array_equal(got, 2 * z)  # beta * z + alpha * (+0)
    for x, y in [((0, 5), (5, 4)), ((3, 5), (5, 0)), ((0, 0), (0, 0))]:
        got = runtime_matrix.call(mm, (np.ones(x, np.float32), np.ones(y, np.float32)), {})
        assert got.shape == (x[0], y[1])
        assert mm.last_call is not None and mm.last_call.compute_units == 0  # none started


def test_strided_and_transposed_operands_are_read_in_index_order():
    mm = handle("matrix_ops/mm", 2)
    linear = handle("matrix_ops/linear", 2)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((20, 30)).astype(np.float32)
    w = rng.standard_normal((25, 30)).astype(np.float32)
    b = rng.standard_normal(25).astype(np.float32)
    # x @ w.T: the linear kernel reads w as it is (mk,nk->mn); mm gathers the view.
    on_linear = runtime_matrix.call(linear, (x, w, np.zeros(25, np.float32)), {})
    on_mm = runtime_matrix.call(mm, (x, w.T), {})
    np.testing.assert_array_equal(on_mm + 0.0, on_linear)
    check_bits(mm, [x[::2, ::3], w.T[::3, :]])
    check_bits(linear, [x, w, b])


def test_device_arrays_are_read_in_place_and_results_kept():
    linear = handle("matrix_ops/linear", 2)
    dev = linear.device
    rng = np.random.default_rng(5)
    x = rng.standard_normal((9, 12)).astype(np.float32)
    w = dev.upload(rng.standard_normal((7, 12)).astype(np.float32))
    b = dev.upload(rng.standard_normal(7).astype(np.float32))
    before = dev.transfers.copy()
    out = runtime_matrix.call(linear, (x, w, b), {}, resident=True)
    moved = dev.transfers - before
    assert (moved.to_device, moved.from_device) == (1, 0)  # x only; the result stays
    assert out.shape == (9, 7)
    want = contract(linear.kernel, "float32", {"x": x, "weight": w.to_numpy(),
                                               "bias": b.to_numpy()})
    np.testing.assert_array_equal(out.to_numpy(), want)


def test_the_model_refuses_buffers_smaller_than_the_sizes():
    """The sw_emu model maps each pointer over the product of its indices' sizes: a
    buffer that holds less is an error naming the argument, not a read past it."""
    mm = handle("matrix_ops/mm", 2)
    plan_ = mm.variant("float32").plan
    ones = np.ones((64, 64), np.float32)
    prepared = runtime_matrix.prepare(plan_, 1, [ones, ones],
                                      runtime_matrix.Sizes(1, 64, 64, 64), {})
    prepared.shares[0].inputs[1] = host.aligned_zeros(16 * 64, np.float32)
    with pytest.raises(EmulationError, match="argument y: read of 16384 bytes"):
        mm.target("float32").run(prepared)


@pytest.mark.parametrize(("qualname", "shapes", "message"), [
    ("matrix_ops/mm", [(2, 3), (4, 5)],
     r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
    ("matrix_ops/bmm", [(2, 3, 4), (3, 4, 5)], r"batch sizes differ"),
    ("matrix_ops/mm", [(2, 3, 1), (3, 5)], r"expected operands of 2 and 2 dimensions"),
    ("matrix_ops/linear", [(2, 3), (4, 3), (5,)], r"bias has shape \(5,\)"),
])
def test_operands_that_do_not_fit_are_refused_in_torch_words(qualname, shapes, message):
    h = handle(qualname, 2)
    arrays = tuple(np.ones(s, np.float32) for s in shapes)
    with pytest.raises(UsageError, match=message):
        runtime_matrix.call(h, arrays, {})


def test_dtype_mismatch_and_unknown_dtype_are_refused():
    h = handle("matrix_ops/mm", 2)
    with pytest.raises(UsageError, match="different dtypes"):
        runtime_matrix.call(h, (np.ones((2, 2), np.float32), np.ones((2, 2), np.int32)), {})
    with pytest.raises(UsageError, match="float64 is not supported"):
        runtime_matrix.call(h, (np.ones((2, 2)), np.ones((2, 2))), {})


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("rung", RUNGS)
@pytest.mark.parametrize("qualname", ["matrix_ops/mm", "matrix_ops/bmm", "matrix_ops/addmm",
                                      "matrix_ops/linear", "matrix_ops/linear_relu"])
def test_every_kernel_rung_and_dtype_sweep(qualname, rung, dtype):
    h = handle(qualname, rung, dtype)
    rng = np.random.default_rng(rung)
    scalars = {"beta": 3, "alpha": -2} if qualname.endswith("addmm") else {}
    for m, n, k in [*SHAPES, (0, 4, 5), (4, 5, 0), (1, 1, 4096)]:
        check_bits(h, operands(qualname, m, n, k, rng, dtype), dtype, **scalars)
    if dtype == "float32":
        check_bits(h, [special(rng, s) for s in (
            [runtime_matrix.shape_of(h.kernel, name, runtime_matrix.Sizes(2, 50, 40, 130))
             for name in h.kernel.inputs])], **scalars)


@pytest.mark.parametrize("target", ["sw_emu", pytest.param("hw_emu", marks=pytest.mark.slow)])
def test_a_kernel_handle_calls_a_contraction_as_the_readme_shows(target):
    """device.kernel(...)(x, w, b) on a contraction, as on any kernel: bit for bit the
    reference on sw_emu, and on hw_emu (the RTL kernel) too."""
    rng = np.random.default_rng(11)
    device = open_plans([plan(LIBRARY.get("matrix_ops/linear"), 4, "float32")], target)
    x, w, b = operands("matrix_ops/linear", 37, 41, 70, rng)
    got = device.kernel("matrix_ops/linear")(x, w, b)
    want = contract(LIBRARY.get("matrix_ops/linear"), "float32", {"x": x, "weight": w, "bias": b})
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.slow
@pytest.mark.parametrize("rung", [2, 3, 4])
def test_hw_emu_gives_the_reference_bits_on_a_large_odd_product(rung):
    """The RTL kernel (hw_emu) on 197 x 200 x 301, more than one block every way, and on
    special values: bit for bit the reference, as sw_emu and C simulation."""
    rng = np.random.default_rng(rung)
    device = open_plans([plan(LIBRARY.get("matrix_ops/mm"), rung, "float32")], "hw_emu")
    h = device.kernel("matrix_ops/mm")
    check_bits(h, operands("matrix_ops/mm", 197, 200, 301, rng))
    specials = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e-45, 3e38, -1.5], np.float32)
    check_bits(h, [rng.choice(specials, (9, 13)), rng.choice(specials, (13, 7))])


def test_compute_units_have_buffers_of_their_own():
    """On a card each CU's buffers sit in its own memory banks: at rung 3 each CU gets a
    slab of the output's rows in whole 32-row tiles, its own copy of A's rows and its
    own output buffer (B whole), and its m register is its slab's rows."""
    mm = handle("matrix_ops/mm", 3)
    a, b = np.ones((100, 8), np.float32), np.ones((8, 5), np.float32)
    call = runtime_matrix.prepare(mm.variant("float32").plan, 4, [a, b],
                                  runtime_matrix.Sizes(1, 100, 5, 8), {})
    assert [(s.sizes or {})["m"] for s in call.shares] == [32, 32, 32, 4]
    assert all((s.sizes or {})["units"] == 1 for s in call.shares)
    outputs = {id(s.output) for s in call.shares} | {id(call.output)}
    assert len(outputs) == 5
    assert len({id(s.inputs[0]) for s in call.shares}) == 4
    assert call.shares[0].inputs[0].size >= 32 * 8
