"""torch.ops.fpgakern computes torch's answer or falls back with a reason; it never answers
wrong (issue 11). Every op is called in strict mode, where a fallback raises
FallbackError: a result that comes back was computed by the kernel, and is compared with
torch's own bit for bit on special values (NaN, +-inf, +-0, subnormals, INT32_MIN/MAX,
zero divisors, empty, 0-d and odd-sized tensors).

The only differences allowed are the op table's, listed in docs/runtime.md: NaN payloads,
maximum/minimum/max of zeros of opposite sign, correctly rounded sqrt, the ops the op table
bounds in ulps (exp, sigmoid, log, tanh, pow, atan2, ...) within 2 ulp, int32
INT32_MIN // -1 (where torch's CPU kernel dies of SIGFPE, so it is never called here), and
complex64 mul in torch's scalar tail (the last n % 8 elements), where the kernel keeps the
vectorized loop's answer.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from runtime_support import FLAT_KERNELS, LIBRARY, sw_library_device, torch_farther, variant

torch = pytest.importorskip("torch")

import fpgakern.runtime.torch_ops as fk_torch  # noqa: E402
from fpgakern.errors import UsageError  # noqa: E402
from fpgakern.ir import special  # noqa: E402
from fpgakern.ir.ops import OPS as OP_TABLE  # noqa: E402

# The ops whose float32 result the op table bounds in ulps rather than bits.
from fpgakern.runtime import open_plans  # noqa: E402

# A fallback that is not asked for fails the test twice over: strict mode raises, and a
# warning (where a test turns strict mode off) is an error unless the test expects it.
pytestmark = pytest.mark.filterwarnings("error::fpgakern.runtime.torch_ops.FallbackWarning")
F = torch.ops.fpgakern
I32_MIN, I32_MAX = -(2**31), 2**31 - 1
_f32 = np.finfo(np.float32)
FLOATS = torch.tensor(np.array([
    np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.0,
    _f32.max, -_f32.max, _f32.tiny, -_f32.tiny, _f32.smallest_subnormal,
    -_f32.smallest_subnormal, np.float32(_f32.tiny) - _f32.smallest_subnormal, 1e-40,
    -3.5e-39, 1e30, -1e30, 88.0, -88.0, 89.0, -104.0, 16777217.0, 8388608.5, 0.99999994,
    1.0000001, -0.75], dtype=np.float32))
INTS = torch.tensor([0, 1, -1, 2, -2, 3, -7, I32_MAX, I32_MIN, I32_MAX - 1, I32_MIN + 1,
                     0x5555_5555, -0x5555_5556, 65535, -65536, 1 << 30, -(1 << 30), 46341,
                     16777217, -16777217], dtype=torch.int32)
# complex64: every pair (re, im) of 8 float32 special values (special.KERNEL_COMPLEX64_PARTS)
COMPLEXES = torch.from_numpy(special.complex64(special.KERNEL_COMPLEX64_PARTS))
SPECIALS = {torch.float32: FLOATS, torch.int32: INTS, torch.complex64: COMPLEXES}
TORCH_COMPLEX_STEP = 8  # torch's complex64 elements per vectorized step; then a scalar tail


@pytest.fixture(autouse=True)
def strict_sw(monkeypatch):
    """Every kernel on sw_emu, strict (whatever $FPGAKERN_STRICT says)."""
    monkeypatch.delenv(fk_torch.STRICT_ENV, raising=False)
    fk_torch.use(_device(), strict=True)
    yield
    fk_torch.use(None)


_devices: list = []


def _device():
    if not _devices:
        _devices.append(sw_library_device())
    return _devices[0]


def _call(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 - errors are answers too
        return err


def _same_bits(expected, actual) -> np.ndarray:
    """Elementwise: the same bits (any NaN matching any NaN: NaN payloads are free)."""
    assert expected.dtype == actual.dtype and expected.shape == actual.shape, \
        (expected.dtype, actual.dtype, expected.shape, actual.shape)
    e = np.atleast_1d(expected.resolve_conj().numpy())  # torch.conj: a lazy view
    a = np.atleast_1d(actual.resolve_conj().numpy())
    if e.dtype.kind == "c":  # each float32 component
        parts = _same_bits(torch.from_numpy(e.view(np.float32)),
                           torch.from_numpy(a.view(np.float32)))
        return parts.reshape(*e.shape, 2).all(axis=-1)
    if e.dtype.kind != "f":
        return e == a
    raw = {4: np.uint32, 8: np.uint64}[e.itemsize]
    return (np.isnan(e) & np.isnan(a)) | (e.view(raw) == a.view(raw))


def _ulps(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    def ordered(x: np.ndarray) -> np.ndarray:
        i = x.astype(np.float32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFF_FFFF), i)
    return np.abs(ordered(expected) - ordered(actual))


def _documented(name: str, args, expected, actual, same: np.ndarray) -> np.ndarray:
    """Where ``actual`` may differ from torch's ``expected``: the op table's documented
    differences (docs/runtime.md), each checked for the op table's own answer."""
    if expected.dtype == torch.complex64 and name == "mul":
        # torch's scalar tail fuses; the kernel keeps the vectorized answer, the op
        # table's reference
        flat = same.reshape(-1)
        tail = np.arange(flat.size) >= flat.size - flat.size % TORCH_COMPLEX_STEP
        x, y = (np.ascontiguousarray(np.broadcast_to(
            np.atleast_1d(t.to(torch.complex64).numpy()), same.shape)).reshape(-1)
            for t in args)
        want = torch.from_numpy(OP_TABLE["mul"].reference(x, y))
        mine = _same_bits(want, actual.reshape(-1))
        return (flat | (tail & mine)).reshape(same.shape)
    if expected.dtype == torch.float32 and any(
            isinstance(t, torch.Tensor) and t.is_complex() for t in args):
        # complex64 -> float32: real and imag bit for bit, abs (hypot) and angle (atan2)
        # within the op table's complex64 bound (docs/runtime.md)
        kernel = LIBRARY.get(name)
        if "complex64" not in kernel.dtypes:  # torch's answer (a fallback, or 0-d/empty)
            return same
        bound = kernel.accuracy("complex64")
        if bound.kind != "ulp":
            return same
        e, a = np.atleast_1d(expected.numpy()), np.atleast_1d(actual.numpy())
        return same | (_ulps(e, a) <= bound.ulps)
    if expected.dtype != torch.float32:
        return same
    e, a = np.atleast_1d(expected.numpy()), np.atleast_1d(actual.numpy())
    if name in ("max", "min"):
        # over zeros of both signs torch's pick depends on their order; the op table's
        # maximum and minimum order -0 < +0
        zero = (e == 0) & (a == 0)
        assert (np.signbit(a[zero & ~same]) == (name == "min")).all()
        return same | zero
    if name == "clamp":
        # over zeros of opposite sign torch's pick depends on its code path (vectorized or
        # not); ours is the op table's, which orders -0 < +0 as maximum and minimum do
        x, lo, hi = (np.ascontiguousarray(np.broadcast_to(
            np.atleast_1d(t.to(torch.float32).numpy()), e.shape)) for t in args)
        want = OP_TABLE["clamp"].reference(x, lo, hi)
        zero = (e == 0) & (a == 0)
        assert (a.view(np.uint32) == want.view(np.uint32))[zero & ~same].all()
        return same | zero
    kernel = LIBRARY.get(name)
    if "float32" not in kernel.dtypes:  # conj of an empty float32 tensor: torch's answer
        return same
    bounded = kernel.accuracy("float32").kind == "ulp"  # exp, gelu, silu = x sigmoid(x)...
    if name not in ("maximum", "minimum", "sqrt") and not bounded:
        return same
    inputs = [np.broadcast_to(np.atleast_1d(t.to(torch.float32).numpy()), e.shape)
              for t in args]
    if name in ("maximum", "minimum"):
        x, y = inputs
        zeros = (x == 0) & (y == 0) & (np.signbit(x) != np.signbit(y))
        assert (np.signbit(a[zeros & ~same]) == (name == "minimum")).all()  # -0 < +0
        return same | zeros
    if name == "sqrt":
        with np.errstate(invalid="ignore"):
            exact = np.sqrt(inputs[0])
        assert (np.isnan(exact) & np.isnan(a) | (exact.view(np.uint32) == a.view(np.uint32))).all()
        return same | (_ulps(e, a) <= 1)
    return same | (_ulps(e, a) <= 2) | torch_farther(kernel, inputs, e, a)


