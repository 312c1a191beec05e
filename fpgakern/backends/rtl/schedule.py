"""Scheduling a kernel's expression graph into a fixed-latency RTL pipeline.

Every Apply node becomes one operator instance (per lane); the op table gives its module
and its latency. A node starts in the cycle its last operand is ready (as-soon-as-possible
scheduling) and its result is ready ``latency`` cycles later. Operands ready earlier are
delayed by exactly the difference, so all operands of a node belong to the same element:
these delay lines are computed here, never placed by hand. Tensor inputs are ready at
cycle 0; scalars (latched from registers for the whole run) and constants are always
ready and need no delay. The pipeline's latency is the ready time of the root, and the
valid bit travels through a delay line of that length.

Values are 32 bits wide, but a comparison's result (a bool, only ever where's condition)
is 1 bit: its wire, delay line and the operator port it feeds (see ``Instance.width``).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from fpgakern.errors import ToolError
from fpgakern.ir import expr
from fpgakern.ir.dtypes import DTYPES

OPERAND_PORTS = ("a", "b", "c")


class NoRtlOperator(ToolError):
    """The op table has no RTL module for an op at a dtype (yet)."""


@dataclass(frozen=True)
class Delay:
    """A delay line: ``name`` is ``source`` delayed by ``depth`` cycles."""

    name: str
    source: str
    depth: int
    width: int = 32


@dataclass(frozen=True)
class Instance:
    """One operator module instance of the pipeline."""

    name: str  # instance name; its result wire is the same name
    module: str
    op: str
    start: int  # cycle its operands are presented
    latency: int
    operands: tuple[tuple[str, str], ...]  # (port, signal)
    text: str  # the sub-expression it computes, for the comment
    width: int = 32  # bits of its result: 1 for a comparison, else 32

    @property
    def ready(self) -> int:
        return self.start + self.latency


@dataclass
class Datapath:
    """A scheduled pipeline for one lane (lanes replicate it)."""

    inputs: tuple[str, ...]
    scalars: tuple[str, ...]
    instances: list[Instance] = field(default_factory=list)
    delays: list[Delay] = field(default_factory=list)
    result: str = ""
    latency: int = 0
    # Several named results (schedule_outputs), each delayed to ``latency``: ports
    # ``y_<name>``; empty for the one-result pipeline (port ``y``).
    outputs: list[tuple[str, str]] = field(default_factory=list)

    @property
    def modules(self) -> list[str]:
        return list(dict.fromkeys(i.module for i in self.instances))

    @property
    def used_inputs(self) -> set[str]:
        return self._used("in_")

    @property
    def used_scalars(self) -> set[str]:
        return self._used("sc_")

    def _used(self, prefix: str) -> set[str]:
        signals = {s for i in self.instances for _, s in i.operands}
        signals |= {d.source for d in self.delays} | {self.result}
        signals |= {signal for _, signal in self.outputs}
        return {s.removeprefix(prefix) for s in signals if s.startswith(prefix)}


def literal(value: float | int, dtype_name: str) -> str:
    """A 32-bit SystemVerilog literal holding ``value`` in ``dtype_name``'s encoding."""
    dtype = DTYPES[dtype_name]
    if dtype.is_float:
        (bits,) = struct.unpack("<I", struct.pack("<f", float(value)))
    else:
        bits = int(value) & 0xFFFF_FFFF
    return f"32'h{bits:08X}"


def rtl_impl(op_name: str, dtype_name: str) -> tuple[str, int]:
    """(module, latency) of an op at a dtype, or NoRtlOperator naming what is missing."""
    from fpgakern.ir.ops import OPS

    impl = OPS[op_name].rtl.get(dtype_name)
    if impl is None:
        raise NoRtlOperator(f"no RTL operator for {op_name} {dtype_name} yet")
    return impl.module, impl.latency


