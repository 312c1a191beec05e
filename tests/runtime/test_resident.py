"""DeviceArrays (runtime/resident.py): results kept in device memory and passed to the next
kernel without a copy, on the emulated devices; every host <-> device copy counted."""

from __future__ import annotations

import numpy as np
import pytest
from runtime_support import variant

import fpgakern.runtime as rt
from fpgakern.errors import UsageError
from fpgakern.runtime import shaped
from fpgakern.runtime.resident import DeviceArray, Transfers

F32 = np.float32


@pytest.fixture(scope="module")
def dev():
    """add, relu, softmax, layer_norm, batch_norm and row_sum at rung 4 (16 lanes), sum at
    rung 3 (4 CUs)."""
    return rt.open_plans([variant("binary_ops/add", 4, "float32"),
                          variant("unary_ops/relu", 4, "float32"),
                          variant("nn_ops/softmax", 4, "float32"),
                          variant("nn_ops/layer_norm", 4, "float32"),
                          variant("nn_ops/batch_norm", 4, "float32"),
                          variant("nn_ops/row_sum", 4, "float32"),
                          variant("reduce_ops/sum", 3, "float32")], "sw_emu")


@pytest.fixture(scope="module")
def multi_cu():
    return rt.open_plans([variant("binary_ops/add", 3, "float32")], "sw_emu")


def bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32)


