"""Spelling the kernel IR in C++: literals, expressions and the names templates use."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fpgakern.interface import Arg, KernelInterface
from fpgakern.ir import expr
from fpgakern.ir.dtypes import DTYPES, RESULT_DTYPES
from fpgakern.ir.ops import HLS_CLOCK_MHZ, OPS
from fpgakern.ladder import Plan


def literal(value: float | int, dtype_name: str) -> str:
    """A C++ literal that denotes exactly ``value`` in ``dtype_name`` (complex64: the real
    ``value`` promoted to (value, +0), as torch promotes it)."""
    if DTYPES[dtype_name].is_complex:
        return f"fk::to_complex64({literal(value, 'float32')})"
    if not DTYPES[dtype_name].is_float:
        value = int(value)
        return {-(2**31): "fk::kInt32Min", 2**31 - 1: "fk::kInt32Max"}.get(value, str(value))
    f = np.float32(value)
    if math.isinf(f):
        return "fk::kFloatInf" if f > 0 else "-fk::kFloatInf"
    if math.isnan(f):
        raise ValueError("NaN literals are not supported")
    sign = "-" if np.signbit(f) else ""
    magnitude = np.abs(f)
    if magnitude == 0 or 1e-4 <= magnitude < 1e7:
        text = np.format_float_positional(magnitude, unique=True)
    else:
        text = np.format_float_scientific(magnitude, unique=True, exp_digits=1)
    # numpy writes "1." and "1.e-05"; C++ wants a digit after the point.
    text = text.replace(".e", ".0e")
    text = text + "0" if text.endswith(".") else text
    return f"{sign}{text}f"


def expression(node: expr.Node, names: dict[str, str]) -> str:
    """C++ for ``node``; ``names`` maps input and scalar names to their C spelling."""
    match node:
        case expr.Input(name=name) | expr.Scalar(name=name):
            return names[name]
        case expr.Const(value=value):
            return literal(value, node.dtype)
        case expr.Apply(op=entry, args=args):
            return entry.hls_call(*(expression(a, names) for a in args))
    raise TypeError(node)


def axis_beat(bits: int) -> str:
    """The AXI4-Stream beat of ``bits``-bit elements: ap_axiu<bits, 0, 0, 0> (TDATA, TKEEP,
    TSTRB and TLAST), as kernel.xml's stream<ap_axiu<32, 0, 0, 0> >& names it."""
    return f"ap_axiu<{bits}, 0, 0, 0>"


