"""The matrix engine's PE (fk_mac_pe) from Yosys, and the PE array each card's SLRs hold.

    python benchmarks/matrix_pe.py [--platforms u55c u250] [--slots 1 16] [--mhz 300]

Synthesizes the PE (a multiplier, an adder and its 64 partial sums per output slot, in the
declared order; fpgakern.backends.rtl.pe) with Yosys `synth_xilinx -family xcup` for
float32 and int32, prints its LUT, FF, DSP and BRAM, then, per platform and SLR, how many
PEs each resource's budget (the platform file's, times its fit_margin) holds and which
one binds. The last columns are a projection, not a measurement: PEs x 2 flop x the clock,
beside AutoSA's 938.7 GFLOP/s fp32 on a U250 (shared/reference/matrix-anchors.md). No PE
array has been built or simulated yet; these are the PE's own costs, without the array's
feeders, buffers and control. Yosys estimates without timing, not Vivado results.
"""

from __future__ import annotations

import argparse

from fpgakern.backends.rtl.resources import pe_estimate
from fpgakern.ladder.fabric import Usage
from fpgakern.link import platforms

AUTOSA_U250_GFLOPS = 938.7


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platforms", nargs="+", default=["u55c", "u250"])
    parser.add_argument("--slots", type=int, nargs="+", default=[1, 16],
                        help="outputs a PE interleaves, each with its 64 partials")
    parser.add_argument("--mhz", type=float, default=300.0)
    args = parser.parse_args()
    costs = {}
    print("| dtype | slots | LUT | FF | DSP | BRAM36 | CARRY8 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for dtype in ("float32", "int32"):
        for slots in args.slots:
            c = pe_estimate(dtype, slots)
            costs[dtype, slots] = Usage(lut=c["lut"], ff=c["ff"], bram=c["bram"], dsp=c["dsp"])
            print(f"| {dtype} | {slots} | {c['lut']:.0f} | {c['ff']:.0f} | {c['dsp']:.0f} | "
                  f"{c['bram']:.1f} | {c['carry']:.0f} |")
    print()
    print(f"float32 PEs per SLR, one slot each; projected peak at {args.mhz:.0f} MHz "
          f"(2 flop per PE per cycle), not measured:")
    print()
    print("| platform | SLR | by DSP | by LUT | by FF | bound | PEs | projected GFLOP/s |")
    print("|---|---|---:|---:|---:|---|---:|---:|")
    cost = costs["float32", args.slots[0]]
    for name in args.platforms:
        fabric = platforms.load(name).fabric
        if fabric is None:
            print(f"| {name} | - | platform file states no per-SLR resources |")
            continue
        total = 0
        for index, region in enumerate(fabric.regions):
            only = {resource: fabric.copies(index, Usage(**{resource: getattr(cost, resource)}))[0]
                    for resource in ("dsp", "lut", "ff")}
            pes, bound = fabric.copies(index, cost)
            total += pes
            print(f"| {name} | {region.name} | {only['dsp']} | {only['lut']} | {only['ff']} | "
                  f"{bound} | {pes} | {2 * pes * args.mhz / 1000:.1f} |")
        print(f"| {name} | all | | | | | {total} | {2 * total * args.mhz / 1000:.1f} |")
    print()
    print(f"AutoSA, fp32 on an Alveo U250: {AUTOSA_U250_GFLOPS} GFLOP/s (measured on the card).")


if __name__ == "__main__":
    main()
