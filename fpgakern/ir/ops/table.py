"""The op table (``OPS``): every family's entries by name, the parser's infix and prefix
spellings, and the lookup by name. Checked as it is built, so a bad entry fails fast."""

from __future__ import annotations

from fpgakern.ir.ops.bit_exact import _BIT_EXACT
from fpgakern.ir.ops.check import check_table
from fpgakern.ir.ops.elementwise import _ELEMENTWISE
from fpgakern.ir.ops.model import OPS, Op
from fpgakern.ir.ops.modulo import _MODULO
from fpgakern.ir.ops.reductions import _REDUCTIONS
from fpgakern.ir.ops.transcendental import _MORE_TRANSCENDENTAL, _TRANSCENDENTAL

OPS.update({op.name: op for op in (
    _ELEMENTWISE + _BIT_EXACT + _MODULO + _TRANSCENDENTAL + _MORE_TRANSCENDENTAL
    + _REDUCTIONS)})

# Infix and prefix spellings used by the expression parser.
BINARY_SYMBOLS: dict[str, str] = {op.symbol: op.name for op in _ELEMENTWISE
                                  if op.symbol and op.arity == 2}
UNARY_SYMBOLS: dict[str, str] = {op.symbol: op.name for op in _ELEMENTWISE
                                 if op.symbol and op.arity == 1}


def op(name: str) -> Op:
    """Look an op up by name; KeyError lists the known ones."""
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(f"unknown op {name!r} (known: {', '.join(sorted(OPS))})") from None


check_table(OPS)
