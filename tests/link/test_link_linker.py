"""Linking: CU placement, banks, fit checks, platforms, and reproducible bytes."""

from __future__ import annotations

import uuid

import pytest
from link_support import must_show_inputs

from fpgakern.errors import UsageError
from fpgakern.link import axlf, config, kernel_xml, linker, platforms, repro, xclbin
from fpgakern.link.inspect import inspect_bytes
from fpgakern.link.kernel_xml import ArgDesc, KernelDesc, PortDesc


def test_must_show_design(make_plan, u250):
    design = linker.link(must_show_inputs(make_plan), u250)
    assert [cu.ip_name for cu in design.cus] == [
        *(f"add_f32:add_f32_{i}" for i in range(1, 5)), "exp_f32:exp_f32_1",
        "sum_f32:sum_f32_1"]
    bases = [cu.base for cu in design.cus]
    assert bases == sorted(bases) and len(set(bases)) == 6
    assert all(b - u250.cu_base == i * u250.cu_stride for i, b in enumerate(bases))
    assert [cu.interrupt_id for cu in design.cus] == list(range(6))
    # each add CU on its own DDR bank, every pointer of a CU on the same bank
    assert [{b.tag for _, bs in cu.port_banks for b in bs} for cu in design.cus[:4]] == \
        [{f"DDR[{i}]"} for i in range(4)]


def test_connectivity_has_one_entry_per_cu_and_memory_arg(lib_xclbin):
    report = inspect_bytes(lib_xclbin)
    # add: 3 pointers x 4 CUs; exp and sum: 2 pointers each
    assert len(report["connectivity"]) == 3 * 4 + 2 + 2
    ips = report["ip_layout"]
    assert all(ip["m_ip_control"] == "AP_CTRL_CHAIN" and ip["m_int_enable"] == "1"
               for ip in ips)
    assert report["header"]["mode"] == "XCLBIN_FLAT"


def test_sp_nk_and_slr_from_config(make_plan, u250):
    cfg = config.parse("[connectivity]\nnk=add_f32:2:left.right\n"
                       "sp=left.a:DDR[3]\nsp=right.m_axi_gmem2:PLRAM[1]\n"
                       "slr=right:SLR2\n", "t.cfg")
    p = make_plan("binary_ops/add", 4)
    design = linker.link([linker.LinkInput(kernel_xml.from_plan(p))], u250, cfg)
    left, right = design.cus
    assert (left.name, right.name, right.slr) == ("left", "right", "SLR2")
    assert [b.tag for b in left.banks_of_port("m_axi_gmem0")] == ["DDR[3]"]
    assert [b.tag for b in right.banks_of_port("m_axi_gmem2")] == ["PLRAM[1]"]
    text = design.to_config().to_text()
    assert "nk=add_f32:2:left,right" in text and "sp=right.m_axi_gmem2:PLRAM[1]" in text


def test_batch_norm_tables_share_one_port_and_bank(make_plan):
    """batch_norm at rung 5 on u55c: kernel.xml has three masters, its four per-channel
    tables on m_axi_gmem1; their sp= lines name one bank per CU (no conflict), x's, and
    each CU's three ports take 18 of the 32 HBM AXI interfaces over 6 CUs."""
    u55c = platforms.load("u55c")
    p = make_plan("nn_ops/batch_norm", 5)
    desc = kernel_xml.from_plan(p)
    assert [m.name for m in desc.masters] == ["m_axi_gmem0", "m_axi_gmem1", "m_axi_gmem2"]
    assert {a.name: a.port for a in desc.memory_args} == {
        "x": "m_axi_gmem0", "running_mean": "m_axi_gmem1", "running_var": "m_axi_gmem1",
        "weight": "m_axi_gmem1", "bias": "m_axi_gmem1", "out": "m_axi_gmem2"}
    design = linker.link([linker.LinkInput(desc, origin="nn_ops/batch_norm", plan=p)], u55c)
    assert len(design.cus) == 6
    for cu in design.cus:
        banks = {port: [b.tag for b in bs] for port, bs in cu.port_banks}
        assert set(banks) == {"m_axi_gmem0", "m_axi_gmem1", "m_axi_gmem2"}
        assert banks["m_axi_gmem1"] == banks["m_axi_gmem0"] != banks["m_axi_gmem2"]
    assert sum(len(cu.port_banks) for cu in design.cus) == 18