def words(n: int) -> int:
    """Bytes of n float32 elements in whole rung-4 words (at least one)."""
    return max(-(-n // 16), 1) * 64


def traffic(dev, before: Transfers) -> tuple[int, int, int, int]:
    t = dev.transfers - before
    return t.to_device, t.to_device_bytes, t.from_device, t.from_device_bytes


@pytest.mark.parametrize("n", [0, 1, 17, 1000])
def test_chain_through_device_arrays_gives_the_numpy_path_bits(dev, n):
    add, relu = dev.kernel("binary_ops/add"), dev.kernel("unary_ops/relu")
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal((2, n)).astype(F32)
    before = dev.transfers.copy()
    s = add(a, b, alpha=0.5)
    assert traffic(dev, before) == (2, 2 * (-(-n // 16) * 64), 1, 4 * n)
    want = relu(s)
    before = dev.transfers.copy()
    kept = relu(add(a, b, alpha=0.5, resident=True), resident=True)
    assert isinstance(kept, DeviceArray) and kept.shape == (n,) and kept.dtype == F32
    assert kept.device is dev and kept.pitch == n and kept.contiguous
    assert traffic(dev, before) == (2, 2 * (-(-n // 16) * 64), 0, 0)  # nothing came back
    got = kept.to_numpy()
    assert traffic(dev, before) == (2, 2 * (-(-n // 16) * 64), 1, 4 * n)
    np.testing.assert_array_equal(bits(got), bits(want))


def test_upload_counts_and_reads_back(dev):
    x = np.arange(17, dtype=F32)
    before = dev.transfers.copy()
    d = dev.upload(x)
    assert traffic(dev, before) == (1, 128, 0, 0)  # 17 elements: two 64-byte words
    assert d.buffer.ctypes.data % 4096 == 0 and d.buffer.size == 32
    assert not d.buffer[17:].any()  # zero-padded
    assert d.nbytes == 68 and d.size == 17 and d.ndim == 1
    y = d.to_numpy()
    assert traffic(dev, before) == (1, 128, 1, 68)
    np.testing.assert_array_equal(y, x)
    y[0] = 5  # a copy: the device memory is untouched
    assert d.buffer[0] == 0
    assert str(dev.transfers - before) == "1 to device (128 B), 1 from device (68 B)"


def test_transfers_arithmetic_and_str():
    t = Transfers(3, 1536, 1, 4)
    assert str(t) == "3 to device (1.5 KiB), 1 from device (4 B)"
    c = t.copy()
    c.sent(1024)
    assert c - t == Transfers(1, 1024, 0, 0) and t == Transfers(3, 1536, 1, 4)
    assert str(Transfers(0, 3 << 20, 0, 0)) == "0 to device (3.0 MiB), 0 from device (0 B)"


def test_upload_pitched_and_odd_shapes(dev):
    x = np.arange(15, dtype=F32).reshape(3, 5)
    d = dev.upload(x, pitch=8)
    assert d.pitch == 8 and not d.contiguous and d.buffer.size == 32
    assert d.buffer.reshape(-1, 8)[1, 0] == 5 and d.buffer[5:8].tolist() == [0, 0, 0]
    before = dev.transfers.copy()
    np.testing.assert_array_equal(d.to_numpy(), x)
    assert traffic(dev, before) == (0, 0, 1, 3 * 8 * 4)  # the rows with their padding
    for shape in [(), (0,), (4, 0), (0, 3), (1, 1)]:
        a = np.arange(int(np.prod(shape)), dtype=F32).reshape(shape)
        back = dev.upload(a).to_numpy()
        assert back.shape == shape
        np.testing.assert_array_equal(back, a)
    with pytest.raises(UsageError, match=r"pitch=4 must be an int of at least the last "):
        dev.upload(x, pitch=4)
    with pytest.raises(UsageError, match="upload takes a numpy array, got list"):
        dev.upload([1.0])  # type: ignore[arg-type]


def test_flat_kernel_takes_a_device_array_of_any_shape(dev):
    add = dev.kernel("binary_ops/add")
    x = np.random.default_rng(1).standard_normal((4, 5)).astype(F32)
    d = dev.upload(x)
    before = dev.transfers.copy()
    out = add(d, x.ravel())  # a DeviceArray's element count is n; the result its shape
    assert out.shape == (4, 5)
    assert traffic(dev, before) == (1, 128, 1, 80)  # the numpy 20 copied in as 32
    np.testing.assert_array_equal(bits(out), bits(add(x.ravel(), x.ravel()).reshape(4, 5)))
    kept = add(d, d, resident=True)
    assert isinstance(kept, DeviceArray) and kept.shape == (4, 5)
    # A numpy first input gives its own (1-D) shape.
    assert add(x.ravel(), d).shape == (20,)


def test_a_pitched_array_is_laid_out_again_for_a_flat_kernel(dev):
    relu = dev.kernel("unary_ops/relu")
    x = np.random.default_rng(2).standard_normal((3, 5)).astype(F32)
    d = dev.upload(x, pitch=16)
    before = dev.transfers.copy()
    out = relu(d)
    # Through the host: read the rows (3 x 16), copy 15 elements in (one word), read back.
    assert traffic(dev, before) == (1, 64, 2, 3 * 16 * 4 + 60)
    np.testing.assert_array_equal(out, np.maximum(x, 0))


def test_row_kernel_relays_a_contiguous_array_with_a_counted_round_trip(dev):
    softmax = dev.kernel("nn_ops/softmax")
    p = dev.variants["softmax_f32"].plan
    x = np.random.default_rng(3).standard_normal((5, 20)).astype(F32)
    assert shaped.pitch(p, 20) == 32
    want = softmax(x)
    d = dev.upload(x)
    before = dev.transfers.copy()
    got = softmax(d)
    # Read 5 x 20, copy 5 rows at pitch 32 in, read the result's rows at pitch 32.
    assert traffic(dev, before) == (1, 5 * 32 * 4, 2, 5 * 20 * 4 + 5 * 32 * 4)
    np.testing.assert_array_equal(bits(got), bits(want))
    # At the kernel's pitch: read in place; the result stays at that pitch.
    d32 = dev.upload(x, pitch=32)
    before = dev.transfers.copy()
    kept = softmax(d32, resident=True)
    assert isinstance(kept, DeviceArray) and kept.shape == (5, 20) and kept.pitch == 32
    again = softmax(kept, resident=True)  # a row map's result feeds the next in place
    assert traffic(dev, before) == (0, 0, 0, 0)
    np.testing.assert_array_equal(bits(kept.to_numpy()), bits(want))
    np.testing.assert_array_equal(bits(again.to_numpy()), bits(softmax(want)))
    # One row needs no pitch: a contiguous (20,) array is read in place.
    before = dev.transfers.copy()
    one = softmax(dev.upload(x[0]), resident=True)
    assert traffic(dev, before)[::2] == (1, 0)
    np.testing.assert_array_equal(bits(one.to_numpy()), bits(want[0]))


def test_row_kernel_tables_and_contiguous_results_into_a_flat_kernel(dev):
    layer_norm, relu = dev.kernel("nn_ops/layer_norm"), dev.kernel("unary_ops/relu")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 7)).astype(F32)
    w, b = rng.standard_normal((2, 7)).astype(F32)
    want = relu(layer_norm(x, w, b, eps=1e-5).ravel())
    dw, db, dx = dev.upload(w), dev.upload(b), dev.upload(x, pitch=16)
    before = dev.transfers.copy()
    kept = layer_norm(dx, dw, db, eps=1e-5, resident=True)
    assert traffic(dev, before) == (0, 0, 0, 0) and kept.pitch == 16
    # relu reads contiguous elements: the pitched rows go through the host.
    got = relu(kept)
    assert traffic(dev, before) == (1, 64 * 2, 2, 3 * 16 * 4 + 21 * 4)
    assert got.shape == (3, 7)
    np.testing.assert_array_equal(bits(got.ravel()), bits(want))


def test_broadcast_and_row_reduction_keep_contiguous_results(dev):
    batch_norm, row_sum = dev.kernel("nn_ops/batch_norm"), dev.kernel("nn_ops/row_sum")
    relu = dev.kernel("unary_ops/relu")
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 5)).astype(F32)
    mean, weight, bias = rng.standard_normal((3, 3)).astype(F32)
    var = rng.random(3).astype(F32) + 0.5
    want = batch_norm(x, mean, var, weight, bias, eps=1e-5)
    arrays = [dev.upload(t) for t in (x, mean, var, weight, bias)]
    before = dev.transfers.copy()
    kept = batch_norm(*arrays, eps=1e-5, resident=True)
    assert kept.shape == (2, 3, 5) and kept.contiguous
    out = relu(kept, resident=True)  # contiguous: read in place by a flat kernel
    assert out.shape == (2, 3, 5) and traffic(dev, before) == (0, 0, 0, 0)
    np.testing.assert_array_equal(bits(out.to_numpy()), bits(np.maximum(want, 0)))
    r = rng.standard_normal((3, 20)).astype(F32)
    sums = row_sum(dev.upload(r, pitch=32), resident=True)
    assert sums.shape == (3,) and sums.pitch == 3
    np.testing.assert_array_equal(bits(sums.to_numpy()), bits(row_sum(r)))


def test_reduction_returns_numpy_and_counts_its_partials(dev):
    total = dev.kernel("reduce_ops/sum")
    x = np.random.default_rng(5).standard_normal(1000).astype(F32)
    want = total(x)
    d = dev.upload(x)
    before = dev.transfers.copy()
    got = total(d, resident=True)  # the CUs' partials are merged on the host
    assert isinstance(got, np.ndarray) and got.shape == ()
    assert traffic(dev, before) == (0, 0, 1, 4 * 4)  # 4 CUs, one float32 partial each
    np.testing.assert_array_equal(bits(got), bits(want))
    before = dev.transfers.copy()
    empty = total(dev.upload(np.zeros(0, F32)))
    assert empty == 0 and traffic(dev, before) == (1, 64, 1, 0)  # no CU ran


def test_multi_cu_shares_are_views_of_one_device_array(multi_cu):
    add = multi_cu.kernel("binary_ops/add")
    target = add.target("float32")
    assert target.compute_units == 4
    seen = []
    run = target.run
    target.run = lambda prepared: (seen.append(prepared), run(prepared))[1]
    try:
        x = np.arange(1000, dtype=F32)
        d = multi_cu.upload(x)
        before = multi_cu.transfers.copy()
        kept = add(d, d, resident=True)
        assert traffic(multi_cu, before) == (0, 0, 0, 0)
    finally:
        del target.run
    (prepared,) = seen
    assert len(prepared.shares) == 4
    start = d.buffer.ctypes.data
    for share in prepared.shares:
        for buf in share.inputs:
            assert buf.base is d.buffer.base and np.shares_memory(buf, d.buffer)
        assert np.shares_memory(share.output, kept.buffer)
    assert [s.inputs[0].ctypes.data - start for s in prepared.shares] == \
        [cu * 250 * 4 for cu in range(4)]
    np.testing.assert_array_equal(kept.to_numpy(), 2 * x)


def test_rung_2_result_is_read_in_place_by_a_rung_4_kernel():
    dev = rt.open_plans([variant("binary_ops/add", 2, "float32"),
                         variant("unary_ops/relu", 4, "float32")], "sw_emu")
    x = np.random.default_rng(6).standard_normal(17).astype(F32)
    before = dev.transfers.copy()
    kept = dev.kernel("binary_ops/add")(x, x, resident=True)
    assert kept.buffer.size % 16 == 0  # whole 512-bit words, whatever the rung
    out = dev.kernel("unary_ops/relu")(kept)
    assert traffic(dev, before) == (2, 2 * 17 * 4, 1, 17 * 4)
    np.testing.assert_array_equal(out, np.maximum(2 * x, 0))


def test_wrong_device_dtype_and_shape_are_one_line_usage_errors(dev, multi_cu):
    add = dev.kernel("binary_ops/add")
    x = np.ones(8, F32)
    cases = [
        ((multi_cu.upload(x), x), "a is a DeviceArray of another device"),
        ((x, dev.upload(np.ones(8, np.int32))), "inputs have different dtypes"),
        ((dev.upload(np.ones(9, F32)), x), "inputs have different lengths"),
    ]
    for arrays, message in cases:
        with pytest.raises(UsageError, match=message) as info:
            add(*arrays)
        assert "\n" not in str(info.value)
    softmax = dev.kernel("nn_ops/softmax")
    with pytest.raises(UsageError, match=r"does not fit \(\*, D\)"):
        softmax(dev.upload(np.ones((), F32)))
    layer_norm = dev.kernel("nn_ops/layer_norm")
    xs = np.ones((2, 7), F32)
    with pytest.raises(UsageError, match=r"weight has shape \(6,\)"):
        layer_norm(dev.upload(xs, pitch=16), dev.upload(np.ones(6, F32)), np.ones(7, F32))
    with pytest.raises(UsageError, match="resident must be True or False"):
        add(x, x, resident="yes")  # type: ignore[call-overload]


@pytest.mark.parametrize("target", ["hw_emu"])
def test_chain_on_hw_emu_multi_cu(target):
    """add at rung 3 (4 CUs) on hw_emu: the Verilator model reads the result of the
    previous call where it lies."""
    dev = rt.open_plans([variant("binary_ops/add", 3, "float32")], target)
    add = dev.kernel("binary_ops/add")
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((2, 999)).astype(F32)
    want = add(add(a, b), b, alpha=2.0)
    before = dev.transfers.copy()
    got = add(add(a, b, resident=True), dev.upload(b), alpha=2.0, resident=True)
    assert traffic(dev, before) == (3, 2 * 999 * 4 + 1008 * 4, 0, 0)
    assert add.last_call is not None and add.last_call.cycles
    np.testing.assert_array_equal(bits(got.to_numpy()), bits(want))


def test_transform_reads_device_arrays_back_and_refuses_resident():
    dev = rt.open_plans([variant("spectral_ops/fft", 2, "complex64")], "sw_emu")
    fft = dev.kernel("spectral_ops/fft")
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((3, 8)) + 1j * rng.standard_normal((3, 8))).astype(np.complex64)
    want = fft(x)
    d = dev.upload(x)
    before = dev.transfers.copy()
    got = fft(d)  # read back (counted), then copied in as a numpy input
    assert traffic(dev, before) == (1, 3 * 8 * 8, 2, 2 * 3 * 8 * 8)
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
    with pytest.raises(UsageError, match="resident=True is not supported for transforms"):
        fft(d, resident=True)
