"""A register kernel's RTL (docs/rtl.md, "Register kernels"): one pipeline computing every
result from the scalars, behind the control slave and the mailbox (fk_mailbox)."""

from __future__ import annotations

from fpgakern.backends.rtl.schedule import Datapath, schedule_outputs
from fpgakern.ir import expr
from fpgakern.ladder import Plan


def _scalars_as_inputs(node: expr.Node) -> expr.Node:
    """The graph with its scalars read as the pipeline's inputs: a register kernel's
    scalars are its operands (they change from run to run), not constants of a run."""
    match node:
        case expr.Scalar(name=name):
            return expr.Input(node.dtype, name)
        case expr.Apply(op=op, args=args):
            return expr.Apply(node.dtype, op, tuple(_scalars_as_inputs(a) for a in args))
    return node


def datapath(plan: Plan) -> Datapath:
    """The pipeline of every result over the kernel's scalars (ports x_<scalar>,
    y_<result>)."""
    kernel = plan.kernel
    roots = {name: _scalars_as_inputs(root)
             for name, root in kernel.result_graphs(plan.dtype.name).items()}
    return schedule_outputs(roots, tuple(s.name for s in kernel.scalars), ())