# Fallbacks that strict mode may raise: the only calls no kernel computes exactly.
ALLOWED_FALLBACKS = {
    ("div", "floor"): "rounding_mode='floor'",
    ("sum", "int"): "int32 accumulator",
    ("sum", "into"): "into torch.int64",
    ("sum", "overflow"): "overflow a partial sum",
    ("prod", "int"): "the kernel's int32 product wraps",
    ("prod", "range"): "overflow or underflow a partial product",
    ("fmod", "quotient"): "quotient a / b overflows",
    ("remainder", "quotient"): "quotient a / b overflows",
    ("softsign", "int"): "abs(x) + 1 of integers",
    ("hardtanh", "fractional"): "a fractional scalar for the int32 kernel",
    ("addcmul", "fractional"): "a fractional scalar for the int32 kernel",
    # torch.pow of integers is integer exponentiation (in int32, wrapping); the kernel is
    # float32 only
    ("pow", "int"): "no torch.int32 variant of the kernel",
    # conj of a real tensor is the tensor itself in torch; the kernel is complex64 only
    ("conj", "real"): "variant of the kernel",
    # angle and real of a real tensor: torch's own answer (real is the tensor itself); the
    # kernels are complex64 only (imag of a real tensor is torch's error)
    ("angle", "real"): "variant of the kernel",
    ("real", "real"): "variant of the kernel",
    # complex64 kernels take real float32 scalars
    ("add", "complex"): "a complex scalar",
    ("sub", "complex"): "a complex scalar",
    ("mul_scalar", "complex"): "a complex scalar",
}
# Every op without a complex64 variant falls back on complex64 (where torch answers), and
# so does one whose real result no complex64 variant computes.
COMPLEX_FALLBACKS = ("no torch.complex64 variant of the kernel", "complex in, real out")


