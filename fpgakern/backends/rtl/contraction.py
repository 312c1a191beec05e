"""A contraction kernel's RTL (docs/matrix.md, "The RTL kernel"): a PR x PC array of PEs
(lib/fk_mac_pe.sv) computing a TM x TN block of outputs at a time, k by k.

For each block of outputs the kernel streams k = 0 .. K-1 in ascending order: a column of
A (the block's TM rows at k) and a row of B (the block's TN columns at k) are read into a
ring of NBUF small buffers (fk_gather: single elements, any index layout, zeros outside
the matrices), and every PE multiplies its SLOTS outputs' operands into their partial sums,
one product per cycle. After the last k the block is drained: each PE's partials go
through the declared tree, and the results stream through the epilogue (the spec's
expression over acc and the further inputs, which are read ahead in the drain's order),
one a cycle, and out to memory (fk_scatter). Every output is summed in the declared order
whatever the rung: partial k mod 64, in ascending k, then the tree.

The rungs differ in their numbers (:func:`shape`): rung 0 one output at a time, one
buffer (each k waits for its reads); rung 1 an 8 x 8 block, one buffer, a product every
GAP cycles (each waits for the one before); rung 2 the block pipelined, three buffers (the
reads of the next k's overlap the products of this one), every pointer on its own port;
rung 3 rung 2's kernel as compute units, each taking every units-th block; rung 4 a 4 x 4
PE array on a 32 x 32 block behind 512-bit ports, with two banks of partials so that a
block's drain overlaps the next block's k loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from fpgakern.backends.rtl import pe
from fpgakern.backends.rtl.schedule import Datapath, schedule
from fpgakern.ir.kernel import ACC
from fpgakern.ir.ops import OPS
from fpgakern.ladder import Plan

# The declared order's partials per output (the PE's P): fpgakern.ir.contraction.PARTIALS.


@dataclass(frozen=True)
class Shape:
    """A rung's numbers: the block (TM x TN outputs), the PE array (PR x PC, each PE with
    SLOTS = (TM / PR) * (TN / PC) outputs), the ring of operand buffers, the cycles
    between two products of a PE (1: pipelined) and the banks of partials (2: a block's
    drain beside the next block's products)."""

    tm: int
    tn: int
    pr: int
    pc: int
    nbuf: int
    gap: int
    banks: int = 1

    @property
    def ur(self) -> int:
        return self.tm // self.pr

    @property
    def uc(self) -> int:
        return self.tn // self.pc

    @property
    def slots(self) -> int:
        return self.ur * self.uc


def shape(plan: Plan) -> Shape:
    """The numbers of a plan's rung (the module's docstring)."""
    rung = plan.rung.index
    mul = OPS["mul"].rtl[plan.dtype.name].latency
    add = OPS["add"].rtl[plan.dtype.name].latency
    if rung == 0:
        return Shape(1, 1, 1, 1, 1, 1)
    if rung == 1:
        return Shape(8, 8, 1, 1, 1, mul + add + 1)
    if plan.rung.vector_bits:  # rungs 4 and 5
        return Shape(32, 32, 4, 4, 3, 1, banks=2)
    return Shape(8, 8, 1, 1, 3, 1)  # rungs 2 and 3


def ideal_macs_per_cycle(plan: Plan, read_latency: int = 64) -> float:
    """Multiply-accumulates per cycle the rung's loops allow with no tree or epilogue in
    the way. One buffer (rungs 0, 1): each k reads its TM + TN elements (one request a
    cycle, ``read_latency`` to the first answer), then makes its TM x TN products, SLOTS
    per PE, one every GAP cycles; several buffers (rungs 2-4): the reads of later k's
    overlap the products (TM + TN <= SLOTS), one per PE every GAP cycles."""
    s = shape(plan)
    units = plan.placement.compute_units
    if s.nbuf == 1:
        return s.tm * s.tn / (s.tm + s.tn + read_latency + s.slots * s.gap) * units
    return s.pr * s.pc / s.gap * units


def epilogue(plan: Plan) -> Datapath:
    """The epilogue's pipeline: the spec's expression over acc, the further inputs and the
    scalars (ports x_acc, x_<input>, sc_<scalar>, y)."""
    kernel = plan.kernel
    return schedule(kernel.graph(plan.dtype.name), (ACC, *kernel.epilogue_inputs),
                    tuple(s.name for s in kernel.scalars))


def strides(plan: Plan) -> dict[str, dict[str, str]]:
    """Each pointer's stride, in elements, along each role it is indexed by (batch,
    free_a, free_b, summed), as SystemVerilog over the run's sizes (r_batch, r_m, r_n,
    r_k): the product of the sizes of the indices after it in the pointer's index order
    (row-major, contiguous)."""
    kernel = plan.kernel
    c = kernel.contraction
    assert c is not None
    size = {c.batch: "r_batch", c.free_a: "r_m", c.free_b: "r_n", c.summed: "r_k"}
    role = {c.batch: "batch", c.free_a: "free_a", c.free_b: "free_b", c.summed: "summed"}
    layouts = {kernel.inputs[0]: c.a, kernel.inputs[1]: c.b, kernel.output: c.out,
               **dict(kernel.indices)}
    out: dict[str, dict[str, str]] = {}
    for pointer, indices in layouts.items():
        out[pointer] = {}
        for position, index in enumerate(indices):
            later = [f"64'({size[i]})" for i in indices[position + 1:]]
            out[pointer][role[index]] = " * ".join(later) if later else "64'd1"
    return out


def pe_parameters(plan: Plan) -> dict[str, int]:
    """fk_mac_pe's parameters in this kernel: the dtype's, with the rung's slots."""
    s = shape(plan)
    return pe.pe_parameters(plan.dtype.name, s.slots, s.banks)
