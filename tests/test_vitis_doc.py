"""docs/vitis.md's per-op table is the op table's ``vitis`` column, rendered.

``python tests/test_vitis_doc.py`` rewrites the table between its markers.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fpgakern.ir.ops import OPS, Op

DOC = Path(__file__).resolve().parents[1] / "docs" / "vitis.md"
BEGIN = "<!-- begin: generated from fpgakern/ir/ops (python tests/test_vitis_doc.py) -->"
END = "<!-- end: generated table -->"

_SUBNORMALS = {
    "flush": "operands and results flushed to signed zero",
    "compare": "compared as zero; selected operand passes unchanged",
    "exact": "unchanged",
}


# complex64's own ops in the RTL: its expression is lowered to float32 operators
# (fpgakern.ir.complex_lowering).
_LOWERED = {"to_complex64": "lowered: (a, +0), wiring (docs/rtl.md); bit-exact",
            "conj": "lowered: `fk_fp32_neg` on the imaginary part (docs/rtl.md); bit-exact",
            "real": "lowered: the lane's low 32 bits, wiring (docs/rtl.md); bit-exact",
            "imag": "lowered: the lane's high 32 bits, wiring (docs/rtl.md); bit-exact",
            "angle": "lowered: `fk_fp32_atan2`(im, re) (docs/rtl.md); <= 2 ulp"}


def _rtl(op: Op) -> str:
    dtype = next((d for d in ("float32", "int32") if d in op.rtl), None)
    if dtype is None:  # conj, to_complex64: complex64 only, lowered to float32 (docs/rtl.md)
        return _LOWERED[op.name]
    accuracy = op.accuracy_for(dtype)
    rule = {"exact": "bit-exact, subnormals exact", "reduction": "sum order fixed (P partials), "
            "subnormals exact"}.get(accuracy.kind, f"{accuracy}, subnormals exact")
    return f"`{op.rtl[dtype].module}`: {rule}"


def table() -> str:
    rows = ["| op | HLS C++ | Vitis HLS builds | subnormals on Vitis | Vitis accuracy | "
            "fpgakern RTL | fpgakern csim |", "|---|---|---|---|---|---|---|"]
    for op in OPS.values():
        if op.vitis is None:
            continue
        spelling = op.hls.format(*"abc"[:op.arity]) if op.kind == "elementwise" else \
            f"accumulate with `{op.hls.format('acc', 'x')}`"
        spelling = spelling if spelling.startswith("accumulate") else f"`{spelling}`"
        v = op.vitis
        rows.append(f"| {op.name} | {spelling} | {v.core} | {_SUBNORMALS[v.subnormals]} | "
                    f"{v.accuracy} | {_rtl(op)} | {v.csim} |")
    return "\n".join(rows) + "\n"


def _split(text: str) -> tuple[str, str, str]:
    head, rest = text.split(BEGIN + "\n", 1)
    body, tail = rest.split(END, 1)
    return head, body, tail


def test_the_doc_table_is_the_op_table():
    _, body, _ = _split(DOC.read_text())
    assert body == table(), "run: python tests/test_vitis_doc.py"


def test_every_float_op_is_in_the_doc():
    _, body, _ = _split(DOC.read_text())
    for op in OPS.values():
        if "float32" in op.dtypes or op.result_dtype == "float32":
            assert f"\n| {op.name} |" in "\n" + body, op.name


if __name__ == "__main__":
    head, _, tail = _split(DOC.read_text())
    DOC.write_text(head + BEGIN + "\n" + table() + END + tail)
    sys.exit(0)