@dataclass(frozen=True)
class CSpelling:
    """The C++ names and snippets a kernel's templates are written in terms of."""

    plan: Plan
    iface: KernelInterface

    @property
    def T(self) -> str:  # noqa: N802 - the element type, named as in C++ templates
        return self.plan.dtype.ctype

    @property
    def S(self) -> str:  # noqa: N802 - the scalars' type (complex64: real float)
        return DTYPES[self.plan.dtype.scalar_dtype].ctype

    @property
    def W(self) -> str:  # noqa: N802 - the memory word type
        return "word_t" if self.plan.arch.lanes > 1 else self.T

    @property
    def output(self) -> str:
        return self.plan.kernel.output

    @property
    def R(self) -> str:  # noqa: N802 - the result element type (argmax: int64_t)
        return self.plan.kernel.output_dtype(self.plan.dtype.name).ctype

    @property
    def E(self) -> str:  # noqa: N802 - what the element function returns
        """The element function's result type: the output's element type for an
        elementwise kernel (complex64 abs: float), the elements' for a reduction's body."""
        body = self.plan.kernel.elementwise_body(self.plan.dtype.name)
        return RESULT_DTYPES[body.dtype].ctype

    @property
    def OW(self) -> str:  # noqa: N802 - the output's memory word type
        """An elementwise output's word: the input word where the element types agree,
        else a word of the output's type with as many lanes (``out_word_t``, narrower:
        a complex64 kernel's float32 result, 256-bit words at rung 4)."""
        if self.R == self.T:
            return self.W
        return "out_word_t" if self.plan.arch.lanes > 1 else self.R

    @property
    def picks(self) -> bool:
        """An index reduction (argmax, argmin): its partials are fk::Indexed pairs."""
        reduction = self.plan.kernel.reduction
        return reduction is not None and reduction.picks is not None

    @property
    def A(self) -> str:  # noqa: N802 - a reduction's partial result type
        return f"fk::Indexed<{self.T}>" if self.picks else self.T

    def entry(self, value: str, index: str) -> str:
        """What one element contributes to a reduction: its value, and for an index
        reduction its index (an int expression) beside it."""
        return f"{self.A}{{{value}, {index}}}" if self.picks else value

    @property
    def element_name(self) -> str:
        return "element"

    @property
    def element_params(self) -> str:
        kernel = self.plan.kernel
        return ", ".join([*(f"{self.T} {n}" for n in kernel.inputs),
                          *(f"{self.S} {s.name}" for s in kernel.scalars)])

    @property
    def element_expr(self) -> str:
        body = self.plan.kernel.elementwise_body(self.plan.dtype.name)
        return expression(body, {n: n for n in self._names()})

    @property
    def has_element_function(self) -> bool:
        """False for a reduction of the bare input (``sum(x)``): it computes nothing per
        element, so it gets no element function and accumulates the input itself (as its
        RTL has no datapath module)."""
        kernel = self.plan.kernel
        body = kernel.elementwise_body(self.plan.dtype.name)
        return not (kernel.is_reduction and isinstance(body, expr.Input)
                    and len(kernel.inputs) == 1 and not kernel.scalars)

    def element_call(self, suffix: str) -> str:
        """A call of the element function on each input spelled ``<input><suffix>``, or
        the input itself where there is no element function."""
        kernel = self.plan.kernel
        args = [f"{n}{suffix}" for n in kernel.inputs] + [s.name for s in kernel.scalars]
        if not self.has_element_function:
            (arg,) = args
            return arg
        return f"{self.element_name}({', '.join(args)})"

    def results(self) -> list[tuple[str, str]]:
        """A register kernel's results: each output and its C++ expression over the
        scalars."""
        graphs = self.plan.kernel.result_graphs(self.plan.dtype.name)
        names = {s.name: s.name for s in self.plan.kernel.scalars}
        return [(name, expression(root, names)) for name, root in graphs.items()]

    def beat(self, name: str) -> str:
        """The AXI4-Stream beat type of stream argument ``name`` (Vitis' ap_axi_sdata.h):
        its element's bits in TDATA, no TUSER, TID or TDEST."""
        return axis_beat(self.plan.arch.pointer_bits(name))

    def param(self, arg: Arg) -> str:
        if arg.kind == "stream":  # an axis port: hls::stream of beats, by reference
            return f"hls::stream<{self.beat(arg.name)} >& {arg.name}"
        if arg.kind == "scalar":
            if arg.direction == "out":  # a register kernel's result, written by the kernel
                return f"{self.S}& {arg.name}"
            size = arg.name in self.plan.kernel.size_args  # n; a shaped kind's sizes
            return f"{'int' if size else self.S} {arg.name}"
        reduced_output = self.plan.kernel.is_reduction and arg.direction == "out"
        word = self.R if reduced_output else (self.OW if arg.direction == "out" else self.W)
        const = "const " if arg.direction == "in" else ""
        return f"{const}{word}* {arg.name}"

    def signature(self, end: str) -> str:
        """The kernel's C signature, one parameter a line, followed by ``end``."""
        params = ",\n".join(f"    {self.param(arg)}" for arg in self.iface.args)
        return f'extern "C" void {self.plan.top}(\n{params}){end}'

    def combine(self, left: str, right: str) -> str:
        reduction = self.plan.kernel.reduction
        assert reduction is not None and reduction.combine is not None
        if reduction.picks is not None:  # pairs merge by the pick itself
            return reduction.hls_call(left, right)
        return OPS[reduction.combine].hls_call(left, right)

    def finish(self, combined: str, count: str) -> str:
        """The reduction's result from its combined value and the element count ``count``
        (an int): the op table's finish op on both (mean: the sum divided by float(n)),
        the index of an index reduction's pair, or the combined value itself where the
        kernel has none to apply (Microarchitecture.finish)."""
        if self.picks:
            return f"static_cast<{self.R}>(({combined}).index)"
        if self.plan.arch.finish is None:
            return combined
        return OPS[self.plan.arch.finish].hls_call(combined, f"static_cast<{self.T}>({count})")

    def host_finish(self, combined: str, count: str) -> str | None:
        """The finish the host applies to the compute units' combined value (where the
        kernel leaves it to the host: Microarchitecture.finish), or None when there is
        none to apply."""
        reduction = self.plan.kernel.reduction
        if reduction is None or reduction.finish is None or self.plan.arch.finish is not None:
            return None
        return OPS[reduction.finish].hls_call(combined, f"static_cast<{self.T}>({count})")

    @property
    def combine_latency(self) -> int:
        """Cycles the combine op takes in Vitis HLS at :data:`hls_clock_mhz`."""
        reduction = self.plan.kernel.reduction
        assert reduction is not None and reduction.combine is not None
        return OPS[reduction.combine].hls_latency[self.plan.dtype.name]

    hls_clock_mhz = HLS_CLOCK_MHZ

    @property
    def identity(self) -> str:
        reduction = self.plan.kernel.reduction
        assert reduction is not None
        value = literal(reduction.identity[self.plan.dtype.name], self.plan.dtype.name)
        # An index reduction's empty pair: its index is above every element's.
        return self.entry(value, "fk::kInt32Max")

    def _names(self) -> list[str]:
        kernel = self.plan.kernel
        return [*kernel.inputs, *(s.name for s in kernel.scalars)]
