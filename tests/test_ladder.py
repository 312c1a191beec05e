"""The ladder's facts in one place: the README's table, the AXI numbers each rung asks
for and where its variants live in a build tree all come from ``fpgakern/ladder/``."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from fpgakern import paths
from fpgakern.cli._select import parse_rungs
from fpgakern.errors import UsageError
from fpgakern.ir.ops import OPS
from fpgakern.ladder import (
    AXI_BOUNDARY_BYTES,
    AXI_BURST_MAX_BEATS,
    DEFAULT_RUNGS,
    LAST_RUNG,
    RUNGS,
    builds,
    plan,
)
from fpgakern.spec.library import Library

LIBRARY = Library(paths.specs_dir())
README = paths.SOURCE_ROOT / "README.md"


def readme_ladder_rows() -> list[list[str]]:
    text = README.read_text()
    table = text[text.index("## The optimization ladder"):].split("\n\n")[1]
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in table.splitlines()]
    assert rows[0][:4] == ["rung", "name", "HLS C++", "RTL"], "README's ladder table moved"
    return rows[2:]


def test_readme_ladder_table_is_the_rungs():
    """One summary per rung: the README says what the generated headers say."""
    rows = readme_ladder_rows()
    assert [row[:4] for row in rows] == [
        [str(r.index), r.name, r.summary, r.rtl_summary] for r in RUNGS]


def test_rung_count_comes_from_rungs():
    assert RUNGS[LAST_RUNG] is RUNGS[-1]
    assert parse_rungs(f"0,{LAST_RUNG}") == (0, LAST_RUNG)
    with pytest.raises(UsageError, match=rf"rungs are 0-{LAST_RUNG}\)"):
        parse_rungs(str(LAST_RUNG + 1))
    # A kernel that names no rungs (none of the bundled ones does) builds every rung.
    assert LIBRARY.get("binary_ops/add").rungs == DEFAULT_RUNGS


@pytest.mark.parametrize("rung", RUNGS, ids=lambda r: r.name)
@pytest.mark.parametrize("dtype", ["float32", "int32", "complex64"])
def test_bursts_fit_axi(rung, dtype):
    """Whatever a rung asks for, a burst never passes 256 beats or a 4 KiB page, and at
    the sequential rungs never a phase."""
    p = plan(LIBRARY.get("binary_ops/add"), rung.index, dtype)
    beat_bytes = p.arch.port_bits // 8
    for burst in (p.arch.read_burst, p.arch.write_burst, p.arch.hls_burst or 1):
        assert 1 <= burst <= AXI_BURST_MAX_BEATS
        assert burst * beat_bytes <= AXI_BOUNDARY_BYTES
        assert rung.dataflow or burst <= p.arch.phase_elements
    assert (p.arch.hls_burst is None) == (rung.hls_burst is None)


def test_partials_come_from_the_combine_latency():
    """P is the power of two at least the combine op's RTL latency (6 for the fp32 add)."""
    for op in OPS.values():
        if op.kind != "reduce":
            continue
        for dtype in op.dtypes:
            latency = OPS[op.combine].rtl[dtype].latency
            p = op.partials(dtype)
            assert p >= latency and p & (p - 1) == 0 and (p == 1 or p // 2 < latency)
    assert OPS["sum"].partials("float32") == 8
    p = plan(LIBRARY.get("reduce_ops/sum"), 2, "float32")
    assert p.arch.acc_interleave == 8


def test_variant_layout_round_trips(tmp_path):
    """The build tree's layout: one function to make a variant's folder, one glob to find
    them, one parser to read one back."""
    p = plan(LIBRARY.get("binary_ops/add"), 3, "int32")
    folder = p.variant_dir(tmp_path)
    assert folder == tmp_path / "binary_ops" / "add" / "opt3" / "int32"
    assert paths.variant_of(folder) == ("binary_ops", "add", 3, "int32")
    (folder / "add_i32.xo").parent.mkdir(parents=True)
    (folder / "add_i32.xo").write_bytes(b"")
    assert list(tmp_path.glob(paths.variant_glob("*.xo"))) == [folder / "add_i32.xo"]
    assert list((tmp_path / "binary_ops").glob(paths.variant_glob("*.xo", below=True))) == [
        folder / "add_i32.xo"]
    for not_a_variant in ("c/k/opt/int32", "c/k/optx/int32", "c/k/v3/int32", "k/opt3"):
        assert paths.variant_of(Path(not_a_variant)) is None


def test_no_literal_rung_bound_in_the_cli():
    """Rung options take their range from RUNGS, not a literal."""
    cli = paths.PACKAGE_DIR / "cli"
    for source in [*cli.glob("*.py"), paths.PACKAGE_DIR / "spec" / "schema.py"]:
        text = source.read_text()
        assert not re.search(r"IntRange\(0, \d\)|rungs are 0-\d|RUNG_COUNT", text), source


# ------------------------------------------------------------ memory systems (issue 13)


def _memory(name: str):
    from fpgakern.link import platforms

    return platforms.load(name).memory_system()


def test_default_memory_is_the_default_platforms():
    from fpgakern.ladder import DEFAULT_MEMORY
    from fpgakern.link import platforms

    assert _memory(platforms.DEFAULT) == DEFAULT_MEMORY


def test_bank_bytes_per_cycle_from_bandwidth_and_kernel_clock():
    hbm, ddr = _memory("u55c"), _memory("u250")
    assert len(hbm.banks) == 32 and hbm.banks[0] == "HBM[0]" and hbm.kernel_mhz == 300
    assert hbm.bytes_per_cycle[0] == pytest.approx(14.375e9 / 300e6)  # 47.9 B/cycle
    assert len(ddr.banks) == 4 and ddr.bytes_per_cycle[3] == pytest.approx(19.25e9 / 300e6)
    assert not _memory("kv260").limited  # no per-port figure: no limit


@pytest.mark.parametrize(("kernel", "platform", "bank_per_port", "ideal"), [
    # HBM: each port on a 47.9 B/cycle pseudo-channel of its own, 4 B per element
    ("binary_ops/add", "u55c", False, 14.375e9 / 300e6 / 4),
    ("binary_ops/add", "u55c", True, 14.375e9 / 300e6 / 4),
    ("unary_ops/exp", "u55c", False, 14.375e9 / 300e6 / 4),
    ("reduce_ops/sum", "u55c", False, 14.375e9 / 300e6 / 4),  # the result: one word
    # DDR: the CU's 3 ports x 64 B per 16 elements on the bank of its SLR: 64.2 / 12
    ("binary_ops/add", "u250", False, 19.25e9 / 300e6 / 12),
    ("binary_ops/add", "u250", True, 16.0),  # a DDR4 channel outruns one 512-bit port
])
def test_rung4_ideal_is_bounded_by_its_banks(kernel, platform, bank_per_port, ideal):
    p = plan(LIBRARY.get(kernel), 4, "float32", memory=_memory(platform),
             bank_per_port=bank_per_port)
    assert p.performance.compute_elements_per_cycle == 16.0
    assert p.performance.ideal_elements_per_cycle == pytest.approx(ideal)
    assert plan(LIBRARY.get(kernel), 4, "float32").performance.ideal_elements_per_cycle == 16.0


def test_port_placement():
    add, total = LIBRARY.get("binary_ops/add"), LIBRARY.get("reduce_ops/sum")
    # HBM: a, b and out each on a pseudo-channel of their own, asked or not.
    for per_port in (False, True):
        hbm = plan(add, 4, "float32", memory=_memory("u55c"), bank_per_port=per_port)
        assert [hbm.placement.bank_tag(0, p) for p in hbm.arch.pointers] == \
            ["HBM[0]", "HBM[1]", "HBM[2]"]
    # DDR: all of a CU's ports on the bank of its SLR, unless a bank per port is asked.
    one = plan(add, 4, "float32", memory=_memory("u250"))
    assert {one.placement.bank_tag(0, p) for p in one.arch.pointers} == {"DDR[0]"}
    spread = plan(add, 4, "float32", memory=_memory("u250"), bank_per_port=True)
    assert [spread.placement.bank_tag(0, p) for p in spread.arch.pointers] == \
        ["DDR[0]", "DDR[1]", "DDR[2]"]
    # A reduction's result moves one word: it shares its CU's input bank.
    s = plan(total, 4, "float32", memory=_memory("u250"), bank_per_port=True)
    assert [s.placement.bank_tag(0, p) for p in s.arch.pointers] == ["DDR[0]", "DDR[0]"]
    # Before dataflow a CU has one port (one bundle), so one bank whatever is asked.
    shared = plan(add, 1, "float32", memory=_memory("u55c"), bank_per_port=True)
    assert {shared.placement.bank_tag(0, p) for p in shared.arch.pointers} == {"HBM[0]"}


# (kernel, its per-channel or per-column tables) of the library
TABLE_KERNELS = [("nn_ops/batch_norm", ("running_mean", "running_var", "weight", "bias")),
                 ("nn_ops/bias_add", ("bias",)), ("nn_ops/layer_norm", ("weight", "bias"))]


@pytest.mark.parametrize(("name", "tables"), TABLE_KERNELS)
@pytest.mark.parametrize("rung", [0, 1, 2, 3, 4, 5])
def test_tables_share_one_bundle(name, tables, rung):
    """From rung 2 a shaped kernel's tables (read once per run, before the elements) share
    one read bundle, as a Vitis user writes it; x and out keep their own: three AXI
    masters a CU (batch_norm had six). The bundles are numbered in order, and all the
    pointers of a bundle sit on its one bank, spreading or not."""
    kernel = LIBRARY.get(name)
    p = plan(kernel, rung, "float32")
    arch = p.arch
    assert arch.table_pointers == tables
    assert all(arch.pointer_bytes(t) == 0 for t in tables)
    if rung < 2:
        assert arch.bundles == ("gmem",)
        return
    assert {arch.bundle(t) for t in tables} == {"gmem1"}
    assert (arch.bundle("x"), arch.bundle("out")) == ("gmem0", "gmem2")
    assert arch.bundles == ("gmem0", "gmem1", "gmem2") and p.placement.cost.masters == 3
    for memory, per_port in (("u55c", False), ("u250", True), ("u250", False)):
        placed = plan(kernel, rung, "float32", memory=_memory(memory), bank_per_port=per_port)
        placement = placed.placement
        for cu in range(placement.compute_units):
            banks = {}
            for pointer in placed.arch.pointers:
                banks.setdefault(placed.arch.bundle(pointer), set()).add(
                    placement.port_bank(cu, pointer))
            assert all(len(b) == 1 for b in banks.values()), (memory, per_port, cu, banks)
            if placement.spreads_ports:  # x and out apart; the tables on x's bank
                assert banks["gmem1"] == banks["gmem0"] != banks["gmem2"]


def test_rung5_is_built_on_request():
    """Rung 5 takes the card's memory: no spec builds it unasked, every kernel that
    builds rung 4 builds it by number, and a spec that stops below rung 4 does not."""
    assert tuple(r.index for r in RUNGS if r.index != 5) == DEFAULT_RUNGS
    add = LIBRARY.get("binary_ops/add")
    assert 5 not in add.rungs and builds(add, 5) and not builds(add, LAST_RUNG + 1)
    assert plan(add, 5, "float32").placement.compute_units == 10  # the default platform's
    low = replace(add, rungs=(0, 1, 2))
    assert not builds(low, 5)
    with pytest.raises(UsageError, match="does not build rung 5"):
        plan(low, 5, "float32")


@pytest.mark.parametrize(("kernel", "platform", "cus", "share"), [
    ("binary_ops/add", "u55c", 10, 0.9), ("unary_ops/exp", "u55c", 16, 0.9),
    # sum has one data-moving port but two AXI masters a CU: the 32 HBM AXI interfaces
    # hold 16 CUs, half the pseudo-channels' bandwidth.
    ("reduce_ops/sum", "u55c", 16, 0.49),
    # DDR: one CU per DDR4 bank and SLR, all its ports on that bank.
    ("binary_ops/add", "u250", 4, 0.9), ("unary_ops/exp", "u250", 4, 0.9),
    ("reduce_ops/sum", "u250", 4, 0.9)])
def test_rung5_fills_the_platforms_banks(kernel, platform, cus, share):
    """As many CUs as the banks feed and the fabric holds, and an ideal within the share
    of the roofline those CUs reach."""
    p = plan(LIBRARY.get(kernel), 5, "float32", memory=_memory(platform))
    assert p.placement.compute_units == cus
    assert p.placement.fit is not None and p.placement.fit.fits
    performance = p.performance
    assert performance.ideal_elements_per_cycle >= \
        share * performance.roofline_elements_per_cycle


def test_row_kernels_ideal_per_rung():
    """Row kinds: rung 1 takes one row at a time through its stages (softmax: max, sum,
    body: 1/3 element per cycle); the dataflow rungs overlap rows at the lanes' rate."""
    softmax = LIBRARY.get("nn_ops/softmax")
    assert plan(softmax, 0, "float32").performance.ideal_elements_per_cycle is None
    assert plan(softmax, 1, "float32").performance.ideal_elements_per_cycle == pytest.approx(1 / 3)
    row_sum = LIBRARY.get("nn_ops/row_sum")
    assert plan(row_sum, 1, "float32").performance.ideal_elements_per_cycle == 1.0
    assert plan(softmax, 2, "float32").performance.ideal_elements_per_cycle == 1.0
    assert plan(softmax, 4, "float32").performance.ideal_elements_per_cycle == 16.0


@pytest.mark.parametrize("rung", [0, 1, 2, 3, 4])
def test_pointer_types_and_widths_of_complex64_to_float32(rung):
    """complex64 in, float32 out: each pointer its own element type (interface, host) and
    words (lanes of the widest element: 8 at rung 4, a 512-bit input and a 256-bit output
    port); one shared bundle before rung 2 as wide as the widest words."""
    from fpgakern.interface import interface

    p = plan(LIBRARY.get("unary_ops/abs"), rung, "complex64")
    assert p.arch.pointer_dtype("x").name == "complex64"
    assert p.arch.pointer_dtype("out").name == "float32"
    lanes = 8 if rung == 4 else 1
    assert p.arch.lanes == lanes
    assert p.arch.pointer_bits("x") == 64 * lanes and p.arch.pointer_bits("out") == 32 * lanes
    iface = interface(p)
    assert iface.arg("x").ctype == "std::complex<float>*" and iface.arg("out").ctype == "float*"
    widths = {port.name: port.data_width for port in iface.masters}
    if rung < 2:
        assert widths == {"m_axi_gmem": 64}
    else:
        assert widths == {"m_axi_gmem0": 64 * lanes, "m_axi_gmem1": 32 * lanes}
    assert p.arch.pointer_bytes("out") == 4 and p.arch.pointer_bytes("x") == 8
    # every other kernel: one width, the output's type the result's (argmax: int64)
    q = plan(LIBRARY.get("reduce_ops/argmax"), rung, "float32")
    assert q.arch.pointer_bits("out") == q.arch.port_bits
    assert interface(q).arg("out").ctype == "int64_t*"
