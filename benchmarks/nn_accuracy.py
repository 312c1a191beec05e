"""Accuracy of the nn_ops kernels on >= 1M elements each: ours (computed by the RTL), and
torch's CPU float32 results, against a correctly rounded reference, beside each kernel's
stated bound. docs/nn_ops.md derives the bounds and shows the table.

    python benchmarks/nn_accuracy.py [--n 1048576] [--seed 20261125] [--only softmax,silu]

Kernels: silu, hardswish, gelu, gelu_tanh, batch_norm, softmax, log_softmax, layer_norm,
rms_norm.

Elementwise kernels (silu, hardswish; gelu and gelu_tanh where the library has them): the
kernel's expression is evaluated op by op by the RTL operators the kernel instantiates
(``fpgakern.verify.opsim``: each operator's Verilator model, as
benchmarks/operator_sweep_hard.py runs them), on random inputs over the interesting range,
every float exponent and the special values. The reference is MPFR (gmpy2): the exact
function rounded once to float32. hardswish has no spec: its expression is torch's
(``x * min(max(x + 3, 0), 6) / 6``, exact ops only, so ours equals torch bit for bit).

batch_norm (broadcast, rung 4 on hw_emu): (N, 64, 1024) with NaN, +-inf and subnormal
elements and channels with a zero variance, a NaN mean and an infinite weight, bit for bit
against torch.nn.functional.batch_norm (eval); its ulp columns measure the folded formula
(ours and torch's alike) against the unfolded one in float64.

Row kernels (softmax, log_softmax, layer_norm, rms_norm): rows of 1024 elements, random
normal at scales 1e-3 .. 1e3 plus special rows (constant, one dominant element, -inf,
+inf and NaN elements, subnormals, zeros), run on hw_emu (the Verilator model of the
rung-4 RTL kernel, ``fpgakern.runtime``). The reference is
``reference.shaped_expected`` (the expression in float64 rounded to float32), the bound
the spec's ``accuracy`` as ``compare.compare_rows`` applies it. Where the RTL of a kind
is not there yet, the row says why and the benchmark measures torch alone.

Columns: max ulp (element ulps, finite results, elements whose reference is at least
2**-10 of the row's largest: below that the bound's row term, not ulps, is what counts),
the share of the bound used by the worst element (``|y - r| / allowed``), and the same for
torch; ours vs torch in element ulps. Exits 1 if any of ours exceeds its bound.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass

import gmpy2
import numpy as np

from fpgakern.errors import FpgakernError
from fpgakern.ir import expr
from fpgakern.ir.kernel import Kernel
from fpgakern.ir.ops import Accuracy, row_sum_depth
from fpgakern.spec.library import Library
from fpgakern.verify import compare, opsim, reference

F32 = np.float32
U32 = np.uint32
COLS = 1024
# MPFR as float32 (24-bit significands, subnormals rounded at their own precision) and a
# wide context for the inner steps, as tests/oplib/test_transcendental.py sets them.
FLOAT32 = gmpy2.context(precision=24, emin=-148, emax=128, subnormalize=True,
                        round=gmpy2.RoundToNearest)
WIDE = gmpy2.context(precision=256, emin=-100000, emax=100000)


# --------------------------------------------------------------------------- references

def _silu(x: float) -> object:
    return FLOAT32.div(x, WIDE.add(1, WIDE.exp(-x)))


def _hardswish(x: float) -> object:
    gate = min(max(WIDE.add(x, 3), 0), 6)
    return FLOAT32.div(WIDE.mul(x, gate), 6)


def _gelu(x: float) -> object:
    # x * Phi(x), Phi through erfc so that the negative tail does not cancel
    return FLOAT32.mul(x, WIDE.mul(0.5, WIDE.erfc(WIDE.div(-x, WIDE.sqrt(2)))))


def _gelu_tanh(x: float) -> object:
    # 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3)
    cubic = WIDE.add(x, WIDE.mul(gmpy2.mpfr("0.044715", 256), WIDE.mul(x, WIDE.mul(x, x))))
    u = WIDE.mul(WIDE.sqrt(WIDE.div(2, WIDE.const_pi())), cubic)
    return FLOAT32.div(x, WIDE.add(1, WIDE.exp(WIDE.mul(-2, u))))


MPFR: dict[str, Callable[[float], object]] = {
    "silu": _silu, "hardswish": _hardswish, "gelu": _gelu, "gelu_tanh": _gelu_tanh}
HARDSWISH = "x * clamp(x + 3, 0, 6) / 6"  # torch's hardswish_kernel, op for op



def correctly_rounded(name: str, x: np.ndarray) -> np.ndarray:
    unique, inverse = np.unique(x.view(U32), return_inverse=True)
    fn = MPFR[name]
    out = []
    with np.errstate(invalid="ignore"):  # signalling NaNs become quiet ones
        values = unique.view(F32).astype(np.float64).tolist()
    for value in values:
        out.append(float("nan") if value != value else float(fn(value)))
    return np.array(out, dtype=np.float64).astype(F32)[inverse.reshape(-1)]


def torch_result(name: str, tensors: dict[str, np.ndarray]) -> np.ndarray:
    import torch
    import torch.nn.functional as fn

    x = torch.from_numpy(tensors["x"])
    w = torch.from_numpy(tensors["weight"]) if "weight" in tensors else None
    b = torch.from_numpy(tensors["bias"]) if "bias" in tensors else None
    result = {
        "silu": lambda: fn.silu(x), "hardswish": lambda: fn.hardswish(x),
        "gelu": lambda: fn.gelu(x), "gelu_tanh": lambda: fn.gelu(x, approximate="tanh"),
        "softmax": lambda: torch.softmax(x, -1), "log_softmax": lambda: torch.log_softmax(x, -1),
        "layer_norm": lambda: fn.layer_norm(x, (x.shape[-1],), w, b, 1e-5),
        "rms_norm": lambda: fn.rms_norm(x, (x.shape[-1],), w),
    }[name]()
    return result.numpy()


# --------------------------------------------------------------------------- stimulus

def elementwise_inputs(rng: np.random.Generator, n: int) -> np.ndarray:
    """Special values, every exponent of both signs, then random values: most over
    [-20, 20] (where these functions bend), the rest over all finite floats."""
    fixed = np.concatenate([opsim.fp32_unary_specials().view(F32),
                            opsim.fp32_every_exponent().view(F32),
                            np.array([-3, 3, -6, 6, -3.0000002, 2.9999998], F32)])
    rest = max(0, n - fixed.size)
    dense = rng.uniform(-20, 20, rest - rest // 4).astype(F32)
    wide = opsim.fp32_random(rng, rest // 4).view(F32)
    return np.concatenate([fixed, dense, wide])


def row_inputs(rng: np.random.Generator, rows: int) -> np.ndarray:
    """Random normal rows at scales 1e-3 .. 1e3, then special rows."""
    special = [np.full(COLS, 1.5), np.zeros(COLS), np.full(COLS, 1e-40)]
    dominant = rng.standard_normal(COLS)
    dominant[7] = 90.0
    special.append(dominant)
    for value in (-np.inf, np.inf, np.nan):
        row = rng.standard_normal(COLS)
        row[11] = value
        special.append(row)
    masked = rng.standard_normal(COLS)
    masked[COLS // 2:] = -np.inf  # a causal mask's row
    special.append(masked)
    scales = np.array([1e-3, 0.1, 1.0, 10.0, 1e3])
    count = rows - len(special)
    x = rng.standard_normal((count, COLS)) * scales[np.arange(count) % scales.size, None]
    return np.concatenate([x, np.array(special)]).astype(F32)


# --------------------------------------------------------------------------- measures

@dataclass
class Row:
    kernel: str
    elements: int
    bound: str
    ours: str
    ours_share: float | None
    torch_ulp: str
    torch_share: float | None
    vs_torch: str
    ok: bool
    note: str = ""


def _max_ulp(expected: np.ndarray, actual: np.ndarray, scale: np.ndarray | None) -> int:
    keep = np.isfinite(expected) & np.isfinite(actual)
    if scale is not None:
        keep &= np.abs(expected) >= scale * 2.0**-10
    return int(compare.ulp_distance(expected[keep], actual[keep]).max()) if keep.any() else 0


def _share(expected: np.ndarray, actual: np.ndarray, accuracy: Accuracy) -> float:
    """The worst element's |y - r| over its allowed error (rows of COLS); inf if a
    special value differs."""
    rows = expected.reshape(-1, expected.shape[-1])
    got = actual.reshape(rows.shape)
    finite = np.isfinite(rows)
    m = np.max(np.where(finite, np.abs(rows), 0), axis=-1, keepdims=True)
    row_ulps = accuracy.row_ulps + accuracy.sum_ulps * row_sum_depth(rows.shape[-1])
    allowed = (accuracy.ulps * np.spacing(np.abs(rows)).astype(np.float64)
               + row_ulps * np.spacing(m.astype(F32)).astype(np.float64))
    same = (rows.view(U32) == got.view(U32)) | (np.isnan(rows) & np.isnan(got))
    if not (same | (finite & np.isfinite(got))).all():
        return float("inf")
    with np.errstate(all="ignore"):
        ratio = np.where(same, 0.0, np.abs(rows.astype(np.float64) - got) / allowed)
    return float(ratio.max())


def _row_scale(expected: np.ndarray) -> np.ndarray:
    finite = np.isfinite(expected)
    return np.max(np.where(finite, np.abs(expected), 0), axis=-1, keepdims=True)


# --------------------------------------------------------------------------- ours

def rtl_elementwise(node: expr.Node, x: np.ndarray) -> np.ndarray:
    """``node`` evaluated on ``x`` by the RTL operators, one Verilator model per op."""
    match node:
        case expr.Input():
            return x
        case expr.Const(value=value):
            return np.full(x.shape, value, F32)
        case expr.Apply(op=op, args=args):
            operands = [rtl_elementwise(a, x).view(U32) for a in args]
            impl = op.rtl.get("float32")
            if impl is None:
                raise FpgakernError(f"{op.name} has no float32 RTL operator")
            return opsim.simulate_operator(impl.module, operands, impl.latency).view(F32)
    raise TypeError(node)


def rtl_shaped(kernel: Kernel, tensors: dict[str, np.ndarray],
             scalars: dict[str, float]) -> np.ndarray:
    """The rung-4 RTL kernel on hw_emu (fpgakern.runtime builds its model on first use),
    on whole tensors with their shapes."""
    from fpgakern import ladder, runtime

    device = runtime.open_plans([ladder.plan(kernel, 4, "float32")], "hw_emu")
    handle = device.kernel(f"{kernel.category}/{kernel.name}")
    return np.asarray(handle(*(tensors[name] for name in kernel.inputs), **scalars))


# --------------------------------------------------------------------------- kernels

# The bound of each elementwise kernel against the correctly rounded function, and where
# it holds (docs/nn_ops.md derives both). Below the normal range a float has fewer
# significant bits than an ulp bound presumes: there the error is absolute.
SIGMOID_NORMAL = -87.33654  # sigmoid(x) < 2**-126 below: a subnormal, 2 of its ulps off
BIG = float(np.finfo(F32).max) / 6  # hardswish's x * 6 overflows above, as in torch's


@dataclass(frozen=True)
class Elementwise:
    bound: int  # ulps, where ``domain`` holds
    domain: Callable[[np.ndarray, np.ndarray], np.ndarray]  # (x, reference) -> covered
    # (x, reference) -> the absolute error allowed elsewhere (nan: must equal torch)
    tail: Callable[[np.ndarray, np.ndarray], np.ndarray]


def _normal(want: np.ndarray) -> np.ndarray:
    return (np.abs(want) >= 2.0**-126) | (want == 0) | ~np.isfinite(want)


def _spacing(want: np.ndarray) -> np.ndarray:
    return np.spacing(np.abs(want)).astype(np.float64)


ELEMENTWISE = {
    # x * sigmoid(x): sigmoid's 2 ulp, the product's half ulp and the reference's rounding,
    # 3 ulp while sigmoid(x) is normal; below, sigmoid's 2 ulp are 2 * 2**-149, times |x|
    "silu": Elementwise(3, lambda x, r: (x >= SIGMOID_NORMAL) & _normal(r),
                        lambda x, r: 2 * np.abs(x.astype(np.float64)) * 2.0**-149
                        + _spacing(r)),
    # x * clamp(x + 3, 0, 6) / 6: two roundings, 2 ulp; subnormal results 2 of their
    # ulps; above FLT_MAX / 6, x * 6 overflows to inf where x itself does not (torch's too)
    "hardswish": Elementwise(2, lambda x, r: (np.abs(x) <= BIG) & _normal(r),
                             lambda x, r: np.where(np.abs(x) <= BIG, 2 * _spacing(r), np.nan)),
}


def _tail_ok(spec: Elementwise, x: np.ndarray, want: np.ndarray, got: np.ndarray,
             theirs: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        allowed = spec.tail(x, want)
    same = (want.view(U32) == got.view(U32)) | (np.isnan(want) & np.isnan(got))
    with np.errstate(all="ignore"):
        near = np.abs(want.astype(np.float64) - got) <= allowed
    as_torch = np.isnan(allowed) & ((got.view(U32) == theirs.view(U32))
                                    | (np.isnan(got) & np.isnan(theirs)))
    return same | near | as_torch


def measure_elementwise(name: str, node: expr.Node, x: np.ndarray, spec: Elementwise) -> Row:
    want = correctly_rounded(name, x)
    theirs = torch_result(name, {"x": x})
    inside = spec.domain(x, want)
    try:
        ours: np.ndarray | None = rtl_elementwise(node, x)
    except FpgakernError as error:
        print(f"{name}: ours not measured: {error}", file=sys.stderr)
        ours = None
    outside = ~inside
    note = f"{int(outside.sum())} outside the ulp bound's domain"
    tail_ok = True
    if outside.any():
        note += f": torch max {_max_ulp(want[outside], theirs[outside], None)} ulp"
        if ours is not None:
            bad = ~_tail_ok(spec, x[outside], want[outside], ours[outside], theirs[outside])
            tail_ok = not bad.any()
            note += (f", ours max {_max_ulp(want[outside], ours[outside], None)} ulp, "
                     f"{int(bad.sum())} over their absolute bound")
    share = None if ours is None else _ulp_share(want[inside], ours[inside], spec.bound)
    return Row(name, x.size, f"<= {spec.bound} ulp",
               "-" if ours is None else str(_max_ulp(want[inside], ours[inside], None)),
               share, str(_max_ulp(want[inside], theirs[inside], None)),
               _ulp_share(want[inside], theirs[inside], spec.bound),
               "-" if ours is None else str(_max_ulp(theirs, ours, None)),
               share is None or (share <= 1 and tail_ok), note)


def _ulp_share(want: np.ndarray, got: np.ndarray, bound: int) -> float:
    """The worst element's ulps over ``bound``; inf if a special value differs."""
    same = (want.view(U32) == got.view(U32)) | (np.isnan(want) & np.isnan(got))
    if not (same | (np.isfinite(want) & np.isfinite(got))).all():
        return float("inf")
    distance = compare.ulp_distance(want, got)
    return float(np.where(same, 0, distance).max(initial=0)) / bound