def _allowed(name: str, kwargs: dict, err: fk_torch.FallbackError) -> bool:
    if any(text in str(err) for text in COMPLEX_FALLBACKS) and \
            "complex64" not in LIBRARY.get(name).dtypes:
        return True
    return any(key[0] == name and text in str(err) for key, text in ALLOWED_FALLBACKS.items())


def _cases(kernel):
    """(label, tensors, options) of one op: special values alone and in every pair, odd
    sizes, 0-d, empty, both dtypes and mixed int32/float32 operands."""
    options: list[dict] = [{}]
    if kernel.name == "div":
        options += [{"rounding_mode": "trunc"}, {"rounding_mode": "floor"}]
    if kernel.name == "sum":
        options += [{"dtype": torch.int32}, {"dtype": torch.int64}, {"dtype": torch.float32}]
    if kernel.name in ("add", "sub", "rsub"):
        options += [{"alpha": 2}, {"alpha": -3}, {"alpha": 0.75}, {"alpha": 1 + 2j}]
    if kernel.name == "mul_scalar":
        options += [{"other": 2.5}, {"other": 0.0}, {"other": float("inf")}, {"other": 1j}]
    if kernel.name in ("addcmul", "addcdiv"):
        options += [{"value": 2}, {"value": -3}, {"value": 0.1}]
    if kernel.name == "hardtanh":
        options += [{"min_val": -2, "max_val": 3}, {"min_val": 0, "max_val": 0},
                    {"min_val": -0.25, "max_val": 0.75}]
    if kernel.name == "hardshrink":
        options += [{"lambd": 0}, {"lambd": 3.0}, {"lambd": 0.3}]
    for dtype, opts in itertools.product(SPECIALS, options):
        s = SPECIALS[dtype]
        if kernel.is_reduction and dtype == torch.complex64:
            s = s[::8]  # no complex reduction: every call falls back (or torch refuses)
        if len(kernel.inputs) == 2:
            a, b = (g.reshape(-1).contiguous() for g in torch.meshgrid(s, s, indexing="ij"))
            if dtype == torch.int32 and kernel.name == "div":
                keep = ~((a == I32_MIN) & (b == -1))  # torch's CPU kernel dies of SIGFPE
                a, b = a[keep], b[keep]
            yield f"{dtype} pairs", (a, b), opts
            for n in (0, 1, 3, 17):
                yield f"{dtype} n={n}", (a[:n], b[:n]), opts
            yield f"{dtype} 0-d", (a[40], b[41]), opts
            yield f"{dtype} 2-d", (a[:30].reshape(5, 6), b[:30].reshape(5, 6)), opts
            if dtype == torch.int32:
                yield "int32, float32", (a, b.float()), opts
                yield "float32, int32", (a.float(), b), opts
            if dtype == torch.complex64:  # torch promotes the float32 operand to (x, +0)
                yield "complex64, float32", (a, b.real.contiguous()), opts
                yield "float32, complex64", (a.imag.contiguous(), b), opts
        elif len(kernel.inputs) == 3:
            a, b, c = (g.reshape(-1).contiguous()
                       for g in torch.meshgrid(s, s, s, indexing="ij"))
            yield f"{dtype} triples", (a, b, c), opts
            for n in (0, 1, 3, 17):
                yield f"{dtype} n={n}", (a[:n], b[:n], c[:n]), opts
            yield f"{dtype} 0-d", (a[40], b[41], c[42]), opts
            if dtype == torch.int32:
                yield "int32, float32, int32", (a, b.float(), c), opts
        elif kernel.is_reduction:
            for i, j in itertools.product(range(len(s)), repeat=2):
                yield f"{dtype} [{s[i].item()}, {s[j].item()}]", (s[[i, j]],), opts
            for i in range(len(s)):
                yield f"{dtype} [{s[i].item()}]", (s[i:i + 1],), opts
            yield f"{dtype} all", (s,), opts
            yield f"{dtype} 0-d", (s[5],), opts
            for n in (0, 1, 2, 17, 33, 777):
                fill = -0.0 if dtype.is_floating_point else I32_MIN
                yield f"{dtype} {n} x {fill}", (torch.full((n,), fill, dtype=dtype),), opts
        else:
            yield f"{dtype} specials", (s,), opts
            for n in (0, 1, 3, 17):
                yield f"{dtype} n={n}", (s[:n],), opts
            yield f"{dtype} 0-d", (s[4],), opts
            yield f"{dtype} 2-d", (s[:15].reshape(3, 5),), opts


OPS = sorted(k.name for k in FLAT_KERNELS)  # shaped kinds: test_torch_shaped.py


