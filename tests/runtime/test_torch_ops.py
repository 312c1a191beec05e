"""torch.ops.fpgakern.<kernel> against the torch operator it mirrors, for every starter
kernel and dtype, on random data and special values (NaN, +-inf, +-0, subnormals,
extremes; every pair for binary kernels).

Where the op table deliberately differs from torch's CPU kernels the test pins the
difference down exactly (docs/runtime.md lists them; add/sub with any alpha are
bit-exact: torch rounds a + alpha*b once, and so does the kernels' fma):
* maximum/minimum of zeros of opposite sign: torch returns either operand (the first in
  its scalar loop, the second in its vectorized one, so it depends on the element's
  position); the op table orders -0 < +0 (IEEE 754-2019 maximum/minimum);
* int32 div with rounding_mode="trunc" (the int32 kernel): raises as torch does on a zero
  divisor, and gives INT32_MIN for INT32_MIN / -1 where torch's CPU kernel dies of SIGFPE.
  Without a rounding mode the op is torch's true division, computed by the float32 kernel;
* int32 sum: torch's int64 sum (the int32 kernel's wrapping sum, corrected, when the
  result is known to lie in a window narrower than 2**32; else the CPU);
* float sum: the hardware's summation order, within n*2^-24*sum|x| of the exact sum;
* sqrt: torch's vectorized float32 sqrt is within 1 ulp but not correctly rounded
  (about 8% of random inputs differ); the kernel is correctly rounded;
* the transcendental ops (exp, log, sigmoid, ...): within the op table's ulp bound of torch's
  (both are within 1 ulp of the correctly rounded result), except that torch.sigmoid returns
  0 for x < -88.72 (its float32 exp(-x) overflows) where the result is a subnormal;
* complex64 mul: bit-equal to torch's vectorized loop; the last n % 8 elements are its
  scalar tail, which fuses its multiply-adds (docs/runtime.md), and there the kernel keeps
  the vectorized loop's answer. complex64 add, sub, div, conj and mul_scalar are bit-equal
  everywhere (tests/oplib/test_complex_ops.py measures the sequences).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from runtime_support import FLAT_KERNELS, LIBRARY, torch_farther, variant

torch = pytest.importorskip("torch")

import fpgakern.runtime.torch_ops as fk_torch  # noqa: E402
from fpgakern.ir.dtypes import DTYPES  # noqa: E402
from fpgakern.runtime import open_plans  # noqa: E402
from fpgakern.verify import compare, stimulus  # noqa: E402

KERNELS = [(k.qualname, d) for k in FLAT_KERNELS for d in k.dtypes]  # shaped: test_torch_shaped
TORCH = {"float32": torch.float32, "int32": torch.int32, "complex64": torch.complex64}
# torch's complex64 loops: 2 AVX2 vectors of 4 elements per step, then a scalar tail.
TORCH_COMPLEX_STEP = 8
F32, I32 = DTYPES["float32"], DTYPES["int32"]


@pytest.fixture(scope="module", autouse=True)
def sw_device():
    plans = [variant(k.qualname, max(k.rungs), d) for k in LIBRARY.kernels for d in k.dtypes]
    fk_torch.use(open_plans(plans, "sw_emu"))
    yield
    fk_torch.use(None)


def _inputs(kernel, dtype):
    """(random case, special-values case) as tensors."""
    cases = stimulus.cases(kernel, DTYPES[dtype], size=777, lanes=16)
    chosen = [c for c in cases if c.label in ("random", "special_values")]
    chosen += [c for c in cases if c.label.startswith("special_")][:6]
    return [[torch.from_numpy(np.ascontiguousarray(c.tensors[n])) for n in kernel.inputs]
            for c in chosen]


def _bits_equal(expected, actual):
    """Bit-equal, any NaN matching any NaN (hardware returns the canonical quiet NaN)."""
    e = np.atleast_1d(expected.resolve_conj().numpy())
    a = np.atleast_1d(actual.resolve_conj().numpy())
    if e.dtype.kind == "c":  # each float32 component so
        pairs = _bits_equal(torch.from_numpy(e.view(np.float32)),
                            torch.from_numpy(a.view(np.float32)))
        return pairs.reshape(-1, 2).all(axis=1)
    if e.dtype.kind == "f":
        return (np.isnan(e) & np.isnan(a)) | (e.view(np.uint32) == a.view(np.uint32))
    return e == a


@pytest.mark.parametrize(("qualname", "dtype"), KERNELS, ids=[f"{q}:{d}" for q, d in KERNELS])
def test_op_equals_torch(qualname, dtype):
    kernel = LIBRARY.get(qualname)
    op = getattr(torch.ops.fpgakern, kernel.name)
    for tensors in _inputs(kernel, dtype):
        with warnings.catch_warnings():
            warnings.simplefilter("error", fk_torch.FallbackWarning)  # must run the kernel
            if (kernel.name, dtype) == ("prod", "int32"):
                # torch multiplies int32 into int64; the kernel's product wraps, so the
                # op runs torch.prod, and says why.
                reason = fk_torch._dtype_route(kernel, [torch.int32], torch.int64, {})
                assert isinstance(reason, str) and "int32 product wraps" in reason
                warnings.simplefilter("ignore", fk_torch.FallbackWarning)
                assert torch.equal(op(*tensors), torch.prod(*tensors))
                continue
            if (kernel.name, dtype) == ("prod", "float32"):
                # Factors that may overflow or underflow some order's partial products
                # (a special value such as the largest float) run torch.prod instead.
                unsafe = fk_torch._float_prod_range(tensors[0]) is not None
                warnings.simplefilter("ignore" if unsafe else "error",
                                      fk_torch.FallbackWarning)
            if (kernel.name, dtype) == ("sum", "int32"):
                # The int64 result comes from the kernel when min and max bound it to a
                # window narrower than 2**32 (the n-2 other elements lie between them).
                x = tensors[0]
                wide = max(x.numel() - 2, 0) * (int(x.max()) - int(x.min())) >= 2**32
                warnings.simplefilter("ignore" if wide else "error",
                                      fk_torch.FallbackWarning)
            if kernel.name in ("fmod", "remainder"):
                tensors = _mod_kernel_pairs(op, kernel.name, tensors)
            ours = op(*tensors)
        assert ours.dtype == _twin(kernel, tensors).dtype
        _judge(kernel, dtype, tensors, ours)


def _twin(kernel, tensors):
    """The mirrored torch operator on ``tensors`` with the kernel's default scalars
    (torch.mul has no default for mul_scalar's ``other``)."""
    defaults = {fk_torch.torch_keyword(kernel, s.name): s.default for s in kernel.scalars}
    return fk_torch.cpu_twin(kernel)(*tensors, **defaults)


def _mod_kernel_pairs(op, name, tensors):
    """fmod and remainder: the pairs the kernel answers, after checking the op on the rest.
    An int32 zero divisor raises torch's ZeroDivisionError; a float32 quotient a / b that
    overflows runs torch itself (its vectorized loop gives NaN there, docs/runtime.md)."""
    a, b = tensors
    if not a.is_floating_point():
        keep = b != 0
        if not bool(keep.all()):
            with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
                op(a, b)
        return [a[keep], b[keep]]
    with np.errstate(all="ignore"):
        x, y = a.numpy(), b.numpy()
        overflow = torch.from_numpy(np.isfinite(x) & np.isfinite(y) & np.isinf(x / y))
    if bool(overflow.any()):
        assert "quotient a / b overflows" in str(fk_torch._mod_quotient(a, b))
        with warnings.catch_warnings():  # the op warns once per reason, maybe not here
            warnings.simplefilter("ignore", fk_torch.FallbackWarning)
            assert _bits_equal(getattr(torch, name)(a, b), op(a, b)).all()
    return [a[~overflow], b[~overflow]]


def _judge(kernel, dtype, tensors, ours):
    name, is_float = kernel.name, dtype == "float32"
    if name == "div" and dtype == "int32":
        # torch.div on integers is true division in float32: the float32 kernel runs on
        # the converted operands, so x/0 gives +-inf and 0/0 NaN exactly as torch's.
        assert ours.dtype == torch.float32
        assert _bits_equal(torch.div(*tensors), ours).all()
        a, b = tensors
        # rounding_mode="trunc" is the int32 kernel. torch raises on x/0 (so does the op)
        # and dies of SIGFPE on INT32_MIN / -1 (x86 idiv overflow), so torch only sees the
        # other pairs; the op table gives INT32_MIN there.
        zero = b == 0
        if zero.any():
            with pytest.raises(RuntimeError, match="ZeroDivisionError"):
                torch.ops.fpgakern.div(a, b, rounding_mode="trunc")
            a, b = a[~zero], b[~zero]
        truncated = torch.ops.fpgakern.div(a, b, rounding_mode="trunc")
        assert truncated.dtype == torch.int32
        overflow = (a == torch.iinfo(torch.int32).min) & (b == -1)
        want = torch.div(torch.where(overflow, torch.ones_like(a), a), b,
                         rounding_mode="trunc")
        assert _bits_equal(torch.where(overflow, a, want), truncated).all()
        return
    if name == "sum":
        if not is_float:
            # torch sums integers into int64; the op does too whenever the int32 kernel
            # cannot overflow (else it falls back, see test_int_sum_beyond_int32).
            assert torch.equal(torch.sum(tensors[0]), ours)
            wrapped = torch.ops.fpgakern.sum(tensors[0], dtype=torch.int32)
            assert torch.equal(torch.sum(tensors[0], dtype=torch.int32), wrapped)
            return
        x = tensors[0].numpy()
        verdict = compare.compare(np.array([np.sum(x.astype(np.float64))], np.float32),
                                  np.atleast_1d(ours.numpy()), compare.Accuracy("reduction"), x)
        assert verdict.passed, verdict.summary()
        return
    if name == "mean":
        # torch.mean is torch.sum(x) / n; the kernel's sum runs in the hardware's order:
        # within the op table's mean bound of the exact mean (test_mean_like_torch pins
        # down where it must equal torch's bits).
        x = tensors[0].numpy()
        exact = np.array([np.sum(x.astype(np.float64)) / x.size], np.float32)
        accuracy = compare.accuracy_of(kernel, dtype)
        verdict = compare.compare(exact, np.atleast_1d(ours.numpy()), accuracy, x)
        assert verdict.passed, verdict.summary()
        return
    want = _twin(kernel, tensors)  # torch.nn.functional.hardtanh ...
    if compare.accuracy_of(kernel, dtype).kind == "ulp":  # exp, log, sigmoid, ...
        # Within 2 ulp of torch, or where torch is the one off (torch_farther: its
        # sigmoid's float32 exp(-x) overflows, its gelu cancels for x << 0).
        expected, got = want.numpy(), ours.numpy()
        farther = torch_farther(kernel, [t.numpy() for t in tensors], expected, got, dtype)
        expected = np.where(farther, got, expected)
        verdict = compare.compare(expected, got, compare.Accuracy("ulp", 2))
        assert verdict.passed, verdict.summary()
        return
    same = _bits_equal(want, ours)
    if name == "mul" and dtype == "complex64":
        # torch's scalar tail fuses; the kernel keeps the vectorized loop's answer there
        # (the op table's reference), which the rest of torch's result matches bit for bit.
        body = ours.numel() - ours.numel() % TORCH_COMPLEX_STEP
        assert same[:body].all()
        mine = kernel.graph(dtype).op.reference(*(t.numpy() for t in tensors))
        assert _bits_equal(torch.from_numpy(mine), ours).all()
        return
    if name == "sqrt":
        # torch's vectorized float32 sqrt is within 1 ulp, not correctly rounded; the
        # kernel is (IEEE), as numpy is.
        x = tensors[0].numpy()
        with np.errstate(invalid="ignore"):
            assert _bits_equal(torch.from_numpy(np.sqrt(x)), ours).all()
        verdict = compare.compare(want.numpy(), ours.numpy(), compare.Accuracy("ulp", 1))
        assert verdict.passed, verdict.summary()
        return
    if is_float and name in ("maximum", "minimum"):
        a, b = (t.numpy() for t in tensors)
        opposite_zeros = (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))
        assert (same | opposite_zeros).all()
        # torch returns either operand there (its scalar and vector paths differ); the
        # op table orders -0 < +0.
        assert (np.signbit(ours.numpy()[opposite_zeros]) == (name == "minimum")).all()
        return
    if name == "prod" and is_float:
        # The hardware's order of multiplication: within n*2^-24*|prod x| of the exact
        # product while every partial product stays normal (else it fell back above).
        x = tensors[0].numpy()
        exact = np.array([np.prod(x.astype(np.float64))], np.float32)
        accuracy = compare.accuracy_of(kernel, dtype)
        verdict = compare.compare(exact, np.atleast_1d(ours.numpy()), accuracy, x)
        assert verdict.passed, verdict.summary()
        return
    if is_float and name in ("max", "min"):
        x = tensors[0].numpy()
        if not np.isnan(x).any() and float(ours) == 0:
            # the op table orders -0 < +0; torch's pick among zeros varies
            assert np.signbit(ours.numpy()) == (name == "min" and np.signbit(x[x == 0]).any())
            return
    assert same.all(), (want[~torch.from_numpy(same)][:5], ours[~torch.from_numpy(same)][:5])


