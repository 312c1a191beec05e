"""fmod and remainder (issue 14): the op table's references against torch itself, whole
tensors (its vectorized path) and single elements (its scalar path), then the RTL
operators against the references bit for bit. Latency and II=1: test_latency.py; lint:
test_lint.py; million-vector sweeps: benchmarks/operator_sweep.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from fpgakern.ir.ops import OPS
from fpgakern.verify import opsim

torch = pytest.importorskip("torch")

U32 = np.uint32
MOD_OPS = ["fmod", "remainder"]
TORCH = {"fmod": torch.fmod, "remainder": torch.remainder}
INF, NAN = float("inf"), float("nan")


def _same(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    if ours.dtype.kind != "f":
        return ours == theirs
    return (np.isnan(ours) & np.isnan(theirs)) | (ours.view(U32) == theirs.view(U32))


def _pairs(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    a, b = opsim.fp32_binary_specials(rng)
    ra, rb = opsim.fp32_random_pairs(rng, 30_000)
    return (np.concatenate([a, ra]).view(np.float32), np.concatenate([b, rb]).view(np.float32))


def _quotient_overflows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.isfinite(a) & np.isfinite(b) & np.isinf(a / b)


@pytest.mark.parametrize("op_name", MOD_OPS)
def test_fp32_reference_is_torch(op_name, rng):
    """Single elements: torch's answer everywhere. Whole tensors: everywhere but where the
    float32 quotient a / b overflows, where torch's vectorized kernel gives NaN (and
    torch.ops.fpgakern falls back to torch)."""
    a, b = _pairs(rng)
    ours = OPS[op_name].reference(a, b)
    fn = TORCH[op_name]
    whole = fn(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    overflow = _quotient_overflows(a, b)
    assert overflow.sum() > 1000  # the stimuli reach the case
    differ = ~_same(ours, whole)
    assert not (differ & ~overflow).any() and np.isnan(whole[differ]).all()
    step = 13
    single = np.concatenate([fn(torch.from_numpy(a[i:i + 1]), torch.from_numpy(b[i:i + 1]))
                             .numpy() for i in range(0, a.size, step)])
    assert _same(ours[::step], single).all()


@pytest.mark.parametrize("op_name", MOD_OPS)
def test_int32_reference_is_torch(op_name, rng):
    a, b = opsim.int32_binary_specials()
    ra, rb = opsim.int32_random(rng, 20_000), opsim.int32_random(rng, 20_000)
    a, b = (np.concatenate(p).view(np.int32) for p in ((a, ra), (b, rb)))
    nonzero = b != 0
    theirs = TORCH[op_name](torch.from_numpy(a[nonzero]), torch.from_numpy(b[nonzero]))
    ours = OPS[op_name].reference(a, b)
    assert theirs.dtype == torch.int32 and (ours[nonzero] == theirs.numpy()).all()
    assert (ours[~nonzero] == a[~nonzero]).all()  # fpgakern's x % 0 = x
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        TORCH[op_name](torch.tensor([5], dtype=torch.int32), torch.tensor([0], dtype=torch.int32))


NAMED = {  # (a, b): (fmod, remainder), each checked against torch below
    (-4.0, 2.0): (-0.0, -0.0), (4.0, -2.0): (0.0, 0.0), (-0.0, 1.0): (-0.0, -0.0),
    (0.0, -1.0): (0.0, 0.0), (5.0, INF): (5.0, 5.0), (-5.0, INF): (-5.0, INF),
    (5.0, -INF): (5.0, -INF), (-1e-30, 1.0): (-1e-30, 1.0), (5.5, 0.0): (NAN, NAN),
    (INF, 2.0): (NAN, NAN), (7.0, -3.0): (1.0, -2.0), (-7.0, 3.0): (-1.0, 2.0),
    (3e-45, 1e-45): (0.0, 0.0), (1.5e-38, 7e-45): (4.2e-45, 4.2e-45),
    (3.4e38, 1e-45): (0.0, 0.0), (1e-45, 3.4e38): (1e-45, 1e-45),
    (-1e-45, 3.4e38): (-1e-45, 3.4e38), (NAN, 0.0): (NAN, NAN),
}


@pytest.mark.parametrize("op_name", MOD_OPS)
def test_named_cases(op_name):
    """Signed zeros, infinities, zero divisors and subnormals, bit for bit: the reference,
    torch and the RTL."""
    which = ("fmod", "remainder").index(op_name)
    a, b = (np.array(v, dtype=np.float32) for v in zip(*NAMED, strict=True))
    want = np.array([v[which] for v in NAMED.values()], dtype=np.float32)
    assert _same(OPS[op_name].reference(a, b), want).all()
    single = [TORCH[op_name](torch.from_numpy(a[i:i + 1]), torch.from_numpy(b[i:i + 1]))
              .numpy() for i in range(a.size)]  # (3.4e38, 1e-45) is NaN in a whole tensor
    assert _same(np.concatenate(single), want).all()
    impl = OPS[op_name].rtl["float32"]
    got = opsim.simulate_operator(impl.module, [a.view(U32), b.view(U32)], impl.latency)
    assert _same(got.view(np.float32), want).all(), [hex(g) for g in got]


@pytest.mark.parametrize("op_name", MOD_OPS)
def test_fp32_rtl(op_name, rng, check_op):
    """Every named pair, every exponent pair (the longest chains of subtraction steps:
    the largest a over the smallest subnormal b) and random pairs."""
    a, b = _pairs(rng)
    assert check_op(op_name, "float32", [a.view(U32), b.view(U32)]) > 700_000


@pytest.mark.parametrize("op_name", MOD_OPS)
def test_int32_rtl(op_name, rng, check_op):
    a, b = opsim.int32_binary_specials()
    ra, rb = opsim.int32_random(rng, 20_000), opsim.int32_random(rng, 20_000)
    rb[::4] = rng.integers(-40, 41, rb[::4].size).astype(np.int32).view(U32)  # small divisors
    check_op(op_name, "int32", [np.concatenate([a, ra]), np.concatenate([b, rb])])
