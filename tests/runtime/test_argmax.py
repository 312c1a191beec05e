"""argmax and argmin, the index reductions, against torch.argmax/argmin (torch 2.13 CPU):
through the Python runtime at rung 3 (4 compute units, whose picks the host combines) and
through torch.ops.fpgakern at rung 4 (16 lanes), both on sw_emu. The cases hang on the
pick's rules: ties (all equal; the extreme repeated across CU shares and vector lanes),
NaN (the first wins, also in a later CU share than an infinity), +-inf, -0 == +0, the
int32 extremes and odd sizes (1, 3, 17, not multiples of 16 or of the CU count). Empty
inputs raise torch's IndexError; dim=, keepdim=True, float64 and int64 run torch, with
the reason."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from runtime_support import device_for, variant

torch = pytest.importorskip("torch")

import fpgakern.runtime.torch_ops as fk_torch  # noqa: E402
from fpgakern.errors import UsageError  # noqa: E402
from fpgakern.runtime import open_plans  # noqa: E402

NAMES = ("argmax", "argmin")
NAN, INF = np.float32("nan"), np.float32("inf")
I32 = np.iinfo(np.int32)


def _cases(dtype: str) -> list[np.ndarray]:
    rng = np.random.default_rng(14)
    if dtype == "float32":
        x = rng.standard_normal(100).astype(np.float32)
        tied = x.copy()
        tied[[70, 40, 99, 17]] = [9.0, 9.0, 9.0, -9.0]  # CU shares 1, 2, 3; lane 8 of beat 2
        tied[[33, 66]] = -9.0
        nan_late = x.copy()
        nan_late[[5, 6, 90, 70]] = [INF, -INF, NAN, -NAN]  # the first NaN in share 2
        special = [tied, nan_late, np.full(37, 2.5, np.float32),
                   np.array([-0.0, 0.0, -0.0, 0.0], np.float32),
                   np.array([0.0, -0.0], np.float32),
                   np.array([-INF, -INF, INF, INF, -INF], np.float32),
                   np.array([NAN], np.float32), np.array([1.0, NAN, NAN], np.float32)]
    else:
        x = rng.integers(-1000, 1000, 100).astype(np.int32)
        tied = x.copy()
        tied[[70, 40, 99]] = I32.max
        tied[[17, 33, 66]] = I32.min
        special = [tied, np.full(37, -4, np.int32),
                   np.array([I32.min, I32.max, I32.min, I32.max], np.int32)]
    sizes = [rng.standard_normal(n).astype(np.float32) if dtype == "float32"
             else rng.integers(-5, 5, n).astype(np.int32) for n in (1, 3, 17, 33, 1001)]
    return [*special, *sizes]


# One model build each: argmax float32 by default (NaN and ties across the CUs' shares),
# the others with -m slow (the host's combine is the same Python for all four).
@pytest.mark.parametrize(("name", "dtype"), [
    ("argmax", "float32"), pytest.param("argmin", "float32", marks=pytest.mark.slow),
    pytest.param("argmax", "int32", marks=pytest.mark.slow),
    pytest.param("argmin", "int32", marks=pytest.mark.slow)])
def test_runtime_four_compute_units(name, dtype):
    qualname = f"reduce_ops/{name}"
    assert variant(qualname, 3, dtype).placement.compute_units == 4
    handle = device_for(qualname, 3, dtype, "sw_emu").kernel(qualname)
    for x in _cases(dtype):
        got = handle(x)
        want = getattr(torch, name)(torch.from_numpy(x))
        assert got.dtype == np.int64 and got.shape == ()
        assert int(got) == int(want), (x.size, int(got), int(want))
    with pytest.raises(UsageError, match="no element to pick an index of"):
        handle(np.empty(0, dtype=dtype))


@pytest.fixture(scope="module")
def vector_device():
    fk_torch.use(open_plans([variant(f"reduce_ops/{n}", 4, d) for n in NAMES
                             for d in ("float32", "int32")], "sw_emu"))
    yield
    fk_torch.use(None)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("name", NAMES)
def test_torch_op_sixteen_lanes(name, dtype, vector_device):
    op, twin = getattr(torch.ops.fpgakern, name), getattr(torch, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", fk_torch.FallbackWarning)  # the kernel answers
        for x in _cases(dtype):
            t = torch.from_numpy(x)
            got = op(t)
            assert got.dtype == torch.int64 and got.shape == ()
            assert torch.equal(got, twin(t)), (x.size, got, twin(t))
        t = torch.from_numpy(_cases(dtype)[-1][:1000]).reshape(10, 4, 25)  # any shape
        assert torch.equal(op(t), twin(t))


@pytest.mark.parametrize("name", NAMES)
def test_torch_op_empty_and_fallbacks(name, vector_device):
    op, twin = getattr(torch.ops.fpgakern, name), getattr(torch, name)
    for dtype in (torch.float32, torch.int32):
        with pytest.raises(IndexError, match=f"{name}\\(\\): Expected reduction dim"):
            op(torch.empty(0, dtype=dtype))
    x = torch.arange(12.0).reshape(3, 4)
    for kwargs, reason in [({"dim": 1}, "dim= given"), ({"keepdim": True}, "keepdim=True")]:
        with pytest.warns(fk_torch.FallbackWarning, match=reason):
            assert torch.equal(op(x, **kwargs), twin(x, **kwargs))
    # torch takes dim and keepdim by position too: argmax(x, 0), argmin(x, 1, True); the
    # fallback warns once per reason, as above
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fk_torch.FallbackWarning)
        for args in [(0,), (1, True), (None, False)]:
            assert torch.equal(op(x, *args), twin(x, *args))
    for dtype in (torch.float64, torch.int64):
        with pytest.warns(fk_torch.FallbackWarning, match=f"no {dtype} variant"):
            assert torch.equal(op(x.to(dtype)), twin(x.to(dtype)))