@pytest.mark.parametrize("name", OPS)
def test_every_op_answers_as_torch_on_special_values(name):
    """The sweep: torch's answer bit for bit (or a documented difference), torch's error,
    or, in strict mode, a FallbackError for one of the few calls no kernel computes."""
    kernel = LIBRARY.get(name)
    ran = 0
    for label, args, opts in _cases(kernel):
        # the kernel's defaults for the scalars not given (torch.mul has none for other)
        defaults = {fk_torch.torch_keyword(kernel, s.name): s.default for s in kernel.scalars}
        theirs = _call(fk_torch.cpu_twin(kernel), *args, **{**defaults, **opts})
        ours = _call(getattr(F, name), *args, **opts)
        where = f"{name}({label}, {opts})"
        if isinstance(ours, fk_torch.FallbackError):
            assert _allowed(name, opts, ours), f"{where}: {ours}"
            continue
        if isinstance(theirs, Exception) or isinstance(ours, Exception):
            assert type(ours) is type(theirs) and str(ours) == str(theirs), \
                f"{where}: torch {theirs!r}, ours {ours!r}"
            continue
        ran += 1
        same = _same_bits(theirs, ours)
        ok = _documented(name, args, theirs, ours, same)
        assert ok.all(), f"{where}: torch {theirs.reshape(-1)[~torch.from_numpy(ok)][:4]}, " \
                         f"ours {ours.reshape(-1)[~torch.from_numpy(ok)][:4]}"
    assert ran > 0


# --------------------------------------------------------------- int32 sum -> int64


@pytest.mark.parametrize("values", [
    [I32_MIN, I32_MIN], [I32_MIN], [I32_MIN] * 3, [I32_MIN] * 17, [I32_MAX] * 33,
    [I32_MIN, -1], [-1, I32_MIN], [I32_MAX, 1], [I32_MAX, I32_MIN], [I32_MIN, I32_MAX] * 1,
    [1 << 30] * 100, [I32_MIN + 1, I32_MIN, I32_MIN], [-(1 << 30), 1 << 30, -(1 << 30)],
    [I32_MIN] * 1000 + [I32_MIN + 1],
], ids=lambda v: f"{len(v)}:{v[0]}..{v[-1]}")
def test_int_sum_is_torchs_int64_sum(values):
    """torch sums int32 into int64. The kernel's wrapping int32 sum gives it exactly once
    the result is known to lie in a window narrower than 2**32 (from min and max);
    INT32_MIN used to pass an abs()-based guard (abs(INT32_MIN) < 0 in int32)."""
    x = torch.tensor(values, dtype=torch.int32)
    for opts in ({}, {"dtype": torch.int64}):
        ours = F.sum(x, **opts)  # strict: the kernel computed it
        assert ours.dtype == torch.int64 and int(ours) == sum(values) == int(torch.sum(x))
    assert torch.equal(F.sum(x, dtype=torch.int32), torch.sum(x, dtype=torch.int32))


def test_int_sum_of_smaller_ints_and_bools():
    for x in (torch.tensor([True, False, True] * 7),
              torch.tensor([-128, 127, -128], dtype=torch.int8),
              torch.tensor([-32768] * 9, dtype=torch.int16),
              torch.tensor([255] * 5, dtype=torch.uint8)):
        assert torch.equal(F.sum(x), torch.sum(x)), x


def test_int_sum_beyond_the_window_falls_back():
    x = torch.tensor([I32_MAX, I32_MIN, 5] * 10, dtype=torch.int32)
    with pytest.raises(fk_torch.FallbackError, match="int32 accumulator"):
        F.sum(x)
    fk_torch.use(_device(), strict=False)
    with pytest.warns(fk_torch.FallbackWarning, match="int32 accumulator"):
        assert torch.equal(F.sum(x), torch.sum(x))
    rng = np.random.default_rng(11)
    small = torch.from_numpy(rng.integers(-1000, 1000, 777, dtype=np.int32))
    with warnings.catch_warnings():
        warnings.simplefilter("error", fk_torch.FallbackWarning)
        assert torch.equal(F.sum(small), torch.sum(small))


# --------------------------------------------------------------- int32 division by zero


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("mode", ["trunc", "floor"])
@pytest.mark.parametrize("n", [1, 2, 17])
def test_int_div_by_zero_raises_as_torch(mode, n, strict):
    """torch's integer trunc/floor division raises RuntimeError('ZeroDivisionError') when
    any divisor is 0; the op raises the same, before any kernel or fallback (the kernel's
    own x/0 = -1 is for the Python and C++ runtimes)."""
    fk_torch.use(_device(), strict=strict)
    a = torch.arange(n, dtype=torch.int32) - 3
    b = torch.full((n,), 3, dtype=torch.int32)
    b[n // 2] = 0
    with pytest.raises(RuntimeError) as theirs:
        torch.div(a, b, rounding_mode=mode)
    with pytest.raises(RuntimeError) as ours:
        F.div(a, b, rounding_mode=mode)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value) == "ZeroDivisionError"


MOD_OPS = ["fmod", "remainder"]


@pytest.mark.parametrize("name", MOD_OPS)
def test_int_mod_by_zero_raises_as_torch(name):
    """torch's integer fmod and remainder raise RuntimeError('ZeroDivisionError') when any
    divisor is 0, and so does the op; the kernel itself answers x % 0 = x."""
    a = torch.tensor([7, -7, 5], dtype=torch.int32)
    b = torch.tensor([3, 0, 2], dtype=torch.int32)
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        getattr(torch, name)(a, b)
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        getattr(F, name)(a, b)
    kernel = _device().kernel(f"binary_ops/{name}")
    np.testing.assert_array_equal(kernel(a.numpy(), b.numpy())[1], np.int32(-7))