def measure_rows(kernel: Kernel, x: np.ndarray, rng: np.random.Generator) -> Row:
    tensors: dict[str, np.ndarray] = {"x": x}
    for name in kernel.inputs[1:]:  # per-column weight and bias: random normal
        tensors[name] = rng.standard_normal(COLS).astype(F32)
    scalars = {s.name: float(s.default) for s in kernel.scalars}
    accuracy = kernel.accuracy("float32")
    want = reference.shaped_expected(kernel, "float32", tensors, scalars)
    theirs = torch_result(kernel.name, tensors)
    scale = _row_scale(want)
    try:
        ours: np.ndarray | None = rtl_shaped(kernel, tensors, scalars).reshape(want.shape)
    except FpgakernError as error:
        print(f"{kernel.name}: ours not measured on hw_emu: {error}", file=sys.stderr)
        ours = None
    fine = None if ours is None else compare.compare_rows(want, ours, accuracy)
    return Row(kernel.name, x.size, str(accuracy).removeprefix("<= "),
               "-" if ours is None else str(_max_ulp(want, ours, scale)),
               None if ours is None else _share(want, ours, accuracy),
               str(_max_ulp(want, theirs, scale)), _share(want, theirs, accuracy),
               "-" if ours is None else str(_max_ulp(theirs, ours, _row_scale(theirs))),
               fine is None or fine.passed)


