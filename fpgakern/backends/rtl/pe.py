"""The contraction kind's PE (lib/fk_mac_pe.sv): its files and its parameters per dtype,
the one place the RTL simulation (fpgakern.verify.pesim) and the resource estimate
(fpgakern.backends.rtl.resources.pe_estimate) take them from."""

from __future__ import annotations

from pathlib import Path

from fpgakern.backends.rtl import sources
from fpgakern.ir.contraction import PARTIALS
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.ops import OPS

PE = "fk_mac_pe"


def pe_parameters(dtype_name: str, slots: int, banks: int = 1) -> dict[str, int]:
    """fk_mac_pe's parameters for a dtype: its multiplier's and adder's latencies from the
    op table, ``slots`` outputs, the declared order's partials, ``banks`` sets of them (2:
    the trees on an adder of their own, beside the next block's products)."""
    return {"FLOAT": int(DTYPES[dtype_name].is_float), "SLOTS": slots, "P": PARTIALS,
            "MUL_LAT": OPS["mul"].rtl[dtype_name].latency,
            "ADD_LAT": OPS["add"].rtl[dtype_name].latency, "BANKS": banks}


def pe_sources(dtype_name: str) -> list[Path]:
    """The PE's files: the module, its delay lines and its operators."""
    operators = [OPS["mul"].rtl[dtype_name].module, OPS["add"].rtl[dtype_name].module]
    return [sources.LIB_DIR / f"{PE}.sv", sources.LIB_DIR / "fk_delay.sv",
            *sources.operator_files(operators)]