@pytest.mark.parametrize("name", MOD_OPS)
def test_float_mod_whose_quotient_overflows_falls_back(name):
    """torch's vectorized float fmod gives NaN where a / b overflows float32, its scalar
    loop the exact remainder: the op runs torch itself then, and the kernel otherwise."""
    a = torch.full((32,), 1.0789525e27)
    b = torch.full((32,), -3.1285819e-34)
    assert torch.isnan(getattr(torch, name)(a, b)[:16]).all()
    assert not torch.isnan(getattr(torch, name)(a[:1], b[:1])).any()
    with pytest.raises(fk_torch.FallbackError, match="quotient a / b overflows"):
        getattr(F, name)(a, b)
    fk_torch.use(_device(), strict=False)
    with pytest.warns(fk_torch.FallbackWarning):
        assert _same_bits(getattr(torch, name)(a, b), getattr(F, name)(a, b)).all()
    fk_torch.use(_device(), strict=True)
    small = b * 1e30  # the quotient fits: the kernel runs, strict mode allows it
    assert _same_bits(getattr(torch, name)(a, small), getattr(F, name)(a, small)).all()


def test_kernel_itself_keeps_its_documented_zero_divisor_answer():
    div = _device().kernel("binary_ops/div")
    a = np.array([5, -5, 0, I32_MIN], np.int32)
    b = np.array([0, 0, 0, -1], np.int32)
    np.testing.assert_array_equal(div(a, b), np.array([-1, -1, -1, I32_MIN], np.int32))


def test_float_div_by_zero_is_ieee_as_torch():
    a = torch.tensor([1.0, -1.0, 0.0, -0.0, np.nan, np.inf])
    b = torch.tensor([0.0, 0.0, 0.0, -0.0, 0.0, -0.0])
    for opts in ({}, {"rounding_mode": "trunc"}):
        assert _same_bits(torch.div(a, b, **opts), F.div(a, b, **opts)).all()


# --------------------------------------------------------------- float sum: the sign of zero


@pytest.mark.parametrize("values", [
    [-0.0], [-0.0] * 2, [-0.0] * 16, [-0.0] * 17, [-0.0] * 33, [-0.0] * 777,
    [0.0, -0.0], [-0.0, 0.0, -0.0], [1.0, -1.0], [-1.0, 1.0, -0.0], [3e38, -3e38],
    [1e-45, -1e-45], [-1e-45, -1e-45], [1e-41] * 40, [np.nan], [np.inf], [-np.inf],
    [np.inf, -np.inf], [-np.inf, -0.0], [np.nan, -0.0], [3e38, 3e38], [-3e38, -3e38],
], ids=lambda v: f"{len(v)}:{v[0]}..{v[-1]}")
def test_float_sum_as_torch(values):
    """torch's sum starts from +0.0, so a zero sum is +0.0 whatever the zeros' signs;
    these sums are exact in any order, so every bit must be torch's."""
    x = torch.tensor(values, dtype=torch.float32)
    for opts in ({}, {"dtype": torch.float32}):
        assert _same_bits(torch.sum(x, **opts), F.sum(x, **opts)).all(), values
    assert not torch.signbit(F.sum(torch.tensor(-0.0)))  # 0-d
    ints = torch.tensor([I32_MIN, I32_MAX], dtype=torch.int32)  # float32(x) sums to +0
    assert _same_bits(torch.sum(ints, dtype=torch.float32), F.sum(ints, dtype=torch.float32)).all()


FMAX = float(_f32.max)


@pytest.mark.parametrize("values", [
    [FMAX, FMAX, -FMAX], [FMAX, -FMAX, FMAX], [FMAX, FMAX, -FMAX, -FMAX],
    [1e38] * 5 + [-1e38] * 5, [FMAX, FMAX, -np.inf], [-FMAX, 1e38, -FMAX, np.inf],
], ids=lambda v: f"{len(v)}:{v[0]}..{v[-1]}")
def test_float_sum_whose_order_may_overflow_falls_back(values):
    """Summed in torch's order these give inf, FLT_MAX, inf, 2e31, -inf, NaN...; in the
    kernel's order other values (inf where torch is finite and back): an order-dependent
    overflow is no rounding difference, so the op runs torch.sum instead."""
    x = torch.tensor(values, dtype=torch.float32)
    with pytest.raises(fk_torch.FallbackError, match="overflow"):
        F.sum(x)
    fk_torch.use(_device(), strict=False)
    with pytest.warns(fk_torch.FallbackWarning, match="overflow"):
        assert _same_bits(torch.sum(x), F.sum(x)).all()


def test_float_sum_of_large_values_that_cannot_overflow_runs():
    x = torch.tensor([1e36, -3e35] * 50 + [np.inf, 1e36])  # n * max|x| < FLT_MAX
    assert _same_bits(torch.sum(x), F.sum(x)).all()  # inf in any order
    big = torch.full((101,), 3e36)
    assert torch.isclose(F.sum(big), torch.sum(big), rtol=1e-5)


