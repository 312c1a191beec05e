"""The reference as Vitis-built float hardware computes it: subnormals flushed to zero.

Vitis binds float add, subtract, multiply, divide and square root to the Floating-Point
Operator core, which treats a subnormal operand as a zero of its sign and returns a zero
of the result's sign where the result would be subnormal (docs/vitis.md gives the
sources). :func:`expected_output` evaluates a kernel's graph as
:func:`fpgakern.verify.reference.expected_output` does, but applies each op's
``vitis.subnormals`` rule from the op table at every node:

* ``flush``: operands flushed, the op's reference, the result flushed;
* ``compare``: the decision is taken on flushed operands, and a selected operand passes
  through with its own bits (a multiplexer does not flush), mirroring ``fk::maximum``,
  ``fk::minimum`` and ``fk::relu`` in ``fpgakern_ops.h``;
* ``exact``: the op's reference unchanged (sign-bit logic, conversions).

An op whose HLS spelling chains several flushing steps has its own rule (``_CHAINS``):
``fk::remainder`` is ``hls::fmod``, whose result is flushed before the sign check, then
a flushing add.

Inputs reach the first op unchanged: memory and streams carry raw bits.

Vitis C simulation is another model (:func:`csim_apply`): it computes on x86 floats, IEEE,
except where Vitis' HLS math library calls the Floating-Point Operator core's
bit-accurate C model, which flushes like the core: ``hls::sqrt`` (``hls_fpo.h`` maps it to
``xil_fpo_sqrt_flt``, and Vitis' csim makefiles define ``__SIM_FPO__`` and link
``Ip_floating_point_v7_1_bitacc_cmodel``; docs/vitis.md, "Vitis C simulation").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fpgakern.ir import expr
from fpgakern.ir.kernel import Kernel
from fpgakern.ir.ops import OPS, Op
from fpgakern.verify import reference
from fpgakern.verify.stimulus import Case

_EXPONENT = np.uint32(0x7F80_0000)
_SIGN = np.uint32(0x8000_0000)
_SMALLEST_NORMAL = float(np.finfo(np.float32).tiny)


def flush(x: np.ndarray) -> np.ndarray:
    """float32 subnormals replaced by a zero of their sign; anything else unchanged."""
    if x.dtype != np.float32:
        return x
    bits = x.view(np.uint32)
    subnormal = (bits & _EXPONENT) == 0
    return np.where(subnormal, bits & _SIGN, bits).astype(np.uint32).view(np.float32)


def _maximum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``fk::maximum`` with comparisons that see subnormals as zero."""
    fa, fb = flush(a), flush(b)
    with np.errstate(invalid="ignore"):
        tie = np.where(np.signbit(a), b, a)
        out = np.where(fa == fb, tie, np.where(fa > fb, a, b))
    return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), out).astype(np.float32)


def _minimum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``fk::minimum`` with comparisons that see subnormals as zero."""
    fa, fb = flush(a), flush(b)
    with np.errstate(invalid="ignore"):
        tie = np.where(np.signbit(a), a, b)
        out = np.where(fa == fb, tie, np.where(fa < fb, a, b))
    return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), out).astype(np.float32)


def _relu(x: np.ndarray) -> np.ndarray:
    """``fk::relu``: ``x < 0 ? 0 : x``, the comparison seeing subnormals as zero."""
    with np.errstate(invalid="ignore"):
        return np.where(flush(x) < 0, np.float32(0.0), x).astype(np.float32)


def _fold(pick: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    """A max/min reduction as a left-to-right chain of ``pick``. The HLS kernel combines
    in another order; the two differ only where several distinct subnormals of one sign
    tie for the result as zeros (which raw one comes out depends on the order)."""
    def reduce(x: np.ndarray) -> np.ndarray:
        acc = x[:1].copy()
        for i in range(1, x.size):
            acc = pick(acc, x[i:i + 1])
        return acc

    return reduce


def _fma_wide(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    return x * y + z  # the op table's _fma rounds to float32; its float64 form suffices here


# float64 forms of the flush ops whose reference always returns float32.
_WIDE: dict[str, Callable[..., np.ndarray]] = {"fma": _fma_wide}


def _flushed(entry: Op, args: list[np.ndarray]) -> np.ndarray:
    """A ``flush`` op: operands flushed, and a zero of the result's sign wherever the
    exact result is below the smallest normal. Tininess is judged before rounding, as
    x86's flush-to-zero mode does (which the flushing C simulation runs with): a product
    just below 2**-126 that rounds up to it is flushed too. The exact result comes from
    the op's reference in float64 (exact for add, subtract and multiply of float32
    values; near enough for the rest to decide the comparison)."""
    operands = [flush(a) for a in args]
    narrow = entry.reference(*operands)
    if narrow.dtype != np.float32:
        return narrow
    wide_operands = [a.astype(np.float64) if a.dtype == np.float32 else a for a in operands]
    with np.errstate(all="ignore"):
        wide = _WIDE.get(entry.name, entry.reference)(*wide_operands)
        tiny = np.abs(np.asarray(wide, dtype=np.float64)) < _SMALLEST_NORMAL
    return np.where(tiny, np.copysign(np.float32(0.0), narrow), narrow).astype(np.float32)


def _remainder(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``fk::remainder``: ``r = hls::fmod(a, b)``, flushed (a subnormal r becomes a zero
    of its sign and then takes no correction: remainder(-(2**-125 + 2**-140), 2**-125)
    is -0, where IEEE gives 2**-125 - 2**-140), then ``r + b`` where r is nonzero with a
    sign other than b's, a flushing add. b's sign is its bit (``hls::signbit``)."""
    r = _flushed(OPS["fmod"], [a, b])
    with np.errstate(invalid="ignore"):
        adjust = (r != 0) & (np.signbit(r) != np.signbit(b))
    return np.where(adjust, _flushed(OPS["add"], [r, b]), r).astype(np.float32)