def test_mean_like_torch():
    """torch.mean on float32 is torch.sum(x) / n, divided in float32 (measured: bit-equal
    to sum / n on random, mixed-scale, cancelling and overflowing inputs of 1 to 3,000,001
    elements). Where every summation order gives one sum (small integers), the op's mean
    is torch's to the bit; zeros of either sign average to torch's +0.0; nothing averages
    to NaN without a fallback; a sum that one order may overflow and another not runs
    torch.mean, with the reason; integers are refused as torch refuses them."""
    op = torch.ops.fpgakern.mean
    rng = np.random.default_rng(14)
    with warnings.catch_warnings():
        warnings.simplefilter("error", fk_torch.FallbackWarning)
        for n in (1, 3, 777, 4099):
            x = torch.from_numpy(rng.integers(-1000, 1000, n).astype(np.float32))
            assert _bits_equal(torch.mean(x), op(x)).all(), n
        zeros = torch.tensor([-0.0, -0.0, -0.0])
        assert _bits_equal(torch.mean(zeros), op(zeros)).all()
        assert not torch.signbit(op(zeros))
        assert torch.isnan(op(torch.empty(0))) and torch.isnan(torch.mean(torch.empty(0)))
        nan = torch.tensor([1.0, float("nan"), 2.0])
        assert torch.isnan(op(nan))
    big = torch.tensor([3e38, 3e38, -3e38], dtype=torch.float32)
    with pytest.warns(fk_torch.FallbackWarning, match="overflow a partial sum"):
        assert torch.equal(op(big), torch.mean(big))
    with pytest.raises(RuntimeError, match="floating point"):
        op(torch.tensor([1, 2], dtype=torch.int32))


