"""The resource model (issue 29, item 1): per-SLR budgets from the platform files, each
CU's cost from its generated code and Yosys, rung 5 sized to fit, and builds that
refuse what cannot fit."""

from __future__ import annotations

import math
import re

import pytest
from click.testing import CliRunner

from fpgakern import paths
from fpgakern.backends.hls.generator import render_kernel
from fpgakern.cli import main
from fpgakern.ir import shapes
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ladder import builds, plan, platform_plan
from fpgakern.ladder.costs import cu_cost, memory_usage
from fpgakern.ladder.microarch import OnChipMemory
from fpgakern.link import platforms
from fpgakern.spec.library import Library

LIBRARY = Library(paths.specs_dir())
CARDS = ("u55c", "u250", "u280")


@pytest.mark.parametrize("name", CARDS)
def test_slr_budgets_stay_within_the_part(name):
    """Each platform's SLRs add up to no more than the part's totals, every bank sits in
    one of its SLRs, and the SLRs' AXI budgets cover the default banks' SLRs."""
    card = platforms.load(name)
    fabric = card.fabric
    assert fabric is not None and 0 < fabric.margin <= 1
    assert [r.name for r in fabric.regions] == list(card.slrs)
    for resource, total in card.resources.items():
        assert sum(dict(r.capacity.items())[resource] for r in fabric.regions) <= total
    memory = card.memory_system()
    assert set(memory.bank_slrs) <= set(card.slrs)
    for slr in set(memory.bank_slrs):
        assert fabric.regions[fabric.index(slr)].axi_masters > 0


@pytest.mark.parametrize(("memory", "bram", "uram"), [
    (OnChipMemory("tab", 4096, 32), 4, 0),  # 4K x 9 (or 1K x 36) four times
    (OnChipMemory("fifo", 256, 512), 7.5, 0),  # fifteen RAMB18 of 512 x 36
    (OnChipMemory("tab", 256, 32, copies=16), 8, 0),  # a cyclic partition: half each
    (OnChipMemory("fifo", 64, 512), 0, 0),  # shallow: LUT RAM
    (OnChipMemory("buf", 131072, 64, storage="uram"), 0, 32),  # 4K x 72 blocks
])
def test_memories_map_to_blocks(memory, bram, uram):
    blocks = memory_usage(memory)
    assert (blocks.bram, blocks.uram) == (bram, uram)


def test_batch_norm_lane_tables_cost_what_the_review_counted():
    """32 lane tables of 4,096 floats a CU at rung 4: 4 BRAM36 each, 128 a CU."""
    cost = cu_cost(plan(LIBRARY.get("nn_ops/batch_norm"), 4, "float32").arch)
    lanes = [(m, b) for m, b in cost.memories if m.name.endswith("_lane")]
    assert sum(m.copies for m, _ in lanes) == 32
    assert sum(b.bram for _, b in lanes) == 128


def test_batch_norm_rung5_fits_u55c_with_fewer_cus_than_banks():
    """Sized by its banks alone (two data-moving ports on 32 pseudo-channels) it would be
    16 CUs: about 2,900 BRAM36 and 48 AXI masters (three a CU: x, out and the bundle its
    four tables share), which do not fit; the ladder takes the most that fit: 6, bounded
    by BRAM (with a bundle per table, 6 AXI masters a CU, the 32 AXI interfaces held 5)."""
    p = plan(LIBRARY.get("nn_ops/batch_norm"), 5, "float32",
             memory=platforms.load("u55c").memory_system())
    placement = p.placement
    assert placement.fit is not None and placement.fit.fits
    assert 1 <= placement.compute_units < 16
    by_banks = placement._fit(16)[0]
    assert by_banks is not None and not by_banks.fits
    problems = " ".join(by_banks.problems)
    assert "BRAM" in problems and "48 AXI masters" in problems
    assert placement.compute_units == 6 and placement.cost.masters == 3
    assert placement.fit.masters[0] == 18
    over = placement._fit(placement.compute_units + 1)[0]
    assert not over.fits and "AXI" not in " ".join(over.problems)  # the most that fit


@pytest.mark.parametrize("name", ("u55c", "u250"))
def test_every_kernels_rung5_fits(name):
    """For every kernel and dtype of the library that builds rung 5: the estimated
    resources of every SLR within the platform's margin (benchmarks/resources.py prints
    the table)."""
    memory = platforms.load(name).memory_system()
    checked = 0
    for kernel in LIBRARY.kernels:
        if not builds(kernel, 5):
            continue
        for dtype in kernel.dtypes:
            fit = plan(kernel, 5, dtype, memory=memory).placement.fit
            assert fit is not None and fit.fits, (kernel.qualname, dtype, fit.problems)
            for i in range(len(fit.fabric.regions)):
                budget = fit.fabric.budget(i)
                assert fit.used[i].bram <= budget.bram and fit.used[i].dsp <= budget.dsp
                assert fit.used[i].uram <= budget.uram
            checked += 1
    assert checked > 100