def test_bank_range_gives_one_connection_per_bank(make_plan):
    u55c = platforms.load("u55c")
    cfg = config.parse("[connectivity]\nsp=exp_f32_1.x:HBM[4:7]\n", "t.cfg")
    design = linker.link([linker.LinkInput(kernel_xml.from_plan(make_plan("unary_ops/exp")))],
                         u55c, cfg)
    assert [b.tag for b in design.cus[0].banks_of_port("m_axi_gmem0")] == \
        [f"HBM[{i}]" for i in range(4, 8)]
    assert "sp=exp_f32_1.m_axi_gmem0:HBM[4:7]" in design.to_config().to_text()
    report = inspect_bytes(xclbin.to_xclbin(design))
    x = report["kernels"][0]["instances"][0]["args"][0]
    assert x["name"] == "x" and x["memory"] == [f"HBM[{i}]" for i in range(4, 8)]


@pytest.mark.parametrize(("cfg", "message"), [
    ("nk=add_f32:200", "do not fit platform u250, which takes at most 128"),
    ("nk=mul_f32:2", "not being linked"),
    ("sp=add_f32_9.a:DDR[0]", "no CU 'add_f32_9'"),
    ("sp=add_f32_1.alpha:DDR[0]", "is a scalar"),
    ("sp=add_f32_1.zz:DDR[0]", "has no memory argument or m_axi interface 'zz'"),
    ("sp=add_f32_1.a:HBM[0]", r"has no memory 'HBM\[0\]' \(it has: DDR\[0:3\], PLRAM\[0:3\]\)"),
    ("sp=add_f32_1.a:DDR[9]", "has no memory"),
    ("slr=add_f32_1:SLR7", "has no SLR7"),
    ("stream_connect=add_f32_1.out:add_f32_1.a", "no AXI4-Stream port"),
    ("nk=add_f32:2:x.x2\nnk=exp_f32:1:x", "used twice"),
])
def test_link_errors(make_plan, u250, cfg, message):
    inputs = [linker.LinkInput(kernel_xml.from_plan(make_plan(n)))
              for n in ("binary_ops/add", "unary_ops/exp")]
    with pytest.raises(UsageError, match=message):
        linker.link(inputs, u250, config.parse(f"[connectivity]\n{cfg}\n", "t.cfg"))


def test_too_many_masters_on_one_bank(make_plan, u250):
    p = make_plan("binary_ops/add", 4)
    cfg = config.parse("[connectivity]\nnk=add_f32:6\n" + "".join(
        f"sp=add_f32_{i}.m_axi_gmem{j}:DDR[0]\n" for i in range(1, 7) for j in range(3)),
        "t.cfg")
    with pytest.raises(UsageError, match=r"DDR\[0\] of platform u250 would take 18 AXI "
                                         "masters, it takes at most 15"):
        linker.link([linker.LinkInput(kernel_xml.from_plan(p))], u250, cfg)


def test_edge_board_limits(make_plan):
    kv260 = platforms.load("kv260")
    p = make_plan("binary_ops/add", 3)
    with pytest.raises(UsageError, match="takes at most 32"):
        linker.link([linker.LinkInput(kernel_xml.from_plan(p), 33)], kv260)
    design = linker.link([linker.LinkInput(kernel_xml.from_plan(p), 4)], kv260)
    assert [cu.base for cu in design.cus][:2] == [0xA0010000, 0xA0020000]
    assert {b.tag for cu in design.cus for _, bs in cu.port_banks for b in bs} == \
        {"HP0", "HP1", "HP2", "HP3"}


def test_build_config_banks_yield_on_other_cards(make_plan):
    """A rung-3 build's link.cfg names DDR banks; on an HBM card they give way."""
    p = make_plan("binary_ops/add", 3)
    build_cfg = config.parse("[connectivity]\nnk=add_f32:4\nsp=add_f32_2.a:DDR[1]\n", "b.cfg")
    item = linker.LinkInput(kernel_xml.from_plan(p), 1, build_cfg)
    design = linker.link([item], platforms.load("u55c"))
    assert len(design.cus) == 4 and "does not fit u55c" in design.notes[0]
    user = config.parse("[connectivity]\nsp=add_f32_2.a:DDR[1]\n", "u.cfg")
    with pytest.raises(UsageError, match="u.cfg:2"):
        linker.link([item], platforms.load("u55c"), user)


def test_duplicate_kernel_names(make_plan, u250):
    a3 = make_plan("binary_ops/add", 3)
    a4 = make_plan("binary_ops/add", 4)
    with pytest.raises(UsageError, match="named twice"):
        linker.link([linker.LinkInput(kernel_xml.from_plan(a3), origin="add@opt3"),
                     linker.LinkInput(kernel_xml.from_plan(a4), origin="add@opt4")], u250)


