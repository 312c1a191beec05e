"""The host's side of shaped kernels (runtime/shaped.py) against the hardware contract.

Each compute unit's share is computed here the way the contract says the kernel computes
it (element e of a broadcast share in channel (channel0 + e // inner) % channels; rows of
``cols`` elements at the rung's pitch, padding not to be relied on), with the numpy
oracle; the host's splitting, padding and stripping must then give the oracle's answer
for the whole tensors, bit for bit, on every rung's lanes and compute units. The kernels
themselves run in test_shaped_kernels.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from runtime_support import LIBRARY

from fpgakern.errors import UsageError
from fpgakern.ir import shapes
from fpgakern.ladder import plan
from fpgakern.runtime import open_plans, shaped
from fpgakern.verify import reference

RNG = np.random.default_rng(15)


def _tensors(qualname: str, main_shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    kernel = LIBRARY.get(qualname)
    lay = kernel.layout
    assert lay is not None
    return {name: RNG.standard_normal(shapes.operand_shape(name, lay, main_shape))
            .astype(np.float32) + (2.0 if "var" in name else 0.0)
            for name in kernel.inputs}


def _run_contract(p, prepared: shaped.host.Prepared, scalars: dict[str, float]) -> None:
    """Every share computed as the contract says the kernel computes it."""
    kernel = p.kernel
    lay = kernel.layout
    for share in prepared.shares:
        size = share.sizes
        assert size is not None
        share.output[:] = np.nan  # what the kernel leaves there is no one's business
        if kernel.kind == "broadcast":
            n, inner, channels = size["n"], size["inner"], size["channels"]
            assert n % inner == 0, "a share is whole channel runs"
            runs = n // inner
            which = (size["channel0"] + np.arange(runs)) % channels
            tensors = {}
            for name, buf in zip(kernel.inputs, share.inputs, strict=True):
                tensors[name] = (buf[:channels][which] if name in lay.channel_inputs
                                 else buf[:n].reshape(1, runs, inner))
            out = reference.shaped_expected(kernel, "float32", tensors, scalars)
            share.output[:n] = out.ravel()
            continue
        rows, cols = size["rows"], size["cols"]
        pitch = shaped.pitch(p, cols)
        tensors = {name: buf[:cols] if name in lay.channel_inputs
                   else buf[:rows * pitch].reshape(rows, pitch)[:, :cols]
                   for name, buf in zip(kernel.inputs, share.inputs, strict=True)}
        out = reference.shaped_expected(kernel, "float32", tensors, scalars)
        if kernel.kind == "row_reduction":
            share.output[:rows] = out
        else:
            share.output[:rows * pitch].reshape(rows, pitch)[:, :cols] = out


BROADCAST_SHAPES = [(8, 4), (2, 3, 5), (4, 16, 33), (2, 3, 4, 5), (1, 7), (3, 1, 1)]
ROW_SHAPES = [(1, 7), (5, 33), (3, 2, 17), (16,), (4, 1), (2, 3, 16)]
RUNGS = [2, 3, 4, 5]


@pytest.mark.parametrize("rung", RUNGS)
@pytest.mark.parametrize(("qualname", "main_shape"), [
    *(("nn_ops/batch_norm", s) for s in BROADCAST_SHAPES),
    *(("nn_ops/bias_add", s) for s in BROADCAST_SHAPES[:3]),
    *((q, s) for q in ("nn_ops/softmax", "nn_ops/layer_norm", "nn_ops/rms_norm")
      for s in ROW_SHAPES),
    # A row reduction's results are contiguous, and rows of no element still have one.
    *((q, s) for q in ("nn_ops/row_sum", "nn_ops/row_mean") for s in [*ROW_SHAPES, (4, 0)]),
])
def test_host_split_and_layout_give_the_oracle(qualname, main_shape, rung):
    kernel = LIBRARY.get(qualname)
    p = plan(kernel, rung, "float32")
    tensors = _tensors(qualname, main_shape)
    scalars = {s.name: s.default for s in kernel.scalars}
    arrays = [tensors[n] for n in kernel.inputs]
    checked, shape = shaped.check_inputs(kernel, tuple(arrays), qualname)
    prepared = shaped.prepare(p, p.placement.compute_units, checked, shape, {})
    for share in prepared.shares:
        for buf in [*share.inputs, share.output]:
            # Every buffer starts on a memory word, as the kernel's ports read them.
            assert buf.ctypes.data % (p.arch.port_bits // 8) == 0
    _run_contract(p, prepared, scalars)
    got = shaped.finish(prepared)
    want = reference.shaped_expected(kernel, "float32", tensors, scalars)
    assert got.shape == want.shape == shapes.operand_shape(kernel.output, kernel.layout,
                                                           main_shape)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_multi_cu_broadcast_splits_at_channel_runs():
    kernel = LIBRARY.get("nn_ops/batch_norm")
    p = plan(kernel, 3, "float32")
    assert p.placement.compute_units > 1
    tensors = _tensors("nn_ops/batch_norm", (3, 5, 7))
    checked, shape = shaped.check_inputs(kernel, tuple(tensors.values()), "t")
    prepared = shaped.prepare(p, p.placement.compute_units, checked, shape, {})
    firsts = np.cumsum([0] + [s.sizes["n"] for s in prepared.shares])[:-1]
    assert len(prepared.shares) == p.placement.compute_units
    for first, share in zip(firsts, prepared.shares, strict=True):
        assert first % 7 == 0 and share.sizes["n"] % 7 == 0
        assert share.sizes["channel0"] == (first // 7) % 5
        assert share.sizes["inner"] == 7 and share.sizes["channels"] == 5


def test_row_pitch_pads_rows_to_whole_words():
    kernel = LIBRARY.get("nn_ops/softmax")
    p = plan(kernel, 4, "float32")
    x = np.arange(3 * 17, dtype=np.float32).reshape(3, 17)
    checked, shape = shaped.check_inputs(kernel, (x,), "t")
    prepared = shaped.prepare(p, 1, checked, shape, {})
    (share,) = prepared.shares
    assert share.sizes == {"rows": 3, "cols": 17}
    assert shaped.pitch(p, 17) == 32
    assert share.inputs[0].reshape(3, 32)[1, 0] == 17  # row 1 starts at element 32


def test_empty_tensors_start_no_cu_and_keep_their_shape():
    for qualname, shape in [("nn_ops/batch_norm", (0, 3)), ("nn_ops/batch_norm", (2, 3, 0)),
                            ("nn_ops/softmax", (0, 5)), ("nn_ops/softmax", (4, 0))]:
        kernel = LIBRARY.get(qualname)
        p = plan(kernel, 4, "float32")
        tensors = _tensors(qualname, shape)
        checked, main = shaped.check_inputs(kernel, tuple(tensors.values()), qualname)
        prepared = shaped.prepare(p, 1, checked, main, {})
        assert not prepared.shares
        assert shaped.finish(prepared).shape == shape


@pytest.mark.parametrize(("qualname", "arrays", "message"), [
    ("nn_ops/batch_norm", [(2, 3), (4,), (3,), (3,), (3,)],
     r"running_mean has shape \(4,\); beside x of shape \(2, 3\) it must be \(3,\)"),
    ("nn_ops/batch_norm", [(5,), (5,), (5,), (5,), (5,)], r"does not fit \(N, C, \*\)"),
    ("nn_ops/batch_norm", [(1, 5000), (5000,), (5000,), (5000,), (5000,)],
     "5000 channels; the kernel keeps at most 4096"),
    ("nn_ops/softmax", [(2, 5000)], "rows of 5000 elements; the kernel keeps at most 4096"),
    ("nn_ops/layer_norm", [(2, 5), (5,), (4,)], r"bias has shape \(4,\)"),
    ("nn_ops/softmax", [()], r"does not fit \(\*, D\)"),
])
def test_wrong_shapes_are_one_line_usage_errors(qualname, arrays, message):
    kernel = LIBRARY.get(qualname)
    device = open_plans([plan(kernel, 2, "float32")], "sw_emu")
    handle = device.kernel(qualname)
    with pytest.raises(UsageError, match=message) as info:
        handle(*(np.zeros(s, dtype=np.float32) for s in arrays))
    assert "\n" not in str(info.value)


def test_wrong_dtype_and_strides_are_usage_errors():
    kernel = LIBRARY.get("nn_ops/softmax")
    handle = open_plans([plan(kernel, 2, "float32")], "sw_emu").kernel("nn_ops/softmax")
    with pytest.raises(UsageError, match="dtype float64 is not supported"):
        handle(np.zeros((2, 3)))
    with pytest.raises(UsageError, match="not contiguous"):
        handle(np.zeros((3, 4), dtype=np.float32).T)