@pytest.mark.parametrize("name", OPS)
def test_empty_inputs_get_torchs_answer_without_fallback(name):
    """No elements, nothing for a kernel to do: torch's answer (empty tensor, sum's +0,
    max's error), and no FallbackError in strict mode."""
    kernel = LIBRARY.get(name)
    defaults = {fk_torch.torch_keyword(kernel, s.name): s.default for s in kernel.scalars}
    for dtype in SPECIALS:
        args = [torch.empty((0, 3), dtype=dtype) for _ in kernel.inputs]
        theirs = _call(fk_torch.cpu_twin(kernel), *args, **defaults)
        ours = _call(getattr(F, name), *args)
        if isinstance(theirs, Exception):
            assert type(ours) is type(theirs) and str(ours) == str(theirs)
        else:
            assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
            assert _same_bits(theirs, ours).all()


# --------------------------------------------------------------- torch's type promotion


@pytest.mark.parametrize("name", ["sqrt", "exp", "sigmoid"])
def test_int_inputs_run_the_float32_kernel(name):
    """torch computes sqrt/exp/sigmoid of int32 in float32 on the converted values; the op
    runs the float32 kernel on the same values (strict: no fallback), bit-identical to
    the op on x.float() and to torch on the special values."""
    op = getattr(F, name)
    rng = np.random.default_rng(5)
    random = torch.from_numpy(rng.integers(-200, 200_000, 1001, dtype=np.int32))
    for x in (INTS, INTS[:3], INTS[7], random, torch.arange(-120, 120, dtype=torch.int32)):
        ours = op(x)
        assert ours.dtype == torch.float32 and ours.shape == x.shape
        assert _same_bits(op(x.float()), ours).all()
        theirs = getattr(torch, name)(x)
        ok = _documented(name, (x,), theirs, ours, _same_bits(theirs, ours))
        assert ok.all()
    assert _same_bits(getattr(torch, name)(INTS), op(INTS)).all()


def test_mixed_int_float_operands_promote_like_torch():
    a, b = INTS.repeat_interleave(len(FLOATS)), FLOATS.repeat(len(INTS))
    for name in ("add", "sub", "mul", "div", "minimum", "maximum"):
        for x, y in ((a, b), (b, a)):
            theirs, ours = getattr(torch, name)(x, y), getattr(F, name)(x, y)
            assert ours.dtype == torch.float32
            ok = _documented(name, (x, y), theirs, ours, _same_bits(theirs, ours))
            assert ok.all(), name


def test_int_true_division_follows_the_default_dtype():
    """torch.div of integers is true division in the *default* float dtype: float64 when
    the user set it, which no kernel has (the op used to answer in float32)."""
    a = torch.tensor([1, -7, I32_MIN], dtype=torch.int32)
    b = torch.tensor([3, 2, 3], dtype=torch.int32)
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        with pytest.raises(fk_torch.FallbackError, match="float64"):
            F.div(a, b)
        fk_torch.use(_device(), strict=False)
        with pytest.warns(fk_torch.FallbackWarning, match="float64"):
            assert torch.equal(F.div(a, b), torch.div(a, b))
    finally:
        torch.set_default_dtype(old)


def test_float_div_rounding_modes():
    """trunc: torch computes trunc(a / b) of the IEEE quotient, which is the kernel's
    quotient truncated (bit for bit, -0 included). floor: torch's fmod-based floor
    division, which no kernel computes: a fallback with the reason."""
    a, b = (g.reshape(-1).contiguous() for g in torch.meshgrid(FLOATS, FLOATS, indexing="ij"))
    ours = F.div(a, b, rounding_mode="trunc")
    assert _same_bits(torch.div(a, b, rounding_mode="trunc"), ours).all()
    assert torch.signbit(ours[(a == -0.75) & (b == 3.0)]).all()  # trunc(-0.25) = -0
    with pytest.raises(fk_torch.FallbackError, match="rounding_mode='floor'"):
        F.div(a, b, rounding_mode="floor")
    fk_torch.use(_device(), strict=False)
    with pytest.warns(fk_torch.FallbackWarning, match="floor"):
        assert _same_bits(torch.div(a, b, rounding_mode="floor"),
                          F.div(a, b, rounding_mode="floor")).all()


def test_arguments_torch_refuses_raise_torchs_error():
    """alpha out of float32's range, a float alpha for int32, a bool alpha: torch raises,
    so must the op (the kernels used to answer inf, or an int32 result)."""
    x, i = torch.ones(3), torch.ones(3, dtype=torch.int32)
    for args, alpha in (((x, x), 1e40), ((i, i), 2.5), ((i, i), True), ((i, i), 2**31)):
        with pytest.raises(RuntimeError) as theirs:
            torch.add(*args, alpha=alpha)
        with pytest.raises(RuntimeError) as ours:
            F.add(*args, alpha=alpha)
        assert str(ours.value) == str(theirs.value)


# --------------------------------------------------------------- strict mode


