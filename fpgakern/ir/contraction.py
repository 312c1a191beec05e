"""A contraction kernel's index sets (issue 30): ``mk,kn->mn``, einsum-style.

A contraction names the indices of its two operands and of its output. An index in both
operands and not in the output is *summed* (exactly one for now: the accumulation order is
one loop over it, docs/matrix.md); an index in both operands and the output is a *batch*
index (at most one); an index in one operand and the output is that operand's *free*
index (at most one each: the M of A, the N of B; none makes a matrix-vector product).
Operands may list their indices in any order (``mk,nk->mn`` is ``a @ b.T``): the kernel
reads them through strides. The output lists batch, then A's free, then B's free index.

Every kernel then sees the canonical problem: ``batch`` matrices of ``m x n`` results,
each a sum over ``k`` of ``a[b, m, k] * b[b, k, n]`` in the declared order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The one accumulation order of every contraction (docs/matrix.md): every rung, the C
# simulation and the reference (fpgakern.verify.matmul) compute exactly this. PARTIALS
# strided partial sums, each sequential: partial q holds the products of k = q, q + P,
# q + 2P, ... in ascending k (its first product itself, then acc = acc + a[k]*b[k]); then
# the min(K, P) partials are combined by a fixed pairwise tree, level by level: (0, 1),
# (2, 3), ... with an odd last passed up unchanged. Each product and each sum is rounded
# to the element type (no fused multiply-add); K = 0 gives +0. The partials are also what
# hides the adder's latency in hardware: consecutive k go to different partials, so no
# sum waits for the one before (P >= any rung's adder latency).
PARTIALS = 64
ACCUMULATION_ORDER = (f"{PARTIALS} strided partial sums (partial q: the products of k = q, "
                      f"q + {PARTIALS}, ... summed in ascending k), combined by a fixed "
                      "pairwise tree ((0, 1), (2, 3), ..., an odd last passed up), each "
                      "product and each sum rounded to the element type (no fused "
                      "multiply-add); K = 0 gives +0")


def tree_levels(count: int) -> int:
    """Levels of the pairwise tree that combines ``count`` partials: ceil(log2(count))."""
    return max(0, (count - 1).bit_length())


_INDEX = re.compile(r"[a-z]+")
MAX_INDICES = 4  # per tensor: a batch, a free and the summed index, and one to spare


class ContractionError(ValueError):
    """A contraction that is not one; the message names the offending index."""


@dataclass(frozen=True)
class Contraction:
    """A validated contraction ``a,b->out`` (each a string of one-letter indices)."""

    a: str
    b: str
    out: str

    @property
    def text(self) -> str:
        return f"{self.a},{self.b}->{self.out}"

    @property
    def summed(self) -> str:
        return next(i for i in self.a if i in self.b and i not in self.out)

    @property
    def batch(self) -> str | None:
        return next((i for i in self.a if i in self.b and i in self.out), None)

    @property
    def free_a(self) -> str | None:
        return next((i for i in self.a if i not in self.b), None)

    @property
    def free_b(self) -> str | None:
        return next((i for i in self.b if i not in self.a), None)

    @property
    def transposed_a(self) -> bool:
        """A's summed index comes before its free one (A is read as (K, M))."""
        return self.free_a is not None and self.a.index(self.summed) < self.a.index(
            self.free_a)

    @property
    def transposed_b(self) -> bool:
        """B's free index comes before its summed one (B is read as (N, K): ``w.T``)."""
        return self.free_b is not None and self.b.index(self.free_b) < self.b.index(
            self.summed)

    def sizes(self, a_shape: tuple[int, ...], b_shape: tuple[int, ...]
              ) -> tuple[int, int, int, int]:
        """(batch, m, n, k) of operands of these shapes; raises ContractionError with
        torch's words when they do not fit (``mat1 and mat2 shapes cannot be multiplied
        (2x3 and 4x5)``)."""
        shown = f"({'x'.join(map(str, a_shape))} and {'x'.join(map(str, b_shape))})"
        if len(a_shape) != len(self.a) or len(b_shape) != len(self.b):
            raise ContractionError(f"expected operands of {len(self.a)} and {len(self.b)} "
                                   f"dimensions for {self.text}, got {shown}")
        dims: dict[str, int] = {}
        for indices, shape in ((self.a, a_shape), (self.b, b_shape)):
            for index, size in zip(indices, shape, strict=True):
                if dims.setdefault(index, size) != size:
                    if index == self.summed:
                        raise ContractionError(f"mat1 and mat2 shapes cannot be "
                                               f"multiplied {shown}")
                    raise ContractionError(f"batch sizes differ {shown}")
        return (dims.get(self.batch or "", 1), dims.get(self.free_a or "", 1),
                dims.get(self.free_b or "", 1), dims[self.summed])

    def output_shape(self, batch: int, m: int, n: int) -> tuple[int, ...]:
        size = {self.batch: batch, self.free_a: m, self.free_b: n}
        return tuple(size[i] for i in self.out)


def parse(text: object) -> Contraction:
    """Validate ``a,b->out``; raises ContractionError naming what is wrong."""
    if not isinstance(text, str) or "->" not in text:
        raise ContractionError("expected index sets such as mk,kn->mn")
    left, _, out = text.replace(" ", "").partition("->")
    operands = left.split(",")
    if len(operands) != 2:
        raise ContractionError(f"a contraction has two operands, got {len(operands)} "
                               f"({left})")
    for part in (*operands, out):
        if part and not _INDEX.fullmatch(part):
            raise ContractionError(f"{part!r}: indices are lower-case letters, one each")
        if len(part) > MAX_INDICES:
            raise ContractionError(f"{part!r} has {len(part)} indices (at most "
                                   f"{MAX_INDICES})")
        for i, index in enumerate(part):
            if index in part[:i]:
                raise ContractionError(f"index {index!r} appears twice in {part!r} "
                                       "(no diagonals)")
    a, b = operands
    if not a or not b:
        raise ContractionError("each operand has at least one index")
    for index in out:
        if index not in a and index not in b:
            raise ContractionError(f"unknown index {index!r} in the output {out!r}: "
                                   f"no operand has it ({a},{b})")
    for index in a + b:
        if index not in out and (index not in a or index not in b):
            side = "the first" if index in a else "the second"
            raise ContractionError(f"index {index!r} is on one side only ({side} operand) "
                                   "and not in the output: it is neither summed nor kept")
    summed = [i for i in a if i in b and i not in out]
    if len(summed) != 1:
        raise ContractionError("exactly one summed index (in both operands, not in the "
                               f"output) is supported, got {len(summed)}"
                               + (f" ({', '.join(summed)})" if summed else ""))
    made = Contraction(a, b, out)
    for role, found in (("batch", [i for i in out if i in a and i in b]),
                        ("free index of the first operand", [i for i in a if i not in b]),
                        ("free index of the second operand", [i for i in b if i not in a])):
        if len(found) > 1:
            raise ContractionError(f"at most one {role} is supported, got "
                                   f"{', '.join(found)}")
    canonical = "".join(i for i in (made.batch, made.free_a, made.free_b) if i)
    if out != canonical:
        raise ContractionError(f"the output lists batch, then the first operand's, then "
                               f"the second's index: {canonical!r}, not {out!r}")
    return made
