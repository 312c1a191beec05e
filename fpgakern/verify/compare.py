"""Judging results against the reference with each op's accuracy class."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from fpgakern.ir import expr
from fpgakern.ir import kernel as kernel_rules
from fpgakern.ir.kernel import Kernel
from fpgakern.ir.ops import EXACT, Accuracy, row_sum_depth
from fpgakern.verify import reference
from fpgakern.verify.stimulus import Case

MAX_REPORTED = 5
# judge(), judge_shaped(): up to this many inexact operations inside an expression are
# followed exactly (fpgakern.ir.kernel.MAX_FOLLOWED); beyond, their bounds add.
MAX_FOLLOWED = kernel_rules.MAX_FOLLOWED
_F32_EPS_HALF = 2.0**-24
_F32_MIN_SUBNORMAL = float(np.finfo(np.float32).smallest_subnormal)


@dataclass(frozen=True)
class Mismatch:
    index: int
    expected: np.generic
    actual: np.generic

    def __str__(self) -> str:
        return (f"[{self.index}] expected {_show(self.expected)}, got {_show(self.actual)}")


@dataclass
class Verdict:
    """The outcome of one comparison: passed, and the first mismatches if not."""

    passed: bool
    compared: int
    accuracy: str
    mismatches: list[Mismatch] = field(default_factory=list)
    mismatch_count: int = 0
    max_ulp: int = 0

    def summary(self) -> str:
        if self.passed:
            extra = f", max {self.max_ulp} ulp" if self.max_ulp else ""
            return f"{self.compared} values match ({self.accuracy}{extra})"
        shown = "; ".join(str(m) for m in self.mismatches)
        return f"{self.mismatch_count} of {self.compared} values differ ({self.accuracy}): {shown}"


def _show(value: np.generic) -> str:
    bits = np.asarray(value).view(f"uint{np.asarray(value).dtype.itemsize * 8}")
    return f"{value!r} (0x{int(bits):0{np.asarray(value).dtype.itemsize * 2}x})"


def ulp_distance(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    return np.abs(reference.ordered_ints(expected) - reference.ordered_ints(actual))


def reduction_bound(reduced: np.ndarray, accuracy: Accuracy | None = None,
                    body_ulps: int = 0) -> float:
    """The absolute error a float reduction of ``reduced`` may have, plus the smallest
    subnormal: ``len * 2**-24 * sum(|x|)`` for a sum (each of its len roundings errs by at
    most half an ulp of a partial sum, itself at most sum(|x|)); for a product (bound
    ``product``), ``len * 2**-24 * |prod(x)|``: each of its len - 1 multiplications and
    the reference's own rounding to float32 err by at most 2**-24 relative while the
    partial products stay normal (the stimuli keep them so: verify.stimulus); for a mean
    (bound ``mean``), the sum's bound over n plus half an ulp for float(n) and half an ulp
    for the quotient: ``2**-24 * sum(|x|) + 2**-23 * sum(|x|) / n``. ``body_ulps``: the
    elementwise body's inexact ops (``sum(sigmoid(x))``) may give each reduced value that
    many ulps off the reference's, which the bound adds: ``body_ulps * sum(ulp(x))`` for a
    sum, over n for a mean, ``n * body_ulps * 2**-23 * |prod(x)|`` for a product."""
    wide = np.abs(reduced.astype(np.float64))
    bound = "sum" if accuracy is None else accuracy.bound
    with np.errstate(all="ignore"):
        magnitude = float(np.prod(wide) if bound == "product" else np.sum(wide))
    body = 0.0
    if body_ulps:
        with np.errstate(all="ignore"):
            spacing = np.spacing(np.abs(reduced.astype(np.float32))).astype(np.float64)
            body = body_ulps * (2 * _F32_EPS_HALF * reduced.size * magnitude
                                if bound == "product" else float(np.sum(spacing)))
    if bound == "mean":
        # The sum's bound over n, then float(n) and the quotient, each rounded once (half
        # an ulp, at most 2**-24 of |sum| / n <= sum(|x|) / n, each).
        n = max(reduced.size, 1)
        return (_F32_EPS_HALF * magnitude + 2 * _F32_EPS_HALF * magnitude / n
                + body / n + _F32_MIN_SUBNORMAL)
    return reduced.size * _F32_EPS_HALF * magnitude + body + _F32_MIN_SUBNORMAL


def compare(
    expected: np.ndarray,
    actual: np.ndarray,
    accuracy: Accuracy,
    reduced: np.ndarray | None = None,
    body_ulps: int = 0,
) -> Verdict:
    """Compare ``actual`` with ``expected`` under ``accuracy``.

    Any NaN matches any NaN (hardware returns the canonical quiet NaN). For a
    ``reduction`` accuracy, ``reduced`` holds the values that were reduced, which set the
    error bound (:func:`reduction_bound`, with the body's ``body_ulps``).
    """
    bad, max_ulp = _misses(np.asarray(expected), np.asarray(actual), accuracy, reduced,
                           body_ulps)
    return _verdict(np.asarray(expected), np.asarray(actual), bad, str(accuracy), max_ulp)


def _components(x: np.ndarray) -> np.ndarray:
    """A complex64 array's float32 (re, im) pairs, along a new last axis."""
    return np.ascontiguousarray(x, dtype=np.complex64).view(np.float32).reshape(*x.shape, 2)


def _misses(expected: np.ndarray, actual: np.ndarray, accuracy: Accuracy,
            reduced: np.ndarray | None = None, body_ulps: int = 0) -> tuple[np.ndarray, int]:
    """Which elements of ``actual`` miss ``expected`` under ``accuracy``, and the largest
    ulp distance among the finite ones (ulp accuracy only)."""
    if expected.shape != actual.shape:
        raise ValueError(f"shape mismatch: expected {expected.shape}, got {actual.shape}")
    if np.issubdtype(expected.dtype, np.complexfloating):
        # Each float32 component by the float rule; an element passes when both do.
        bad, max_ulp = _misses(_components(expected), _components(actual), accuracy, reduced,
                               body_ulps)
        return np.asarray(bad.any(axis=-1)), max_ulp
    if not np.issubdtype(expected.dtype, np.floating):
        return expected != actual, 0
    both_nan = np.isnan(expected) & np.isnan(actual)
    same_bits = expected.view(np.uint32) == actual.view(np.uint32)
    if accuracy.kind == "exact":
        return ~(both_nan | same_bits), 0
    if accuracy.kind == "ulp":
        distance = ulp_distance(expected, actual)
        finite = ~np.isnan(expected) & ~np.isnan(actual)
        max_ulp = int(distance[finite].max()) if finite.any() else 0
        return ~(both_nan | same_bits | (finite & (distance <= accuracy.ulps))), max_ulp
    if reduced is None:
        raise ValueError("a reduction comparison needs the reduced values")
    bound = reduction_bound(reduced, accuracy, body_ulps)
    with np.errstate(invalid="ignore"):
        error = np.abs(expected.astype(np.float64) - actual.astype(np.float64))
        close = np.isfinite(expected) & (error <= bound)
    return ~(both_nan | same_bits | close), 0


def _verdict(expected: np.ndarray, actual: np.ndarray, bad: np.ndarray, accuracy: str,
             max_ulp: int) -> Verdict:
    where = np.flatnonzero(bad)
    mismatches = [Mismatch(int(i), expected[i], actual[i]) for i in where[:MAX_REPORTED]]
    return Verdict(not where.size, expected.size, accuracy, mismatches, int(where.size),
                   max_ulp)


def judge(kernel: Kernel, dtype_name: str, case: Case, actual: np.ndarray) -> Verdict:
    """The verdict on a kernel's output for ``case``, against the numpy reference.

    Where an ulp-bounded op (exp, atan2, ...) feeds further ops, the hardware's result of
    it may be another float within its bound, and the ops after it carry that choice on:
    exp(x) - 1 near 0 turns exp's one ulp into many. For up to MAX_FOLLOWED such inner
    operations, an element passes when it matches the reference evaluated with each of
    them moved by some number of ulps within its op's bound (the rest of the expression
    exactly, the root within its own bound): the hardware's exact ops are held bit for bit
    to whatever the inexact ones chose. Beyond that, and for reductions, the ulp bounds
    add up (:meth:`Kernel.accuracy`).
    """
    actual = np.asarray(actual)
    expected = reference.expected_output(kernel, dtype_name, case)
    if kernel.transform is not None:  # fpgakern.ir.fft's float32 algorithm, bit for bit
        return compare(expected, actual, EXACT)
    inner = followed_applications(kernel, dtype_name)
    if not inner:
        reduced = (reference.reduction_operand(kernel, dtype_name, case)
                   if kernel.is_reduction else None)
        return compare(expected, actual, kernel.accuracy(dtype_name), reduced,
                       kernel.body_ulps(dtype_name) if reduced is not None else 0)
    return _followed(expected, actual, followed_accuracy(kernel, dtype_name), inner,
                     reference.perturbed_outputs(kernel, dtype_name, case, inner))


def _followed(expected: np.ndarray, actual: np.ndarray, at_root: Accuracy,
              inner: list[expr.Apply], alternatives: Iterator[np.ndarray]) -> Verdict:
    """An element passes when it is within the root's bound ``at_root`` of ``expected`` or
    of one of the ``alternatives`` (the reference with the ``inner`` applications moved;
    evaluated only while some element has not passed)."""
    bad, max_ulp = _misses(expected, actual, at_root)
    for alternative in alternatives:
        if not bad.any():
            break
        bad &= _misses(alternative, actual, at_root)[0]
    names = ", ".join(sorted({a.op.name for a in inner}))
    return _verdict(expected, actual, bad, f"{at_root} after {names} within their bounds",
                    max_ulp)


def accuracy_of(kernel: Kernel, dtype_name: str) -> Accuracy:
    """The kernel's accuracy class (:meth:`Kernel.accuracy`)."""
    return kernel.accuracy(dtype_name)


def compare_rows(expected: np.ndarray, actual: np.ndarray, accuracy: Accuracy,
                 cols: int | None = None) -> Verdict:
    """Compare a row kernel's output under its ``rows`` accuracy: element i of a row
    passes when |actual - expected| <= ulps * ulp(expected_i) + (row_ulps + sum_ulps *
    row_sum_depth(cols)) * ulp(m), m the row's largest finite |expected| (rows along the
    last axis; a row reduction's output, one value per row, is its own row, and ``cols``
    says how many elements each reduced: default the last axis). NaN matches NaN; an
    infinity must match exactly."""
    expected = np.asarray(expected, dtype=np.float32)
    actual = np.asarray(actual, dtype=np.float32)
    if expected.shape != actual.shape:
        raise ValueError(f"shape mismatch: expected {expected.shape}, got {actual.shape}")
    width = expected.shape[-1] if expected.ndim else 1
    # (rows, 0) has no element to infer the rows from: count them from the shape.
    rows = expected.reshape(int(np.prod(expected.shape[:-1])) if expected.ndim else 1, width)
    got = actual.reshape(rows.shape)
    finite = np.isfinite(rows)
    scale = np.max(np.where(finite, np.abs(rows), 0), axis=-1, keepdims=True,
                   initial=0).astype(np.float32)
    row_ulps = row_ulps_for(accuracy, rows.shape[-1] if cols is None else cols)
    with np.errstate(all="ignore"):
        allowed = (accuracy.ulps * _ulp(rows).astype(np.float64)
                   + row_ulps * _ulp(scale).astype(np.float64))
        error = np.abs(rows.astype(np.float64) - got.astype(np.float64))
        close = finite & np.isfinite(got) & (error <= allowed)
    same = (rows.view(np.uint32) == got.view(np.uint32)) | (np.isnan(rows) & np.isnan(got))
    bad = ~(same | close)
    distance = ulp_distance(rows, got)
    both = finite & np.isfinite(got)
    max_ulp = int(distance[both].max()) if both.any() else 0
    return _verdict(rows.ravel(), got.ravel(), bad.ravel(), str(accuracy), max_ulp)


def row_ulps_for(accuracy: Accuracy, cols: int) -> int:
    """The ulps of the row's largest |expected| a rows accuracy allows on rows of ``cols``
    elements (the C-simulation testbench is handed it per case)."""
    return accuracy.row_ulps + accuracy.sum_ulps * row_sum_depth(cols)


def _ulp(values: np.ndarray) -> np.ndarray:
    """The float32 spacing at |values| (the smallest subnormal at 0)."""
    magnitude = np.abs(values.astype(np.float32))
    return np.spacing(magnitude).astype(np.float32)


def judge_shaped(kernel: Kernel, dtype_name: str, tensors: dict[str, np.ndarray],
                 scalars: dict[str, float | int], actual: np.ndarray) -> Verdict:
    """The verdict on a shaped kernel's output (whole tensors with their shapes): a row
    kernel under its stated ``rows`` accuracy; a broadcast kernel against
    reference.shaped_expected as :func:`judge` judges an elementwise one: up to
    MAX_FOLLOWED inner ulp-bounded applications of its stages (its per-channel values'
    included) followed within their bounds, the root within its own; with more, or none,
    under its ops' accuracy (exact for batch_norm)."""
    expected = reference.shaped_expected(kernel, dtype_name, tensors, scalars)
    accuracy = kernel.accuracy(dtype_name)
    if accuracy.kind == "rows":
        main = np.asarray(tensors[kernel.inputs[0]])
        cols = main.shape[-1] if main.ndim else 1
        return compare_rows(expected, np.asarray(actual), accuracy, cols)
    inner = followed_applications(kernel, dtype_name)
    if not inner:
        return compare(expected.ravel(), np.asarray(actual).ravel(), accuracy)
    return _followed(expected.ravel(), np.asarray(actual).ravel(),
                     followed_accuracy(kernel, dtype_name), inner,
                     (alternative.ravel() for alternative in reference.perturbed_shaped_outputs(
                         kernel, dtype_name, tensors, scalars, inner)))


def followed_applications(kernel: Kernel, dtype_name: str) -> list[expr.Apply]:
    """The inner inexact applications :func:`judge` (an elementwise kernel) and
    :func:`judge_shaped` (a broadcast one) follow within their bounds: up to MAX_FOLLOWED
    of them (:meth:`Kernel.followed_applications`), else none."""
    return kernel.followed_applications(dtype_name)


def followed_accuracy(kernel: Kernel, dtype_name: str) -> Accuracy:
    """The bound :func:`judge` and :func:`judge_shaped` hold each result to, from the
    reference or one of its followed alternatives: the root's where they follow inner
    applications (:func:`followed_applications`), else the kernel's accuracy."""
    return kernel.followed_root_accuracy(dtype_name)