def batch_norm_inputs(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """x of shape (N, 64, 1024), N from ``n``, with NaN, +-inf and subnormal elements;
    running statistics with a zero variance, a NaN mean and an infinite weight among the
    channels."""
    channels = 64
    x = rng.standard_normal((max(1, n // (channels * COLS)), channels, COLS)).astype(F32)
    flat = x.reshape(-1)
    flat[:8] = [np.nan, np.inf, -np.inf, 1e-40, -1e-45, 0.0, -0.0, 3e38]
    mean = rng.standard_normal(channels).astype(F32)
    var = (rng.random(channels) * 4).astype(F32)
    weight = rng.standard_normal(channels).astype(F32)
    bias = rng.standard_normal(channels).astype(F32)
    var[1], mean[2], weight[3], var[4] = 0.0, np.nan, np.inf, 1e-30
    return {"x": x, "running_mean": mean, "running_var": var, "weight": weight,
            "bias": bias}


def measure_batch_norm(kernel: Kernel, tensors: dict[str, np.ndarray]) -> Row:
    """Bit for bit torch's (both fold the statistics as torch's CPU kernel does); the ulp
    columns are against (x - mean) / sqrt(var + eps) * weight + bias in float64, rounded
    once, over elements at least 2**-10 of the largest finite result."""
    import torch
    import torch.nn.functional as fn

    scalars = {"eps": 1e-5}
    x, mean, var, weight, bias = (tensors[k] for k in kernel.inputs)
    theirs = fn.batch_norm(*(torch.from_numpy(a) for a in (x, mean, var, weight, bias)),
                           training=False, eps=1e-5).numpy()
    view = (1, -1, 1)
    with np.errstate(all="ignore"):
        exact = ((x.astype(np.float64) - mean.reshape(view)) / np.sqrt(
            var.astype(np.float64).reshape(view) + np.float64(F32(1e-5)))
            * weight.reshape(view) + bias.reshape(view)).astype(F32)
    finite = np.isfinite(exact)
    scale = np.array(np.max(np.abs(exact[finite]), initial=0))
    try:
        ours: np.ndarray | None = rtl_shaped(kernel, tensors, scalars).reshape(x.shape)
    except FpgakernError as error:
        print(f"{kernel.name}: ours not measured on hw_emu: {error}", file=sys.stderr)
        ours = None
    differ = None if ours is None else int(
        (~((ours.view(U32) == theirs.view(U32)) | (np.isnan(ours) & np.isnan(theirs)))).sum())
    return Row(kernel.name, x.size, "bit for bit torch's",
               "-" if ours is None else str(_max_ulp(exact, ours, scale)), None,
               str(_max_ulp(exact, theirs, scale)), None, "-" if ours is None else
               str(_max_ulp(theirs, ours, None)), differ in (None, 0),
               "" if differ is None else f"{differ} elements differ from torch's "
               "(NaN, inf, subnormal x; zero variance; NaN mean; inf weight included)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1 << 20, help="elements per kernel")
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--only", default="", help="comma-separated kernel names")
    args = parser.parse_args(argv)
    only = {k for k in args.only.split(",") if k}
    library = Library.for_project()
    rng = np.random.default_rng(args.seed)
    known = {k.qualname for k in library.kernels}
    rows: list[Row] = []
    x = elementwise_inputs(rng, args.n)
    for name in ("silu", "hardswish", "gelu", "gelu_tanh"):
        if only and name not in only:
            continue
        if name == "hardswish":
            node = expr.parse(HARDSWISH, {"x": "float32"}, {})
        elif f"nn_ops/{name}" in known:
            kernel = library.get(f"nn_ops/{name}")
            node = kernel.graph("float32")
        else:
            print(f"{name}: no nn_ops/{name} spec in the library yet, skipped",
                  file=sys.stderr)
            continue
        # gelu and gelu_tanh: their op's own bound, over every input
        spec = ELEMENTWISE.get(name) or Elementwise(
            library.get(f"nn_ops/{name}").accuracy("float32").ulps,
            lambda x, r: np.ones(x.shape, bool), lambda x, r: np.zeros(x.shape))
        rows.append(measure_elementwise(name, node, x, spec))
    if not only or "batch_norm" in only:
        rows.append(measure_batch_norm(library.get("nn_ops/batch_norm"),
                                       batch_norm_inputs(rng, args.n)))
    for name in ("softmax", "log_softmax", "layer_norm", "rms_norm"):
        if only and name not in only:
            continue
        data = row_inputs(rng, max(1, args.n // COLS))
        rows.append(measure_rows(library.get(f"nn_ops/{name}"), data, rng))
    print("| kernel | elements | bound | ours max ulp | ours share of bound | torch max ulp "
          "| torch share of bound | ours vs torch (ulp) | notes |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---|")
    for r in rows:
        ours, theirs = ("-" if v is None else f"{v:.3f}" for v in (r.ours_share, r.torch_share))
        print(f"| {r.kernel} | {r.elements:,} | {r.bound} | {r.ours} | {ours} | "
              f"{r.torch_ulp} | {theirs} | {r.vs_torch} | {r.note} |")
    bad = [r.kernel for r in rows if not r.ok]
    if bad:
        print(f"over the bound: {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
