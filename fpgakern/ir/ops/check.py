"""The op table's consistency check: what every entry must state, and what a
reduction's combine op must provide."""

from __future__ import annotations

from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.ops.model import FLOAT, ORDER_SENSITIVE, Op, _power_of_two_at_least


def check_table(ops: dict[str, Op]) -> None:
    """Keep the table ``ops`` self-consistent (fpgakern.ir.ops.table runs it as it builds
    the table, so a bad entry fails at import)."""
    for entry in ops.values():
        unknown = set(entry.dtypes) - set(DTYPES)
        assert not unknown, f"op {entry.name}: unknown dtypes {unknown}"
        if entry.kind == "reduce":
            assert entry.combine in ops, f"op {entry.name}: combine op missing"
            assert set(entry.identity) == set(entry.dtypes), f"op {entry.name}: identity"
            combine = ops[entry.combine]
            missing = set(entry.dtypes) - set(combine.rtl)
            assert not missing, (f"op {entry.name}: its partials come from the latency of "
                                 f"{combine.name}'s RTL, which {sorted(missing)} lack")
            missing = set(entry.dtypes) - set(combine.hls_latency)
            assert not missing, (f"op {entry.name}: its HLS partials come from "
                                 f"{combine.name}'s hls_latency, which {sorted(missing)} lack")
            for dtype in entry.dtypes & FLOAT:
                if entry.combine in ORDER_SENSITIVE:
                    vitis = _power_of_two_at_least(combine.hls_latency[dtype])
                    assert entry.partials(dtype) >= vitis, (
                        f"op {entry.name}: the HLS C++ combines {dtype} partials in the "
                        f"RTL's order, whose P is below Vitis' {vitis}-cycle "
                        f"{combine.name}")
            assert (entry.picks is None) == (entry.result_dtype is None), (
                f"op {entry.name}: a reduction returns its operands' dtype, or an index "
                "(picks=, result_dtype='int64')")
        # complex64 components are float32: its ops state what Vitis builds as well.
        ieee = {"float32", "complex64"}
        touches_float = bool(ieee & entry.dtypes) or entry.result_dtype in ieee
        assert (entry.vitis is not None) == touches_float, (
            f"op {entry.name}: an op with float32 operands or results states what Vitis "
            f"builds for it (vitis=), and only such an op")

