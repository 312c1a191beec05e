"""Rung 5 of every kernel on each card: its compute units and what they take of each SLR.

    python benchmarks/resources.py                       # u55c and u250, every kernel
    python benchmarks/resources.py --platform u280 --kernels nn_ops/batch_norm
    python benchmarks/resources.py --yosys binary_ops/add@4:float32   # model vs Yosys
    python benchmarks/resources.py --calibrate          # re-measure the CU overheads

The default run plans rung 5 of every kernel and dtype of the library (a kernel that
does not build rung 5 is listed with the reason) on each platform, and prints, per
variant, the CU count the ladder chose and the estimated BRAM36, URAM and DSP of every
SLR against its budget (the platform's fit_margin of what the SLR gives kernels), with
the AXI masters on its memory. It exits 1 if any variant does not fit. Results also go
to --out (default build/benchmarks/): resources.md and resources.json.

--yosys KERNEL@RUNG:DTYPE synthesizes the variant's CU with Yosys (through
fpgakern.backends.rtl.resources, cached by content) and prints the model's estimate
beside it. --calibrate synthesizes one reference kernel of each kind at rungs 0, 1, 2
and 4 and writes each CU's overhead (Yosys's figures less the operators the model
counts) into fpgakern/ladder/costs.json; the operators' own figures come from
benchmarks/operator_resources.py --write-docs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from fpgakern import paths
from fpgakern.ladder import builds, not_built, plan
from fpgakern.ladder.costs import COSTS_FILE, cu_cost, operator_logic
from fpgakern.ladder.fabric import Usage
from fpgakern.link import platforms
from fpgakern.spec.library import Library

PLATFORMS = ("u55c", "u250")
RUNG = 5
# The reference kernel of each kind --calibrate measures: its cheapest operators, so
# that what Yosys reports beyond them is the CU itself.
CALIBRATION = {
    "elementwise": ("unary_ops/trunc", "int32"),  # an identity: no operator at all
    "reduction": ("reduce_ops/sum", "int32"),
    "broadcast": ("nn_ops/bias_add", "float32"),
    "row_reduction": ("nn_ops/row_sum", "float32"),
    "row_map": ("nn_ops/softmax", "float32"),
}
CALIBRATED_RUNGS = (0, 1, 2, 4)
SHOWN = ("BRAM", "URAM", "DSP")


def rung5_rows(library: Library, platform_names: list[str],
               kernels: list[str] | None) -> list[dict]:
    rows = []
    for name in platform_names:
        memory = platforms.load(name).memory_system()
        for kernel in library.kernels:
            if kernels and kernel.qualname not in kernels:
                continue
            if not builds(kernel, RUNG):
                rows.append({"platform": name, "kernel": kernel.qualname, "dtype": "-",
                             "built": False, "reason": not_built(kernel, RUNG)})
                continue
            for dtype in kernel.dtypes:
                p = plan(kernel, RUNG, dtype, memory=memory)
                fit = p.placement.fit
                assert fit is not None, f"{name} states no per-SLR resources"
                rows.append({"platform": name, "kernel": kernel.qualname, "dtype": dtype,
                             "built": True, "cus": p.placement.compute_units,
                             "cu": p.placement.cost.to_json(), "fit": fit.to_json(),
                             "fits": fit.fits, "problems": fit.problems})
    return rows


def _slr_cell(region: dict, resource: str) -> str:
    return f"{region['used'][resource]:g}/{region['budget'][resource]:g}"


def markdown(rows: list[dict]) -> str:
    out = []
    for name in dict.fromkeys(r["platform"] for r in rows):
        mine = [r for r in rows if r["platform"] == name]
        built = [r for r in mine if r["built"]]
        if not built:
            continue
        slrs = [region["name"] for region in built[0]["fit"]["regions"]]
        head = ["kernel", "dtype", "CUs"] + [f"{s} {what}" for s in slrs
                                             for what in (*SHOWN, "AXI")] + ["fits"]
        out += [f"### {name} (estimated use / budget, {built[0]['fit']['margin']:.0%} of "
                "each SLR; AXI masters / what the SLR's memory takes)", "",
                "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in built:
            cells = [r["kernel"], r["dtype"], str(r["cus"])]
            for region in r["fit"]["regions"]:
                cells += [_slr_cell(region, what) for what in SHOWN]
                cells.append(f"{region['axi_masters']}/{region['axi_budget']}")
            cells.append("yes" if r["fits"] else "NO: " + "; ".join(r["problems"]))
            out.append("| " + " | ".join(cells) + " |")
        skipped = [r for r in mine if not r["built"]]
        if skipped:
            out += ["", "Not built at rung 5: " + "; ".join(r["reason"] for r in skipped) + "."]
        out.append("")
    return "\n".join(out)


def _parse_variant(text: str) -> tuple[str, int, str]:
    kernel, _, rest = text.partition("@")
    rung, _, dtype = rest.partition(":")
    if not kernel or not rung.isdigit() or not dtype:
        raise SystemExit(f"--yosys takes KERNEL@RUNG:DTYPE, e.g. binary_ops/add@4:float32, "
                         f"not {text!r}")
    return kernel, int(rung), dtype


def compare_with_yosys(library: Library, variants: list[str]) -> int:
    from fpgakern.backends.rtl.resources import estimate

    print("| variant | model LUT | Yosys LUT | model FF | Yosys FF | model DSP | Yosys DSP "
          "| model BRAM36 | Yosys BRAM36 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for text in variants:
        kernel, rung, dtype = _parse_variant(text)
        p = plan(library.get(kernel), rung, dtype)
        model = cu_cost(p.arch).total
        measured = estimate(p)
        print(f"| {text} | {model.lut:.0f} | {measured['lut']:.0f} | {model.ff:.0f} | "
              f"{measured['ff']:.0f} | {model.dsp:.0f} | {measured['dsp']:.0f} | "
              f"{model.bram:g} | {measured['bram']:g} |", flush=True)
    return 0


def calibrate(library: Library) -> int:
    from fpgakern.backends.rtl.resources import estimate

    doc = json.loads(COSTS_FILE.read_text())
    overheads: dict[str, dict[str, dict[str, float]]] = {}
    for kind, (kernel, dtype) in CALIBRATION.items():
        for rung in CALIBRATED_RUNGS:
            p = plan(library.get(kernel), rung, dtype)
            assert p.kernel.kind == kind, (kernel, p.kernel.kind)
            started = time.perf_counter()
            measured = estimate(p)
            ops = operator_logic(p.arch)
            rest = Usage(lut=max(0.0, measured["lut"] - ops.lut),
                         ff=max(0.0, measured["ff"] - ops.ff),
                         dsp=max(0.0, measured["dsp"] - ops.dsp))
            overheads.setdefault(kind, {})[str(rung)] = {
                k: round(v) for k, v in rest.items() if k in ("LUT", "FF", "DSP")}
            print(f"  {kind} rung {rung} ({kernel} {dtype}): {overheads[kind][str(rung)]} "
                  f"({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    doc["overheads"] = overheads
    COSTS_FILE.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {COSTS_FILE}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--platform", action="append", dest="platform_names",
                        help=f"platform (repeatable; default: {', '.join(PLATFORMS)})")
    parser.add_argument("--kernels", nargs="*", help="only these kernels (category/name)")
    parser.add_argument("--yosys", nargs="+", metavar="KERNEL@RUNG:DTYPE",
                        help="compare the model with a Yosys synthesis of these variants")
    parser.add_argument("--calibrate", action="store_true",
                        help="measure each kind's CU overhead with Yosys into costs.json")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    library = Library(paths.specs_dir())
    if args.calibrate:
        return calibrate(library)
    if args.yosys:
        return compare_with_yosys(library, args.yosys)
    rows = rung5_rows(library, args.platform_names or list(PLATFORMS), args.kernels)
    text = markdown(rows)
    print(text)
    out = args.out or paths.build_dir() / "benchmarks"
    out.mkdir(parents=True, exist_ok=True)
    (out / "resources.md").write_text(text + "\n")
    (out / "resources.json").write_text(json.dumps(rows, indent=1) + "\n")
    failed = [r for r in rows if r["built"] and not r["fits"]]
    for r in failed:
        print(f"{r['kernel']} {r['dtype']} rung {RUNG} does not fit {r['platform']}: "
              f"{'; '.join(r['problems'])}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