def test_stream_connect_between_stream_ports(u250):
    def kernel(name: str, mode: str) -> KernelDesc:
        ports = (PortDesc("s_axi_control", "slave", 32, 0x1000),
                 PortDesc("axis", mode, 32))
        args = (ArgDesc("axis", 4, 0, "axis", 0, 0, 0, "stream<int>&"),)
        return KernelDesc(name, f"x:y:{name}:1.0", ports, args)

    sc = config.parse("[connectivity]\nsc=prod_1.axis:cons_1.axis:16\n", "s.cfg")
    design = linker.link([linker.LinkInput(kernel("prod", "write_only")),
                          linker.LinkInput(kernel("cons", "read_only"))], u250, sc)
    assert design.streams[0].depth == 16
    meta = inspect_bytes(xclbin.to_xclbin(design))
    # both ends connect to one MEM_STREAMING_CONNECTION after the card's banks
    stream = len(u250.banks)
    assert meta["memories"][stream]["type"] == "MEM_STREAMING_CONNECTION"
    assert [(c["m_ip_layout_index"], c["arg_index"], c["mem_data_index"])
            for c in meta["connectivity"]] == [("0", "0", str(stream)), ("1", "0", str(stream))]
    assert meta["errors"] == []
    backwards = config.parse("[connectivity]\nsc=cons_1.axis:prod_1.axis\n", "s.cfg")
    with pytest.raises(UsageError, match="must be write_only"):
        linker.link([linker.LinkInput(kernel("prod", "write_only")),
                     linker.LinkInput(kernel("cons", "read_only"))], u250, backwards)


def test_platform_by_path_and_errors(tmp_path):
    text = platforms.PLATFORMS_DIR.joinpath("u250.yaml").read_text()
    mine = tmp_path / "mine.yaml"
    mine.write_text(text.replace("name: u250", "name: mine"))
    assert platforms.load(mine).name == "mine"
    with pytest.raises(UsageError, match="unknown platform 'u999'"):
        platforms.load("u999")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("type: MEM_DDR4", "type: MEM_HOST"))
    with pytest.raises(UsageError, match=r"bad.yaml:\d+: type"):
        platforms.load(bad)


@pytest.mark.parametrize("name", platforms.available())
def test_bundled_platforms_load(name):
    p = platforms.load(name)
    assert p.banks and p.default_banks and p.clocks and p.cu_capacity >= 16
    assert all(b.type <= platforms.PYNQ_MAX_MEM_TYPE for b in p.banks)


def test_required_platform_kinds():
    families = {n: {b.family for b in platforms.load(n).banks} for n in platforms.available()}
    assert {"DDR"} <= families["u250"] and len(platforms.load("u250").default_banks) == 4
    assert "HBM" in families["u55c"]
    assert len(platforms.load("u55c").resolve_banks("HBM[0:31]")) == 32
    assert {"HBM", "DDR"} <= families["u280"]
    assert platforms.load("kv260").host_architecture == "aarch64"


def test_two_builds_are_byte_identical(make_plan, u250, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    first = xclbin.to_xclbin(linker.link(must_show_inputs(make_plan), u250), project="lib")
    second = xclbin.to_xclbin(linker.link(must_show_inputs(make_plan), u250), project="lib")
    assert first == second
    header = axlf.read(first).header
    assert header["m_timeStamp"] == repro.RELEASE_EPOCH  # not 0: `file` said 1970
    # a different design gets a different uuid and unique id
    other = xclbin.to_xclbin(linker.link(must_show_inputs(make_plan)[:2], u250), project="lib")
    other_header = axlf.read(other).header
    assert other_header["uuid"] != header["uuid"]
    assert other_header["m_uniqueId"] != header["m_uniqueId"]


def test_unique_fields_are_settable(make_plan, u250):
    design = linker.link(must_show_inputs(make_plan), u250)
    fixed = uuid.UUID("12345678-1234-5678-1234-567812345678")
    data = xclbin.to_xclbin(design, timestamp=1_700_000_000, uuid=fixed)
    header = axlf.read(data).header
    assert header["uuid"] == fixed.bytes and header["m_timeStamp"] == 1_700_000_000
    assert inspect_bytes(data)["generated_by"]["time_stamp"] == "2023-11-14-22:13:20"
    assert data == xclbin.to_xclbin(design, timestamp=1_700_000_000, uuid=fixed)


def test_targets_set_the_mode(make_plan, u250):
    inputs = must_show_inputs(make_plan)
    for target, mode in (("hw_emu", "XCLBIN_HW_EMU"), ("sw_emu", "XCLBIN_SW_EMU")):
        report = inspect_bytes(xclbin.to_xclbin(linker.link(inputs, u250, target=target)))
        assert report["header"]["mode"] == mode
    with pytest.raises(UsageError, match="unknown target"):
        linker.link(inputs, u250, target="fpga")