_DECLARED = re.compile(
    r"^\s*(float|int32_t|fk::cfloat)\s+(\w+)((?:\[[A-Z_0-9 ]+\])+);", re.MULTILINE)
_SIZES = {"MAX_CHANNELS": shapes.MAX_CHANNELS, "MAX_ROW": shapes.MAX_ROW}
_BITS = {"float": 32, "int32_t": 32, "fk::cfloat": 64}


def _declared_arrays(text: str, lanes: int, chunk: int) -> dict[str, int]:
    """name -> bits of each array of tables, buffers or rows the HLS C++ declares."""
    sizes = {**_SIZES, "LANES": lanes, "CHUNK": chunk}
    out = {}
    for ctype, name, dims in _DECLARED.findall(text):
        if not re.search(r"_(buf|tab|lane|row)$", name):
            continue
        words = math.prod(int(sizes.get(d.strip(), d.strip()))
                          for d in re.findall(r"\[([^\]]+)\]", dims))
        out[name] = words * _BITS[ctype]
    return out


@pytest.mark.parametrize("rung", (1, 2, 4))
def test_memories_are_the_arrays_the_hls_code_declares(rung):
    """The model's tables, chunk buffers, lane copies and row buffers are exactly the
    arrays the generated HLS C++ declares, at every kind but the transforms: a template
    that adds an array and a model that misses it disagree here."""
    checked = 0
    for kernel in LIBRARY.kernels:
        if kernel.kind == "transform" or kernel.streams or not builds(kernel, rung):
            continue
        p = plan(kernel, rung, kernel.dtypes[0])
        declared = _declared_arrays(render_kernel(p), p.arch.lanes, p.arch.chunk)
        modeled = {m.name: m.total_bits for m in p.arch.memories()
                   if not m.name.endswith("_fifo")}
        assert modeled == declared, p.top
        checked += 1
    assert checked > 50


# Under -m slow and nightly: Yosys's first run on a machine compiles its WebAssembly
# (YoWASP; 49 CPU-seconds, a tenth of the default run's budget of two cores for 8
# minutes), and the 16-lane int32 add is 70 s of synthesis. The estimate itself is held to
# the generated code by the tests above in the default run.
@pytest.mark.slow
@pytest.mark.parametrize(("kernel", "rung", "dtype"), [
    ("binary_ops/add", 4, "int32"), ("unary_ops/exp", 2, "float32")])
def test_the_estimate_follows_yosys(kernel, rung, dtype):
    """The model against Yosys synth_xilinx of the generated RTL kernel (cached by
    content): block RAM and DSP slices equal, LUTs and flip-flops within a quarter."""
    from fpgakern.backends.rtl.resources import estimate

    p = plan(LIBRARY.get(kernel), rung, dtype)
    model = cu_cost(p.arch).total
    measured = estimate(p)
    assert model.bram == measured["bram"] and model.dsp == measured["dsp"]
    assert model.lut == pytest.approx(measured["lut"], rel=0.25)
    assert model.ff == pytest.approx(measured["ff"], rel=0.25)


def test_build_refuses_what_cannot_fit(tmp_path):
    """A card whose SLRs together hold less BRAM than one batch_norm CU (a CU too large
    for one SLR may span them all): one line naming the variant, the SLR and the
    resource; exit 2, nothing built."""
    text = (platforms.PLATFORMS_DIR / "u55c.yaml").read_text()
    small = text.replace("BRAM: 672,", "BRAM: 50,")
    assert small != text
    card = tmp_path / "small.yaml"
    card.write_text(small)
    result = CliRunner().invoke(main, ["build", "nn_ops/batch_norm", "--opt", "4",
                                       "--platform", str(card), "--until", "hls",
                                       "--out", str(tmp_path / "build")])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert "nn_ops/batch_norm opt4 float32 does not fit u55c" in result.output
    assert "SLR0 BRAM" in result.output and "(80 % of 50)" in result.output
    assert not (tmp_path / "build" / "nn_ops").exists()


