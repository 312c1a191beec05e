"""The op table: the single definition of every operator fpgakern knows.

Each entry carries everything every layer needs about one operator:

* ``reference``: its numpy implementation, following torch semantics, which is the
  oracle that C simulation and RTL simulation are judged against;
* ``hls``: its spelling in the generated Vitis HLS C++ (a format string over the
  operand expressions; helpers prefixed ``fk::`` live in ``fpgakern_ops.h``);
* ``rtl``: per dtype, the SystemVerilog operator module that implements it and its
  fixed pipeline latency in cycles (filled in by the RTL operator library);
* ``hls_latency``: per dtype, the cycles Vitis HLS schedules the op over at
  :data:`HLS_CLOCK_MHZ` (for the ops that combine a reduction's partial results: it sizes
  the HLS accumulate loop's interleave);
* ``accuracy``: the contract the verifiers enforce (bit-exact, or an ulp bound);
* ``vitis``: what real Vitis HLS builds from the float32 HLS spelling (its core, how it
  treats subnormals, its ulp bound), which docs/vitis.md tabulates and the flushing C
  simulation (``fpgakern csim --hls-flush-subnormals``) models.

The package's modules: ``model`` (the dataclasses above), ``references`` (the numpy
references of the core ops), one module per family of entries (``elementwise``,
``bit_exact``, ``modulo``, ``transcendental``, ``reductions``), ``table`` (``OPS``, the
parser's symbols, :func:`op`) and ``check`` (what every entry must state, run as the
table is built).

Adding an elementwise operator means adding one entry to its family's module (and, at
most, one RTL operator file); the parser, type checker, generators and verifiers read it
from ``OPS``.
"""

from fpgakern.ir.ops.model import (
    BOTH,
    COMPLEX,
    EXACT,
    FLOAT,
    HLS_CLOCK_MHZ,
    INT,
    ORDER_SENSITIVE,
    Accuracy,
    Op,
    Pick,
    RtlImpl,
    Subnormals,
    VitisImpl,
    row_sum_depth,
)
from fpgakern.ir.ops.table import BINARY_SYMBOLS, OPS, UNARY_SYMBOLS, op

__all__ = ["BINARY_SYMBOLS", "BOTH", "COMPLEX", "EXACT", "FLOAT", "HLS_CLOCK_MHZ", "INT",
           "OPS", "ORDER_SENSITIVE", "UNARY_SYMBOLS", "Accuracy", "Op", "Pick", "RtlImpl",
           "Subnormals", "VitisImpl", "op", "row_sum_depth"]
