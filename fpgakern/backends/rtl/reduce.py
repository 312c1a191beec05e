"""The reduction accumulators, generated from the op table.

``fk_reduce_<dtype>_<op>`` (the module the op table names for a reduction) is
``oplib/fk_reduce_core.sv`` wired to the RTL operator of the reduction's combine op, with
the op's identity, the combine operator's latency (OPLAT) and the default P
(:meth:`fpgakern.ir.ops.Op.partials`) all read from the table, so none of them is stated
twice. A kernel ships the accumulator it uses, beside its top module.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fpgakern import __version__
from fpgakern.backends.rtl.schedule import NoRtlOperator, literal
from fpgakern.backends.rtl.top import environment
from fpgakern.ir.ops import OPS

CORE = "fk_reduce_core"  # oplib/fk_reduce_core.sv: the accumulate structure
PICK_MODULE = "fk_pick"  # oplib/fk_pick.sv: the index reductions' combine
NO_INDEX = 0xFFFF_FFFF  # an index reduction's empty pair: above every element's index


@dataclass(frozen=True)
class Accumulator:
    """What the op table says of one reduction at one dtype, for its RTL accumulator."""

    module: str
    op: str
    dtype: str
    combine_module: str
    oplat: int  # the combine operator's latency
    partials: int  # the default P
    identity: float | int
    empty: float | int  # the result when every lane was masked
    # Index reductions (Op.picks): fk_pick's parameters; the lanes carry {value, index}.
    pick: str | None = None

    @property
    def operators(self) -> tuple[str, ...]:
        """The oplib modules it instantiates."""
        return (CORE, self.combine_module)

    @property
    def file_name(self) -> str:
        return f"{self.module}.sv"


def _empty_result(op_name: str, dtype: str, identity: float | int) -> float | int:
    """The reference's result on no element (torch's sum of nothing is +0, where the
    identity of a float sum is -0); the identity where the reference refuses (max, min)."""
    try:
        value = OPS[op_name].reference(np.zeros(0, dtype=dtype))
    except ValueError:
        return identity
    result: float | int = np.asarray(value).reshape(-1)[0].item()
    return result


def accumulator(op_name: str, dtype: str) -> Accumulator:
    """The accumulator of reduction ``op_name`` at ``dtype`` (NoRtlOperator if the op table
    gives it no RTL)."""
    op = OPS[op_name]
    impl = op.rtl.get(dtype)
    if op.combine is None or impl is None:
        raise NoRtlOperator(f"no RTL operator for {op_name} {dtype} yet")
    combine = OPS[op.combine].rtl[dtype]
    identity = op.identity[dtype]
    if op.picks is not None:
        # fk_pick compares as the combine op does and takes as long (one cycle).
        params = (f"#(.FLOAT(1'b{int(dtype == 'float32')}), "
                  f".LARGER(1'b{int(op.picks == 'larger')}))")
        return Accumulator(impl.module, op_name, dtype, PICK_MODULE, combine.latency,
                           op.partials(dtype), identity, NO_INDEX, params)
    return Accumulator(impl.module, op_name, dtype, combine.module, combine.latency,
                       op.partials(dtype), identity, _empty_result(op_name, dtype, identity))


def _spelled(value: float | int, dtype: str) -> str:
    if dtype == "float32":
        text = repr(float(value)).replace("inf", "infinity")
        return text if text.startswith("-") else f"+{text}"
    return str(int(value))


def render(acc: Accumulator) -> str:
    """The SystemVerilog text of ``acc``'s module."""
    identity = _hex(acc.identity, acc.dtype)
    empty = _hex(acc.empty, acc.dtype)
    if acc.pick is not None:  # {value, index} pairs
        identity = f"{{{identity}, 32'hFFFF_FFFF}}"
        empty = f"0x{acc.empty:08X}"
    return environment().get_template("reduce.sv.j2").render(
        module=acc.module, op=acc.op, dtype=acc.dtype, combine_module=acc.combine_module,
        oplat=acc.oplat, partials=acc.partials, version=__version__, pick=acc.pick,
        identity=identity, identity_text=_spelled(acc.identity, acc.dtype),
        empty=empty, empty_text=_spelled(acc.empty, acc.dtype), empty_pair=identity)


def _hex(value: float | int, dtype: str) -> str:
    """A 32-bit literal with an underscore between its halves, as the core's are read."""
    text = literal(value, dtype)
    return f"{text[:-4]}_{text[-4:]}"