@pytest.mark.parametrize("alpha", [2.5, 0.3, -1.7, 1e30, 1e-30])
@pytest.mark.parametrize("name", ["add", "sub"])
def test_alpha_is_fused_like_torch(name, alpha):
    """torch's CPU add/sub round a + alpha*b (a - alpha*b) once, at every element position
    (vectorized body and scalar tail alike): exactly fma(±float32(alpha), b, a), which is
    what the kernels compute, so the results are bit-equal for every alpha."""
    rng = np.random.default_rng(3)
    op, ref = getattr(torch.ops.fpgakern, name), getattr(torch, name)

    def data(n: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Normal values, values of many magnitudes, and b ~ a / alpha (the two terms
        alike in size: cancellation, and the most places where one rounding matters)."""
        normal, spread = rng.standard_normal, lambda k: stimulus.random_values(F32, k, rng)
        comparable = (normal(n), normal(n) / alpha)
        return [(normal(n), normal(n)), (spread(n), spread(n)), comparable]

    for n in (1, 15, 17, 777, 4097):  # never a multiple of the 16 lanes
        for a, b in data(n):
            a, b = (torch.from_numpy(np.asarray(x, np.float32)) for x in (a, b))
            assert torch.equal(op(a, b, alpha=alpha), ref(a, b, alpha=alpha)), (n, alpha)
    # every pair of special values (NaN, +-inf, +-0, subnormals, extremes): NaN results
    # may differ in payload only
    grid = np.meshgrid(stimulus.FLOAT_SPECIALS, stimulus.FLOAT_SPECIALS, indexing="ij")
    a, b = (torch.from_numpy(x.ravel().copy()) for x in grid)
    assert _bits_equal(ref(a, b, alpha=alpha), op(a, b, alpha=alpha)).all()
    # not vacuous: rounding alpha*b first would differ in many places
    a, b = (np.asarray(x, np.float32) for x in data(4096)[2])
    two_roundings = a + np.float32(alpha if name == "add" else -alpha) * b
    ours = op(torch.from_numpy(a), torch.from_numpy(b), alpha=alpha).numpy()
    assert (ours != two_roundings).mean() > 0.05


@pytest.mark.parametrize("name", ["add", "sub"])
def test_int_alpha_wraps_like_torch(name):
    rng = np.random.default_rng(4)
    op, ref = getattr(torch.ops.fpgakern, name), getattr(torch, name)
    a, b = (torch.from_numpy(stimulus.random_values(I32, 1001, rng)) for _ in range(2))
    for alpha in (1, 3, -7, 65537):
        assert torch.equal(op(a, b, alpha=alpha), ref(a, b, alpha=alpha)), alpha


def test_int_sum_beyond_int32_falls_back():
    fk_torch.use(fk_torch.device())  # forget earlier warnings: each reason warns once
    big = torch.full((100,), 2**30, dtype=torch.int32)  # min == max: the sum is known
    with warnings.catch_warnings():
        warnings.simplefilter("error", fk_torch.FallbackWarning)
        assert torch.equal(torch.ops.fpgakern.sum(big), torch.sum(big))
    spread = torch.tensor([2**30, -(2**30), 7] * 9, dtype=torch.int32)
    with pytest.warns(fk_torch.FallbackWarning, match="int32 accumulator"):
        assert torch.equal(torch.ops.fpgakern.sum(spread), torch.sum(spread))
    wrapped = torch.ops.fpgakern.sum(big, dtype=torch.int32)  # asked for: the kernel wraps
    assert torch.equal(wrapped, torch.sum(big, dtype=torch.int32))


def test_unsupported_torch_options_fall_back():
    fk_torch.use(fk_torch.device())
    a, b = torch.arange(1, 9, dtype=torch.int32), torch.full((8,), 3, dtype=torch.int32)
    with pytest.warns(fk_torch.FallbackWarning, match="rounding_mode='floor'"):
        assert torch.equal(torch.ops.fpgakern.div(-a, b, rounding_mode="floor"),
                           torch.div(-a, b, rounding_mode="floor"))
    x = torch.randn(64)
    with pytest.warns(fk_torch.FallbackWarning, match="into torch.float64"):
        assert torch.equal(torch.ops.fpgakern.sum(x, dtype=torch.float64),
                           torch.sum(x, dtype=torch.float64))


def test_fake_tensors_follow_torch_dtype_rules():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        x = torch.empty(5, 3, dtype=torch.int32)
        assert torch.ops.fpgakern.div(x, x).dtype == torch.float32
        assert torch.ops.fpgakern.div(x, x, rounding_mode="trunc").dtype == torch.int32
        assert torch.ops.fpgakern.sum(x).dtype == torch.int64
        assert torch.ops.fpgakern.sum(x).shape == ()
        assert torch.ops.fpgakern.exp(x.float()).shape == (5, 3)


def test_shapes_and_int_alpha():
    x = torch.randn(4, 5, 6)
    assert torch.ops.fpgakern.exp(x).shape == x.shape
    assert torch.ops.fpgakern.sum(x).shape == ()
    a = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    assert torch.equal(torch.ops.fpgakern.add(a, a, alpha=3), torch.add(a, a, alpha=3))
    t = torch.randn(8, 8).t()  # non-contiguous: made contiguous first
    assert torch.equal(torch.ops.fpgakern.neg(t), torch.neg(t))


def test_hw_emu_device():
    fk_torch.use(open_plans([variant("binary_ops/add", 3, "float32")], "hw_emu"))
    try:
        a, b = torch.randn(10_000), torch.randn(10_000)
        assert torch.equal(torch.ops.fpgakern.add(a, b), torch.add(a, b))
    finally:
        fk_torch.use(open_plans([variant(k.qualname, max(k.rungs), d)
                                 for k in LIBRARY.kernels for d in k.dtypes], "sw_emu"))


# complex64 on hw_emu: its RTL (the expression lowered to float32 operators, docs/rtl.md)
# against torch bit for bit on every pair of the complex special values (NaN, +-inf, +-0,
# 1, the largest and the smallest subnormal magnitude, in either part) and of wider ones
# (huge, tiny, subnormal, negative parts: Smith's scaling). 4096 pairs, a multiple of
# torch's 8-element step: no scalar tail, so mul is bit-equal too. Each model is a few
# minutes of verilating: -m slow (fpgakern build's sim step covers every rung).
_WIDE_PARTS = np.array([np.nan, -np.inf, 0.0, -0.0, -1.0, 3e38, 2.5, -1.7e-40],
                       dtype=np.float32)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mul", "div"])
def test_hw_emu_complex64_matches_torch_bit_for_bit(name):
    from fpgakern.ir import special

    plans = [variant(f"binary_ops/{name}", 2, "complex64")]
    device = open_plans(plans, "hw_emu")
    fk_torch.use(device, strict=True)
    try:
        for values in (special.complex64(special.KERNEL_COMPLEX64_PARTS),
                       _wide(_WIDE_PARTS)):
            a, b = np.meshgrid(values, values, indexing="ij")
            ta = torch.from_numpy(np.ascontiguousarray(a.ravel()))
            tb = torch.from_numpy(np.ascontiguousarray(b.ravel()))
            assert ta.numel() % TORCH_COMPLEX_STEP == 0
            ours = getattr(torch.ops.fpgakern, name)(ta, tb)
            want = getattr(torch, name)(ta, tb)
            same = _bits_equal(want, ours)
            assert same.all(), (int((~same).sum()), ta[~same][:4], tb[~same][:4])
            call = device.kernel(f"binary_ops/{name}").last_call
            assert call is not None and call.target == "hw_emu" and call.n == ta.numel()
    finally:
        fk_torch.use(open_plans([variant(k.qualname, max(k.rungs), d)
                                 for k in LIBRARY.kernels for d in k.dtypes], "sw_emu"))


# complex64 in, float32 out (abs, angle, real, imag) on hw_emu at every rung: the RTL whose
# output port is narrower than its input ports (rungs 0-1: two results to a 64-bit beat of
# the shared bundle; rungs 2-3: a 32-bit port; rung 4: 8 lanes, a 256-bit port) on every
# pair of the wide parts and the complex special values, an odd count (7 past a multiple
# of 8: a partial last beat, and torch's scalar tail). real and imag bit for bit with
# torch; abs and angle within the op table's 2 ulp of torch's answer and of the op
# table's reference (docs/runtime.md measures both against MPFR). -m slow: 20 models.
_REAL_OUT = ("abs", "angle", "real", "imag")


@pytest.mark.slow
@pytest.mark.parametrize("rung", [0, 1, 2, 3, 4])
def test_hw_emu_complex64_to_float32(rung):
    from fpgakern.ir import special
    from fpgakern.ir.ops import OPS

    device = open_plans([variant(f"unary_ops/{n}", rung, "complex64") for n in _REAL_OUT],
                        "hw_emu")
    fk_torch.use(device, strict=True)
    try:
        parts = np.concatenate([_WIDE_PARTS, special.float32(special.KERNEL_COMPLEX64_PARTS)])
        values = _wide(parts)
        x = np.concatenate([values, values[:7]])
        t = torch.from_numpy(x)
        for name in _REAL_OUT:
            ours = getattr(torch.ops.fpgakern, name)(t)
            want = getattr(torch, name)(t)
            assert ours.dtype == torch.float32 and ours.shape == t.shape
            call = device.kernel(f"unary_ops/{name}").last_call
            assert call is not None and call.target == "hw_emu" and call.n == t.numel()
            if name in ("real", "imag"):
                assert (ours.numpy().view(np.uint32) == want.numpy().view(np.uint32)).all()
                continue
            reference = OPS[name].reference(x)
            for other in (want.numpy(), reference):
                nan = np.isnan(other)
                assert (np.isnan(ours.numpy()) == nan).all(), name
                assert (_ulps(other[~nan], ours.numpy()[~nan]) <= 2).all(), name
    finally:
        fk_torch.use(open_plans([variant(k.qualname, max(k.rungs), d)
                                 for k in LIBRARY.kernels for d in k.dtypes], "sw_emu"))


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    def ordered(x: np.ndarray) -> np.ndarray:
        i = x.astype(np.float32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFF_FFFF), i)
    return np.abs(ordered(a) - ordered(b))


def _wide(parts: np.ndarray) -> np.ndarray:
    re, im = np.meshgrid(parts, parts, indexing="ij")
    return np.stack([re.ravel(), im.ravel()], axis=-1).view(np.complex64).ravel()


def test_fallback_warns_once_and_matches_cpu():
    fk_torch.use(open_plans([variant("binary_ops/add", 2, "float32")], "sw_emu"))
    try:
        x = torch.randn(100)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                assert torch.equal(torch.ops.fpgakern.exp(x), torch.exp(x))
            assert torch.equal(torch.ops.fpgakern.add(x.double(), x.double()), x.double() * 2)
            a, b = torch.randn(4, 1), torch.randn(1, 4)  # broadcasting: CPU
            assert torch.equal(torch.ops.fpgakern.add(a, b), torch.add(a, b))
        messages = [str(w.message) for w in caught if w.category is fk_torch.FallbackWarning]
        assert len(messages) == 3, messages
        assert any("exp" in m and "not on this device" in m for m in messages)
        assert any("float64" in m for m in messages)
        assert any("broadcast" in m for m in messages)
    finally:
        fk_torch.use(open_plans([variant(k.qualname, max(k.rungs), d)
                                 for k in LIBRARY.kernels for d in k.dtypes], "sw_emu"))


def test_failed_build_falls_back(tmp_path):
    import json

    from fpgakern.backends import hls
    from fpgakern.runtime import open as open_device

    p = variant("unary_ops/sqrt", 2, "float32")
    folder = tmp_path / "unary_ops" / "sqrt" / "opt2" / "float32"
    hls.generate(p, folder)
    verdict = {"passed": False, "detail": "csim failed"}
    (folder / "manifest.json").write_text(json.dumps(
        {"kernel": "unary_ops/sqrt", "rung": 2, "dtype": "float32", "csim": verdict}))
    fk_torch.use(open_device(tmp_path, "sw_emu"))
    try:
        x = torch.rand(50)
        with pytest.warns(fk_torch.FallbackWarning, match="failed C simulation"):
            assert torch.equal(torch.ops.fpgakern.sqrt(x), torch.sqrt(x))
    finally:
        fk_torch.use(open_plans([variant(k.qualname, max(k.rungs), d)
                                 for k in LIBRARY.kernels for d in k.dtypes], "sw_emu"))


def test_complex64_routes_and_fallbacks(monkeypatch):
    """complex64 runs the complex64 kernels (a float32 operand promoted to (x, +0) as torch
    promotes it; abs, angle, real and imag of complex64 the complex64 variants, float32
    out); what they do not cover falls back with its reason, never an answer of another
    variant: a complex scalar, complex128, and complex in, real out where no complex64
    variant gives it (abs of complex128, whose float32 kernel would drop the imaginary
    parts)."""
    a = torch.tensor([1 + 2j, 3 - 4j, complex(float("inf"), 0)], dtype=torch.complex64)
    b = torch.tensor([0.5 - 1j, -2 + 0j, 1 + 0j], dtype=torch.complex64)
    real = torch.tensor([2.0, -0.0, float("inf")])
    with warnings.catch_warnings():
        warnings.simplefilter("error", fk_torch.FallbackWarning)
        for ours, theirs in ((torch.ops.fpgakern.add(a, real, alpha=0.5),
                              torch.add(a, real, alpha=0.5)),
                             (torch.ops.fpgakern.mul(real, b), torch.mul(real, b)),
                             (torch.ops.fpgakern.mul_scalar(a, other=-1.5), torch.mul(a, -1.5)),
                             (torch.ops.fpgakern.conj(a), torch.conj(a))):
            assert ours.dtype == torch.complex64 and not ours.is_conj()
            assert _bits_equal(theirs, ours).all()
        for name in ("abs", "angle", "real", "imag"):
            ours = getattr(torch.ops.fpgakern, name)(a)
            theirs = getattr(torch, name)(a)
            assert ours.dtype == torch.float32 and ours.shape == a.shape
            assert _bits_equal(theirs, ours).all(), (name, theirs, ours)
            assert ours.data_ptr() != a.data_ptr()  # torch.real is a view; the op is not
    monkeypatch.setenv(fk_torch.STRICT_ENV, "1")
    for call, reason in ((lambda: torch.ops.fpgakern.add(a, b, alpha=1j), "a complex scalar"),
                         (lambda: torch.ops.fpgakern.mul_scalar(real, other=2j),
                          "a complex scalar"),
                         (lambda: torch.ops.fpgakern.abs(a.to(torch.complex128)),
                          "complex in, real out"),
                         (lambda: torch.ops.fpgakern.add(a.to(torch.complex128), b),
                          "no torch.complex128 variant"),
                         (lambda: torch.ops.fpgakern.conj(real), "no torch.float32 variant")):
        with pytest.raises(fk_torch.FallbackError, match=reason):
            call()
    monkeypatch.setenv(fk_torch.STRICT_ENV, "0")
    with pytest.warns(fk_torch.FallbackWarning):
        same = torch.ops.fpgakern.conj(real)  # torch.conj of a real tensor is the tensor
    assert torch.equal(same, real) and same.data_ptr() != real.data_ptr()