# The flush ops whose HLS spelling is several flushing steps, each flushed in turn.
_CHAINS: dict[str, Callable[..., np.ndarray]] = {"remainder": _remainder}

# The ops whose float result is one of their operands, chosen by a comparison.
_SELECTS: dict[str, Callable[..., np.ndarray]] = {
    "maximum": _maximum, "minimum": _minimum, "relu": _relu,
    "max": _fold(_maximum), "min": _fold(_minimum),
    "clamp": lambda x, lo, hi: _minimum(_maximum(x, lo), hi),  # fk::clamp's two picks
}


def apply(entry: Op, args: list[np.ndarray]) -> np.ndarray:
    """One op on float32 hardware built by Vitis (see the module docstring)."""
    rule = entry.vitis.subnormals if entry.vitis is not None else "exact"
    if rule == "exact" or not any(a.dtype == np.float32 for a in args):
        return entry.reference(*args)
    if rule == "flush":
        chain = _CHAINS.get(entry.name)
        return chain(*args) if chain is not None else _flushed(entry, args)
    select = _SELECTS.get(entry.name)
    if select is not None and args[0].dtype == np.float32:
        return select(*args)
    return entry.reference(*(flush(a) for a in args))  # a comparison's bool result


def evaluate_node(node: expr.Node, case: Case, size: int) -> np.ndarray:
    if isinstance(node, expr.Apply):
        return apply(node.op, [evaluate_node(a, case, size) for a in node.args])
    return reference.evaluate_node(node, case, size)


def reduction_operand(kernel: Kernel, dtype_name: str, case: Case) -> np.ndarray:
    """The values a reduction's combine sees: its body's results, flushed on the way in
    (the combine op, fadd or fcmp, treats subnormal operands as zero)."""
    return flush(evaluate_node(kernel.elementwise_body(dtype_name), case, case.size))


def expected_output(kernel: Kernel, dtype_name: str, case: Case) -> np.ndarray:
    """What Vitis-built hardware produces for ``case``, by the op table's rules."""
    return evaluate_node(kernel.graph(dtype_name), case, case.size)


# The HLS library functions Vitis C simulation computes with the Floating-Point Operator
# core's C model (the module docstring); an op is modelled so where its HLS spelling calls
# one. On some releases hls::exp does too (the project's Vitis review found one copy of
# hls_math that maps it to HLS_FPO_EXPF); which ones is unconfirmed, so it is not listed.
CSIM_FPO_FUNCTIONS = ("hls::sqrt",)
CSIM_FPO_OPS = frozenset(name for name, entry in OPS.items()
                         if any(f"{function}(" in entry.hls for function in CSIM_FPO_FUNCTIONS))


def _flush_wide(x: np.ndarray) -> np.ndarray:
    """float64 values that stand for float32 ones (a row kernel's wide evaluation) below
    float32's smallest normal replaced by a zero of their sign."""
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(x) < _SMALLEST_NORMAL, np.copysign(0.0, x), x)


def csim_apply(entry: Op, args: list[np.ndarray]) -> np.ndarray:
    """One op as Vitis C simulation computes it: the op table's reference (IEEE), but an
    op in CSIM_FPO_OPS by its flush rule (:func:`apply`), on float64 operands too."""
    if entry.name not in CSIM_FPO_OPS:
        return entry.reference(*args)
    if any(a.dtype == np.float32 for a in args):
        return apply(entry, args)
    with np.errstate(all="ignore"):
        return _flush_wide(entry.reference(*(_flush_wide(a) for a in args)))


def csim_fpo_ops(kernel: Kernel, dtype_name: str) -> list[str]:
    """The ops of the kernel whose Vitis C simulation flushes subnormals (CSIM_FPO_OPS),
    in evaluation order: where its csim reference differs from torch's."""
    return [entry.name for entry in kernel.ops_used(dtype_name) if entry.name in CSIM_FPO_OPS]
