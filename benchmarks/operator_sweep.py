"""Large random sweeps of the exact RTL operators against the op table's numpy references.

    python benchmarks/operator_sweep.py                 # >= 1M random vectors per operator
    python benchmarks/operator_sweep.py --n 4000000 --write-docs
    python benchmarks/operator_sweep.py --ops add mul

For every elementwise op whose accuracy is exact and whose RTL takes float32 operands (plus
int32 -> float32 conversion), it runs the special-value sets and N random vectors through
the Verilator model at the op table's latency and counts bit differences (any NaN matches
any NaN) and NaN outputs other than the canonical 0x7FC00000.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from fpgakern.ir.ops import OPS
from fpgakern.verify import opsim

DOCS = Path(__file__).resolve().parents[1] / "docs" / "operators.md"
BEGIN, END = "<!-- sweep:begin -->", "<!-- sweep:end -->"
CHUNK = 1_000_000  # vectors per simulation run, to bound memory
# Ops whose RTL creates NaNs and so must emit the canonical one; abs/neg/relu pass an
# operand's NaN bits through, and comparisons return booleans.
NAN_CREATING = {"add", "sub", "mul", "fma", "div", "sqrt", "maximum", "minimum", "trunc",
                "floor", "ceil", "round", "reciprocal", "clamp"}
NAN_CREATING |= {"fmod", "remainder"}  # issue 14, remainders


def cases(selected: list[str] | None) -> list[tuple[str, str]]:
    out = []
    for op in OPS.values():
        if op.kind != "elementwise" or (selected and op.name not in selected):
            continue
        for dtype in sorted(op.rtl):
            is_fp = dtype == "float32" or op.result_dtype == "float32"
            if is_fp and op.accuracy_for(dtype).kind == "exact":
                out.append((op.name, dtype))
    return out


def vectors(op_name: str, dtype: str, rng: np.random.Generator, n: int):
    """Special values first, then random vectors in chunks."""
    arity = OPS[op_name].arity
    if dtype == "int32":
        yield [opsim.INT32_SPECIALS]
        for start in range(0, n, CHUNK):
            yield [opsim.int32_random(rng, min(CHUNK, n - start))]
        return
    if arity == 3:
        yield list(opsim.fp32_ternary_specials(rng))
        for start in range(0, n, CHUNK):
            yield list(opsim.fp32_random_triples(rng, min(CHUNK, n - start)))
    elif arity == 2:
        yield list(opsim.fp32_binary_specials(rng))
        for start in range(0, n, CHUNK):
            yield list(opsim.fp32_random_pairs(rng, min(CHUNK, n - start)))
    else:
        yield [opsim.fp32_unary_specials()]
        for start in range(0, n, CHUNK):
            yield [opsim.fp32_random(rng, min(CHUNK, n - start))]


def sweep(op_name: str, dtype: str, n: int, seed: int) -> dict[str, object]:
    rng = np.random.default_rng([seed, *op_name.encode()])
    started = time.monotonic()
    compared = mismatches = noncanonical = 0
    first: list[str] = []
    module = OPS[op_name].rtl[dtype].module
    for operands in vectors(op_name, dtype, rng, n):
        if OPS[op_name].condition:  # where's condition: a 1-bit port, bit 0 of the draw
            operands[0] = operands[0] & np.uint32(1)
        result = opsim.check_against_reference(op_name, dtype, operands)
        compared += result.compared
        mismatches += result.mismatch_count
        noncanonical += result.noncanonical_nans
        first += result.mismatches[: max(0, 3 - len(first))]
    return {"op": f"{op_name}:{dtype}", "module": module, "vectors": compared,
            "random": n, "mismatches": mismatches, "noncanonical": noncanonical,
            "seconds": time.monotonic() - started, "first": first}


def markdown(rows: list[dict[str, object]], seed: int) -> str:
    return "\n".join([*_table_head(seed), *(_table_row(r) for r in rows)])


def _table_row(r: dict[str, object]) -> str:
    creates_nan = str(r["op"]).split(":")[0] in NAN_CREATING
    nan = r["noncanonical"] if creates_nan else "n/a"
    return (f"| {r['op']} | {r['module']} | {r['random']:,} | {r['vectors']:,} "
            f"| {r['mismatches']} | {nan} | {r['seconds']:.1f} |")


def merged(old_block: str, rows: list[dict[str, object]], seed: int) -> str:
    """The docs table with ``rows`` replacing (or joining) the rows of their ops, every
    other op's row kept, in op-table order: a sweep of a few ops (--ops) refreshes only
    theirs. Each row keeps its own vector count; the seed line is this run's."""
    kept = {line.split("|")[1].strip(): line for line in old_block.splitlines()
            if line.startswith("| ") and ":" in line.split("|")[1]}
    kept.update({str(r["op"]): _table_row(r) for r in rows})
    order = [f"{name}:{dtype}" for name, dtype in cases(None)]
    ordered = [kept.pop(key) for key in order if key in kept] + list(kept.values())
    return "\n".join([*_table_head(seed), *ordered])


def _table_head(seed: int) -> list[str]:
    return [f"Random sweep (`python benchmarks/operator_sweep.py`, seed {seed}): every vector "
            "compared bit for bit with the op table's numpy reference (any NaN = any NaN).",
            "",
            "| op | module | random vectors | total with specials | mismatches "
            "| NaN outputs other than 0x7FC00000 | seconds |",
            "|---|---|---:|---:|---:|---:|---:|"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="random vectors per op")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--ops", nargs="*", help="only these ops (default: all exact fp ops)")
    parser.add_argument("--write-docs", action="store_true",
                        help="refresh docs/operators.md (with --ops: only their rows)")
    args = parser.parse_args()
    rows = []
    for op_name, dtype in cases(args.ops):
        row = sweep(op_name, dtype, args.n, args.seed)
        rows.append(row)
        verdict = "bit-exact" if row["mismatches"] == 0 else f"{row['mismatches']} DIFFER"
        print(f"{row['op']:<18} {row['vectors']:>10,} vectors  {verdict}  "
              f"({row['seconds']:.1f} s)", file=sys.stderr)
        for line in row["first"]:
            print(f"    {line}", file=sys.stderr)
    table = markdown(rows, args.seed)
    print(table)
    if args.write_docs:
        text = DOCS.read_text()
        head, rest = text.split(BEGIN, 1)
        old_block, tail = rest.split(END, 1)
        if args.ops:
            table = merged(old_block, rows, args.seed)
        DOCS.write_text(head + BEGIN + "\n" + table + "\n" + END + tail)
    return 1 if any(r["mismatches"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