def test_build_reports_the_estimate_and_places_for_its_platform(tmp_path):
    """`fpgakern build binary_ops/add --opt 3 --platform u250`: a u250 link.cfg (DDR
    banks, each CU on the bank and in the SLR of its own), the estimate in the output and
    in the manifest."""
    import json

    out = tmp_path / "build"
    result = CliRunner().invoke(main, ["build", "binary_ops/add", "--opt", "3", "--dtype",
                                       "float32", "--platform", "u250", "--until", "hls",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "estimated 4 CUs: SLR0 1 CU" in result.output
    folder = out / "binary_ops" / "add" / "opt3" / "float32"
    cfg = (folder / "link.cfg").read_text()
    assert "# Platform: u250" in cfg and "HBM" not in cfg
    for i in range(4):
        assert f"sp=add_f32_{i + 1}.a:DDR[{i}]" in cfg and f"slr=add_f32_{i + 1}:SLR{i}" in cfg
    manifest = json.loads((folder / "manifest.json").read_text())
    fit = manifest["resources"]["fit"]
    assert fit["fits"] and [r["cus"] for r in fit["regions"]] == [1, 1, 1, 1]
    assert manifest["resources"]["cu"]["axi_masters"] == 3


def test_a_share_beyond_one_pseudo_channel_is_refused():
    """Rung 5 on u55c: each CU's share of a port lives in one 512 MiB pseudo-channel; a
    larger share is one clear error in the C++ host and in the Python runtime."""
    from fpgakern.backends.host import render_variant
    from fpgakern.errors import UsageError
    from fpgakern.runtime.host import check_share

    p = platform_plan(LIBRARY.get("binary_ops/add"), 5, "float32",
                      platforms.load("u55c").memory_system())
    most = (512 << 20) // DTYPES["float32"].bytes
    assert p.placement.share_limit == (most, 512 << 20, "HBM[0]")
    header = render_variant(p)["add_f32_host.hpp"]
    assert f"if (share * lanes > {most}u)" in header and "HBM[0], 512 MiB" in header
    check_share(p, 10, most)
    with pytest.raises(UsageError, match=r"more than one memory bank holds .*HBM\[0\], 512 MiB"):
        check_share(p, 10, most + 16)


def test_usage_values_are_its_fields_in_order():
    """Usage.values spells its fields out (for speed): it must name each, in order."""
    from dataclasses import fields

    from fpgakern.ladder.fabric import Usage

    usage = Usage(*(float(i + 1) for i in range(len(fields(Usage)))))
    assert usage.values() == tuple(getattr(usage, f.name) for f in fields(Usage))


def test_placing_fewer_cus_first_changes_no_placement():
    """A plan places only as many CUs as it asks about: asking about few first and then
    about rung 5's whole range gives the placements of asking about the range at once."""
    u250 = platforms.load("u250").memory_system()
    placement = platform_plan(LIBRARY.get("binary_ops/add"), 5, "float32", u250).placement
    few = placement._fit(2)
    again = platform_plan(LIBRARY.get("binary_ops/add"), 5, "float32", u250).placement
    again._in_turn(64)
    assert again._fit(2) == few
    assert [placement.cu_slr(c) for c in range(placement.compute_units)] == \
        [again.cu_slr(c) for c in range(again.compute_units)]


def test_copies_counts_what_fits_an_slr_and_names_the_bound():
    """Fabric.copies (a matrix engine's PEs per SLR): the fewest copies any resource's
    budget allows, and that resource; a block that needs nothing of a resource is not
    bounded by it."""
    from fpgakern.ladder.fabric import Fabric, Region, Usage

    fabric = Fabric((Region("SLR0", Usage(lut=1000, ff=5000, dsp=100), 4),), 0.8)
    assert fabric.copies(0, Usage(lut=10, ff=10, dsp=2)) == (40, "DSP")  # 80/2 < 800/10
    assert fabric.copies(0, Usage(lut=100, dsp=1)) == (8, "LUT")
    assert fabric.copies(0, Usage()) == (0, "none")


@pytest.mark.slow
def test_the_pe_estimate_comes_from_yosys():
    """The float32 PE maps its multiplier to DSP48E2s and its adder and partials to LUTs
    (benchmarks/matrix_pe.py prints the table; docs/matrix.md quotes it)."""
    from fpgakern.backends.rtl.resources import pe_estimate

    fp32, int32 = pe_estimate("float32", 1), pe_estimate("int32", 1)
    assert fp32["dsp"] >= 1 and fp32["lut"] > int32["lut"] > 0
    assert pe_estimate("float32", 16)["lut"] > fp32["lut"]  # 16 slots' partials