def schedule(root: expr.Node, inputs: tuple[str, ...], scalars: tuple[str, ...]) -> Datapath:
    """Schedule the elementwise expression ``root`` (no reduction inside)."""
    path, signal, ready, _ = _schedule([root], inputs, scalars)
    if ready[0] is None:
        raise ToolError("the expression must depend on a tensor input")
    path.result, path.latency = signal[0], ready[0]
    return path


def schedule_outputs(roots: dict[str, expr.Node], inputs: tuple[str, ...],
                     scalars: tuple[str, ...]) -> Datapath:
    """Schedule several expressions into one pipeline that shares their common
    sub-expressions (a broadcast kernel's channel values: batch_norm's scale and shift
    share 1 / sqrt(var + eps) * weight). Every result is delayed to the latest one's ready
    time, so one valid bit serves them all; a result that is an input itself is that
    input delayed."""
    path, signals, ready, delayed = _schedule(list(roots.values()), inputs, scalars)
    if any(t is None for t in ready):
        raise ToolError("every result must depend on a tensor input")
    path.latency = max([0, *(t for t in ready if t is not None)])
    path.outputs = [(name, delayed(sig, path.latency - (t or 0)))
                    for name, sig, t in zip(roots, signals, ready, strict=True)]
    return path


def _schedule(roots: list[expr.Node], inputs: tuple[str, ...], scalars: tuple[str, ...]
              ) -> tuple[Datapath, list[str], list[int | None], Callable[[str, int], str]]:
    """The pipeline computing ``roots``: each root's signal and ready cycle (None: a
    scalar or literal, always ready), and the function that delays a signal (sharing
    the pipeline's delay lines)."""
    path = Datapath(inputs, scalars)
    # Structurally equal sub-expressions are computed once (a * a uses one multiplier's
    # input twice; (a + b) * (a + b) one adder). Keyed by the canonical text and dtype.
    done: dict[tuple[str, str], tuple[str, int | None]] = {}
    delays: dict[tuple[str, int], str] = {}
    widths: dict[str, int] = {}  # instance results narrower or wider than 32 bits

    def delayed(signal: str, depth: int) -> str:
        if depth == 0:
            return signal
        key = (signal, depth)
        if key not in delays:
            delays[key] = f"{signal}_d{depth}"
            path.delays.append(Delay(delays[key], signal, depth, widths.get(signal, 32)))
        return delays[key]

    def visit(node: expr.Node) -> tuple[str, int | None]:
        """The signal carrying ``node`` and the cycle it is ready (None: always)."""
        key = (expr.to_text(node), node.dtype)
        if key in done:
            return done[key]
        match node:
            case expr.Input(name=name):
                result: tuple[str, int | None] = (f"in_{name}", 0)
            case expr.Scalar(name=name):
                result = (f"sc_{name}", None)
            case expr.Const(value=value):
                result = (literal(value, node.dtype), None)
            case expr.Apply(op=op, args=args):
                if op.kind != "elementwise":
                    raise ToolError(f"reduction {op.name} inside an elementwise pipeline")
                operands = [visit(a) for a in args]
                # A condition (a comparison's bool) does not decide the operator's dtype.
                operand_dtype = next(a.dtype for a in args if a.dtype != expr.BOOL)
                module, latency = rtl_impl(op.name, operand_dtype)
                start = max((t for _, t in operands if t is not None), default=0)
                name = f"n{len(path.instances)}_{op.name}"
                ports = tuple(
                    (port, sig if t is None else delayed(sig, start - t))
                    for port, (sig, t) in zip(OPERAND_PORTS, operands, strict=False)
                )
                width = 1 if node.dtype == expr.BOOL else 32
                widths[name] = width
                path.instances.append(Instance(name, module, op.name, start, latency, ports,
                                               expr.to_text(node), width))
                result = (name, start + latency)
            case _:
                raise TypeError(node)
        done[key] = result
        return result

    visited = [visit(root) for root in roots]
    return path, [sig for sig, _ in visited], [t for _, t in visited], delayed