def test_strict_argument():
    x = torch.randn(10, dtype=torch.float64)
    with pytest.raises(fk_torch.FallbackError, match="no torch.float64 variant") as err:
        F.exp(x)
    assert isinstance(err.value, RuntimeError) and "strict" in str(err.value)
    fk_torch.use(open_plans([variant("binary_ops/add", 2, "float32")], "sw_emu"),
                 strict=True)
    with pytest.raises(fk_torch.FallbackError, match="unary_ops/exp is not on this device"):
        F.exp(x.float())
    with pytest.raises(fk_torch.FallbackError, match="broadcast"):
        F.add(torch.ones(3, 1), torch.ones(1, 3))
    fk_torch.use(_device(), strict=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert torch.equal(F.exp(x), torch.exp(x))
    assert [w.category for w in caught] == [fk_torch.FallbackWarning]
    assert caught[0].filename == __file__  # points at the caller, not into torch


@pytest.mark.parametrize(("env", "strict", "raises"), [
    ("1", None, True), ("true", None, True), ("0", None, False), ("", None, False),
    ("1", False, False), ("0", True, True),
])
def test_strict_environment_variable(monkeypatch, env, strict, raises):
    """$FPGAKERN_STRICT decides when use() leaves strict=None; the argument wins."""
    monkeypatch.setenv(fk_torch.STRICT_ENV, env)
    fk_torch.use(_device(), strict=strict)
    x = torch.ones(4, dtype=torch.float64)
    if raises:
        with pytest.raises(fk_torch.FallbackError, match="float64"):
            F.neg(x)
    else:
        with pytest.warns(fk_torch.FallbackWarning, match="float64"):
            assert torch.equal(F.neg(x), -x)


def test_strict_environment_variable_must_be_a_flag(monkeypatch):
    monkeypatch.setenv(fk_torch.STRICT_ENV, "maybe")
    fk_torch.use(_device())
    with pytest.raises(UsageError, match="FPGAKERN_STRICT"):
        F.neg(torch.ones(2, dtype=torch.float64))


# --------------------------------------------------------------- mirrors: dotted paths


def _spec_library(tmp_path, write_spec, name: str, mirrors: str):
    from fpgakern.spec.library import Library

    write_spec(tmp_path, "probe_ops/_category.yaml",
               "doc: Test kernels.\ndefaults:\n  inputs: [x]\n  outputs: [out]\n"
               "  dtypes: [float32]\n")
    write_spec(tmp_path, f"probe_ops/{name}.yaml",
               f"kernel: {name}\ndoc: A test kernel.\nmirrors: {mirrors}\n"
               "expression: x * sigmoid(x)\n")
    return Library(tmp_path / "kernel_specs")


def test_mirrors_a_dotted_path(tmp_path, write_spec):
    """mirrors: torch.nn.functional.silu is resolved module by module (the fallback used
    to look up the attribute 'nn.functional.silu' of torch and crash)."""
    library = _spec_library(tmp_path, write_spec, "silu_mirror_probe",
                            "torch.nn.functional.silu")
    assert fk_torch.register(library) == ["silu_mirror_probe"]
    x = torch.tensor([-100.0, -1.0, -0.0, 0.5, np.inf, np.nan])
    with pytest.raises(fk_torch.FallbackError, match="not in the kernel library"):
        F.silu_mirror_probe(x)
    fk_torch.use(_device(), strict=False)
    with pytest.warns(fk_torch.FallbackWarning, match="torch.nn.functional.silu"):
        assert _same_bits(torch.nn.functional.silu(x), F.silu_mirror_probe(x)).all()


def test_kernels_without_a_torch_operator_get_no_op(tmp_path, write_spec):
    """No mirrors: and no torch.<name>: nothing to fall back on, so no op (and no error:
    a project of its own kernels still imports the module)."""
    _spec_library(tmp_path, write_spec, "swish_probe", "torch.nn.functional.silu")
    (tmp_path / "kernel_specs" / "probe_ops" / "swish_probe.yaml").write_text(
        "kernel: swish_probe\ndoc: A test kernel.\nexpression: x * sigmoid(x)\n")
    from fpgakern.spec.library import Library

    assert fk_torch.register(Library(tmp_path / "kernel_specs")) == []
    assert not hasattr(F, "swish_probe")


def test_a_user_dot_product_is_torchs(tmp_path, write_spec):
    """A user's sum(a * b) mirroring torch.dot gets sum's treatment: torch.dot (BLAS sdot)
    starts from +0.0 too, an order-dependent overflow falls back, and 2-D operands raise
    torch's error (the op flattens, torch.dot takes 1-D only)."""
    from fpgakern.ladder import plan
    from fpgakern.spec.library import Library

    write_spec(tmp_path, "probe_red/_category.yaml",
               "doc: Test reductions.\ndefaults:\n  inputs: [a, b]\n  outputs: [out]\n"
               "  dtypes: [float32]\n")
    write_spec(tmp_path, "probe_red/dot_probe.yaml",
               "kernel: dot_probe\ndoc: A test kernel.\nmirrors: torch.dot\n"
               "expression: sum(a * b)\n")
    kernel = Library(tmp_path / "kernel_specs").get("probe_red/dot_probe")
    assert fk_torch.register(Library(tmp_path / "kernel_specs")) == ["dot_probe"]
    fk_torch.use(open_plans([plan(kernel, max(kernel.rungs), "float32")], "sw_emu"),
                 strict=True)
    exact = torch.tensor([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -4.0, np.inf, -np.inf, np.nan])
    for i, j in itertools.product(range(len(exact)), repeat=2):
        for n in (1, 2, 3, 17):
            a, b = exact[[i] * n], exact[[j] * n]
            a[1::2] = -a[1::2]  # cancelling pairs: +0 in torch, -0 once in the kernel
            assert _same_bits(torch.dot(a, b), F.dot_probe(a, b)).all(), (a, b)
    with pytest.raises(fk_torch.FallbackError, match="overflow"):
        F.dot_probe(torch.tensor([FMAX, FMAX, -FMAX]), torch.ones(3))
    with pytest.raises(RuntimeError, match="1D tensors expected"):
        F.dot_probe(torch.ones(2, 2), torch.ones(2, 2))


@pytest.mark.parametrize(("mirrors", "message"), [
    ("torch.nn.functional.no_such_op", "torch has no torch.nn.functional.no_such_op"),
    ("torch.nn", "not a callable torch operator"),
    ("numpy.add", "not a torch operator"),
])
def test_mirrors_that_resolve_to_nothing_fail_at_registration(tmp_path, write_spec,
                                                              mirrors, message):
    library = _spec_library(tmp_path, write_spec, "bad_mirror_probe", mirrors)
    with pytest.raises(UsageError, match=message) as err:
        fk_torch.register(library)
    assert "bad_mirror_probe.yaml" in str(err.value) and "mirrors" in str(err.value)
    assert not hasattr(F, "bad_mirror_probe")  # nothing half-registered


# --------------------------------------------------------------- shifts, keywords, scalars


def test_shift_amounts_as_torch():
    """torch's << gives 0 for shift amounts outside 0..31 (negative ones too), >> shifts
    by 31 (0 or -1); the kernels do the same for every amount in -40..40 and beyond."""
    amounts = torch.tensor(list(range(-40, 41)) + [I32_MIN, I32_MAX, 1 << 30],
                           dtype=torch.int32)
    a, b = (g.reshape(-1).contiguous() for g in torch.meshgrid(INTS, amounts, indexing="ij"))
    for name in ("bitwise_left_shift", "bitwise_right_shift"):
        assert torch.equal(getattr(torch, name)(a, b), getattr(F, name)(a, b)), name
    assert (torch.bitwise_left_shift(a, b)[(b < 0) | (b > 31)] == 0).all()


def test_torch_keyword_value_reaches_the_kernels_scale():
    """addcmul and addcdiv take torch's keyword value= (the spec's scalar is scale, since
    'value' is a name the generated code uses); the value changes the kernel's answer."""
    x, t1, t2 = torch.tensor([1.0, -2.0, 3.0]), torch.tensor([0.5, 4.0, -1.5]), \
        torch.tensor([3.0, 0.25, 7.0])
    for name in ("addcmul", "addcdiv"):
        for value in (1, 2, -0.5):
            ours = getattr(F, name)(x, t1, t2, value=value)
            assert _same_bits(getattr(torch, name)(x, t1, t2, value=value), ours).all()
        assert not torch.equal(getattr(F, name)(x, t1, t2, value=3),
                               getattr(F, name)(x, t1, t2))
    with pytest.raises(Exception, match="scale"):
        F.addcmul(x, t1, t2, scale=2)


def test_softsign_of_integers_falls_back():
    """torch computes abs(x) + 1 of an int32 tensor in int32 (softsign(INT32_MIN) is +1.0),
    the float32 kernel would answer -1.0: the op runs torch instead, with the reason."""
    x = torch.tensor([I32_MIN, 16777217, -3], dtype=torch.int32)
    with pytest.raises(fk_torch.FallbackError, match="abs\\(x\\) \\+ 1 of integers"):
        F.softsign(x)
    fk_torch.use(_device(), strict=False)
    with pytest.warns(fk_torch.FallbackWarning, match="abs"):
        assert torch.equal(F.softsign(x), torch.nn.functional.softsign(x))
    assert float(torch.nn.functional.softsign(x)[0]) == 1.0


def test_fractional_scalar_for_an_int32_kernel_falls_back():
    """torch's hardtanh of int32 truncates min_val=-0.5 to 0; the int32 kernel takes
    integers only, so the op runs torch instead (and the kernel with integral floats)."""
    x = torch.tensor([3, -2, I32_MIN, 1], dtype=torch.int32)
    with pytest.raises(fk_torch.FallbackError, match="fractional scalar"):
        F.hardtanh(x, min_val=-0.5, max_val=2.5)
    assert torch.equal(F.hardtanh(x, min_val=-2.0, max_val=2.0),
                       torch.nn.functional.hardtanh(x, -2.0, 2.0))
    fk_torch.use(_device(), strict=False)
    with pytest.warns(fk_torch.FallbackWarning, match="fractional"):
        assert torch.equal(F.hardtanh(x, min_val=-0.5, max_val=2.5),
                           torch.nn.functional.hardtanh(x, -0.5, 2.5))
