"""The op table's data model: what one entry (:class:`Op`) holds, its accuracy contract
(:class:`Accuracy`), its RTL module (:class:`RtlImpl`) and what Vitis builds for it
(:class:`VitisImpl`). The entries themselves are in this package's family modules, the
table (``OPS``) in :mod:`fpgakern.ir.ops.table`."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from fpgakern.ir.dtypes import DTYPES

FLOAT = frozenset({"float32"})
INT = frozenset({"int32"})
BOTH = FLOAT | INT
COMPLEX = frozenset({"complex64"})

# Index reductions (argmax, argmin): the element whose index the reduction returns is the
# larger or the smaller of every pair it compares (Op.picks).
Pick = Literal["larger", "smaller"]


@dataclass(frozen=True)
class Accuracy:
    """What a verifier demands of an op's results against its reference.

    ``exact``: bit for bit (any NaN matches any NaN). ``ulp``: within ``ulps`` units in the
    last place. ``reduction``: a floating-point reduction whose order of combination is
    the hardware's; judged against a float64 reference with the standard error bound of
    its ``bound``: ``sum``, ``n * 2**-24 * sum(|x|)``; ``product``,
    ``n * 2**-24 * |prod(x)|`` (n roundings, each relative, while every partial product
    stays a normal number: verify.stimulus keeps them there); ``mean``, the sum's bound
    divided by n plus the roundings of float(n) and of the quotient, each half an ulp
    (``2**-24 * sum(|x|) + 2**-23 * sum(|x|) / n``).
    """

    kind: Literal["exact", "ulp", "reduction", "rows"]
    ulps: int = 0
    bound: Literal["sum", "product", "mean"] = "sum"
    # ``rows`` (a shaped kernel that reduces along rows, stated in its spec): each element
    # within ``ulps`` ulps of itself plus ``row_ulps`` ulps of its row's largest magnitude,
    # plus ``sum_ulps`` row-largest ulps per rounding a row sum's term goes through
    # (row_sum_depth: a float sum's error grows with it), against the float64 evaluation
    # of the expression rounded to float32 (verify.compare.compare_rows):
    # |y - r| <= ulps * ulp(r) + (row_ulps + sum_ulps * row_sum_depth(cols)) * ulp(m),
    # m = max |r| of the row. docs/nn_ops.md derives each nn_ops kernel's three numbers.
    row_ulps: int = 0
    sum_ulps: int = 0

    def __str__(self) -> str:
        if self.kind == "rows":
            per_depth = f" + {self.sum_ulps} per sum depth" if self.sum_ulps else ""
            return f"<= {self.ulps} ulp + {self.row_ulps}{per_depth} ulp of the row's largest"
        if self.kind == "reduction" and self.bound != "sum":
            return f"reduction ({self.bound})"
        return f"<= {self.ulps} ulp" if self.kind == "ulp" else self.kind


EXACT = Accuracy("exact")

# The widest memory word of the ladder (rung 4's 512 bits): with Plan.lanes 1 below it,
# the two lane counts a float32 row sum can have, whose rounding depths row_sum_depth takes
# the larger of.
_VECTOR_BITS = 512


def row_sum_depth(cols: int, dtype_name: str = "float32") -> int:
    """The most roundings any term of a float row sum of ``cols`` elements goes through in
    the hardware's order on any rung (fk_reduce_core, docs/operators.md): log2(L) in the
    tree over a beat's L lanes, one per later beat into its partial (beat k joins partial
    k % P; the first joins the identity exactly), log2(P) in the final tree over the P
    partials. The larger of L = 1 and L = Plan.lanes at rung 4; 0 for an empty row. The
    standard bound then holds: |computed - exact| <= depth * 2**-24 * sum |terms| (to
    first order; depth * 2**-24 stays below 1e-4 for cols <= shapes.MAX_ROW)."""
    if cols <= 0:
        return 0
    partials = OPS["sum"].partials(dtype_name)
    depths = []
    for lanes in (1, DTYPES[dtype_name].lanes(_VECTOR_BITS)):
        beats = -(-cols // lanes)
        depths.append(int(math.log2(lanes)) + -(-beats // partials) - 1
                      + int(math.log2(partials)))
    return max(depths)

# The kernel clock the HLS path is scheduled for: Vitis' default for Alveo platforms.
# ``Op.hls_latency`` holds Vitis' operator latencies at this clock
# (docs/operators.md, "Vitis HLS operator latencies", gives the sources).
HLS_CLOCK_MHZ = 300


Subnormals = Literal["flush", "compare", "exact"]


@dataclass(frozen=True)
class VitisImpl:
    """What Vitis HLS makes of an op's float32 HLS spelling (docs/vitis.md cites sources).

    ``core``: what Vitis binds the operation to. ``subnormals``: ``flush`` (the
    Floating-Point Operator core's rule: subnormal operands count as zero of their sign,
    and subnormal results become zero of their sign), ``compare`` (a comparison that
    sees subnormal operands as zero; a selected operand passes through unchanged) or
    ``exact`` (sign-bit logic or integer-only values: no subnormal is ever changed).
    ``accuracy``: the rounding or ulp bound of the Vitis implementation, as documented
    (or stated as unconfirmed). ``csim``: what fpgakern's C simulation computes instead
    (x86 SSE arithmetic and glibc, through ``hls_templates/csim``).
    """

    core: str
    subnormals: Subnormals
    accuracy: str
    csim: str = "x86 SSE, IEEE (bit-exact)"


# The Floating-Point Operator core's arithmetic, for the ops Vitis binds to it.
_RNE = "round to nearest even (0.5 ulp)"


def _fp_core(op: str) -> VitisImpl:
    return VitisImpl(f"Floating-Point Operator core ({op})", "flush", _RNE)



@dataclass(frozen=True)
class RtlImpl:
    """The RTL operator module implementing an op for one dtype.

    The module has ports ``clk``, ``ce``, operand inputs ``a`` (``b``, ``c``) and result
    ``y``, accepts a new operand set every cycle (II=1) and shows the result ``latency``
    cycles later (counting only cycles with ``ce`` high).

    For a reduction (``Op.kind == "reduce"``) the module is the accumulator
    ``fk_reduce_<dtype>_<op>`` (stream interface with in_valid/in_ready, lane mask and
    in_last; parameters LANES and P, see :meth:`Op.partials`), and ``latency`` is the
    cycles from taking the last beat to ``out_valid`` with LANES=1 (add log2(LANES) x the
    combine op's latency for LANES lanes).

    Each module's measured resources are docs/operators.md's table, which
    ``benchmarks/operator_resources.py`` synthesizes afresh.
    """

    module: str
    latency: int


@dataclass(frozen=True)
class Op:
    """One operator. See the module docstring for what each field feeds."""

    name: str
    arity: int
    kind: Literal["elementwise", "reduce"]
    dtypes: frozenset[str]
    reference: Callable[..., np.ndarray]
    hls: str
    doc: str
    accuracy: Accuracy | Mapping[str, Accuracy] = EXACT
    symbol: str | None = None  # infix or prefix spelling in spec expressions
    result_dtype: str | None = None  # None: same as the operands
    # Per operand dtype, a result dtype other than result_dtype's (complex64 abs: float32).
    results: Mapping[str, str] = field(default_factory=dict)
    # Operand 0 is a condition: a comparison's bool, which no other operand may be; the
    # op's dtype is that of the other operands (where).
    condition: bool = False
    rtl: Mapping[str, RtlImpl] = field(default_factory=dict)
    # Reductions only: the elementwise op that merges partial results, and its identity
    # (-0.0 for float sums: x + -0 is x for every x, including -0, where +0 is not).
    combine: str | None = None
    identity: Mapping[str, float | int] = field(default_factory=dict)
    # Reductions only: the elementwise op that makes the result from the combined value
    # and the element count n (converted to the dtype), as finish(combined, n): mean's
    # div. Where compute units share the work, the host combines their results and
    # finishes once (the kernel then stops at the combined value).
    finish: str | None = None
    # Reductions only: the reduction whose RTL accumulator this one streams through
    # before its finish (mean: sum's); None for its own.
    accumulates: str | None = None
    # Index reductions only (argmax, argmin): the result is the index, int64 as torch
    # returns it, of the element this pick keeps over all others: the larger or the
    # smaller value, NaN beating every number, and among equal values (-0 == +0, NaN ==
    # NaN) the lower index. Partial results are (value, index) pairs merged by that rule
    # (fk::pick in the HLS C++, fk_pick in the RTL), which orders all pairs totally, so any
    # order of combination gives the same index. ``combine`` is then the comparison whose
    # latency sizes the partials (maximum's or minimum's: fk_pick takes as long), and
    # ``identity`` the value of an empty pair, whose index is above every element's.
    picks: Pick | None = None
    # Cycles Vitis HLS takes for the op at HLS_CLOCK_MHZ, per dtype (combine ops only).
    hls_latency: Mapping[str, int] = field(default_factory=dict)
    # What real Vitis HLS builds for the float32 spelling (every op with a float32 operand
    # or result has one; check.check_table holds it to that).
    vitis: VitisImpl | None = None

    def result_for(self, dtype_name: str) -> str:
        """The dtype of the op's result for operands of ``dtype_name``."""
        return self.results.get(dtype_name) or self.result_dtype or dtype_name

    def accuracy_for(self, dtype_name: str) -> Accuracy:
        if isinstance(self.accuracy, Accuracy):
            return self.accuracy
        return self.accuracy[dtype_name]

    def hls_call(self, *operands: str) -> str:
        return self.hls.format(*operands)

    def partials(self, dtype_name: str) -> int:
        """Reductions: P, the partial results the accumulator interleaves so that it takes
        an element (or beat) every cycle although each combine takes the combine op's
        latency: the power of two (the final combine halves them) at least that latency.
        P fixes the order of combination (docs/operators.md), which the HLS C++ mirrors."""
        assert self.combine is not None, f"op {self.name} is not a reduction"
        return _power_of_two_at_least(OPS[self.combine].rtl[dtype_name].latency)

    def hls_partials(self, dtype_name: str) -> int:
        """Reductions: the partial results the HLS C++ accumulate loop interleaves, the
        power of two at least the combine op's latency in Vitis HLS at HLS_CLOCK_MHZ, so
        that its recurrence (distance ACC) allows II=1. Where the combine is sensitive to
        order (float add and mul), it is :meth:`partials`, the RTL's P, for C simulation
        and RTL simulation to agree bit for bit; ``check.check_table`` holds P to at least the
        Vitis latency (more partials than needed still allow II=1)."""
        assert self.combine is not None, f"op {self.name} is not a reduction"
        if self.combine in ORDER_SENSITIVE and dtype_name in FLOAT:
            return self.partials(dtype_name)
        return _power_of_two_at_least(OPS[self.combine].hls_latency[dtype_name])


    def pick_among(self, values: np.ndarray, indices: np.ndarray) -> np.ndarray:
        """Index reductions: the winner among candidates (compute units' picks, in CU order:
        their values and their indices into the whole input), as an int64 1-element array.
        The reference picks among the values, a tie going to the first candidate, whose
        index is the lowest."""
        assert self.picks is not None, f"op {self.name} is not an index reduction"
        return np.asarray(indices, dtype=np.int64)[self.reference(values)]


def _power_of_two_at_least(latency: int) -> int:
    return 1 << (max(latency, 1) - 1).bit_length()



# Combine ops whose result depends on the order of combination (float rounding): the
# HLS C++ must interleave as many partials as the RTL. IEEE maximum/minimum and integer
# add and mul give one result in any order, so their HLS interleave follows Vitis alone.
ORDER_SENSITIVE = frozenset({"add", "mul"})

# Every op by name: the table, filled once by fpgakern.ir.ops.table from the family
# modules. It lives here because a reduction's methods look its combine op up in it.
OPS: dict[str, Op] = {}
