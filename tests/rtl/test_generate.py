"""Structure of the generated RTL: interface, per-rung microarchitecture, scheduling."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from fpgakern.backends.rtl import generate as gen
from fpgakern.backends.rtl.generate import NoRtlOperator, generate
from fpgakern.backends.rtl.lint import lint
from fpgakern.backends.rtl.schedule import schedule
from fpgakern.interface import interface
from fpgakern.ir import expr
from fpgakern.ir.ops import OPS
from fpgakern.ladder import plan
from fpgakern.paths import specs_dir
from fpgakern.spec.library import Library

LIBRARY = Library(specs_dir())


def kernel(name):
    return LIBRARY.get(name)


def top_text(rtl):
    return rtl.files[-1].read_text()


def ports(text):
    """name -> declared width (bits) of every port of the top module."""
    start = re.search(r"^module \w+ \(", text, re.MULTILINE).start()
    header = text[start:text.index(");", start)]
    found = {}
    for m in re.finditer(r"(input|output)\s+logic\s*(\[(\d+):0\])?\s*(\w+)", header):
        found[m.group(4)] = int(m.group(3)) + 1 if m.group(3) else 1
    return found


def test_vitis_interface_ports(tmp_path):
    p = plan(kernel("binary_ops/add"), 2, "float32")
    rtl = generate(p, tmp_path)
    found = ports(top_text(rtl))
    assert {"ap_clk", "ap_rst_n", "interrupt"} <= set(found)
    control = {"awvalid": 1, "awready": 1, "awaddr": 12, "wvalid": 1, "wready": 1,
               "wdata": 32, "wstrb": 4, "bvalid": 1, "bready": 1, "bresp": 2, "arvalid": 1,
               "arready": 1, "araddr": 12, "rvalid": 1, "rready": 1, "rdata": 32, "rresp": 2}
    for name, width in control.items():
        assert found[f"s_axi_control_{name}"] == width, name
    for bundle in ("gmem0", "gmem1", "gmem2"):
        for name, width in {"awaddr": 64, "araddr": 64, "awlen": 8, "arlen": 8, "awsize": 3,
                            "awburst": 2, "wdata": 32, "wstrb": 4, "rdata": 32, "bresp": 2,
                            "wlast": 1, "rlast": 1}.items():
            assert found[f"m_axi_{bundle}_{name}"] == width, (bundle, name)
    assert rtl.top == "add_f32" and rtl.files[-1].name == "add_f32.sv"
    assert all(path.exists() for path in rtl.files)


def test_register_map_follows_interface(tmp_path):
    p = plan(kernel("binary_ops/add"), 2, "int32")
    rtl = generate(p, tmp_path)
    text = top_text(rtl)
    iface = interface(p)
    for arg in iface.args:
        word = (arg.offset - 0x10) // 4
        if arg.kind == "pointer":
            assert f"assign ptr_{arg.name} = {{args[{word + 1}*32 +: 32], args[{word}*32 +: 32]}}" \
                in text
        else:
            assert f"assign arg_{arg.name} = args[{word}*32 +: 32]" in text
    # a 0x10 b 0x1C out 0x28 alpha 0x34 n 0x3C: 13 words, reserved ones read-only zero.
    assert "ARG_WORDS = 13" in text
    assert "ARG_WRITABLE = 13'b0101011011011" in text


def test_rung0_and_rung1_share_one_bundle(tmp_path):
    for rung, burst in ((0, 1), (1, 256)):
        rtl = generate(plan(kernel("binary_ops/add"), rung, "int32"), tmp_path / str(rung))
        text = top_text(rtl)
        assert {b for b in re.findall(r"m_axi_(\w+?)_awvalid", text)} == {"gmem"}
        assert re.search(rf"MAX_BURST += {burst};", text)
        assert text.count("fk_axi_read #(") == 1 and text.count("fk_axi_write #(") == 1
    assert re.search(r"CHUNK += 1;", top_text(generate(
        plan(kernel("binary_ops/add"), 0, "int32"), tmp_path / "again")))


@pytest.mark.parametrize("rung", [2, 3])
def test_dataflow_has_fifos_and_a_port_per_pointer(rung, tmp_path):
    p = plan(kernel("binary_ops/add"), rung, "float32")
    text = top_text(generate(p, tmp_path))
    assert set(re.findall(r"m_axi_(gmem\d)_awvalid,", text)) == {"gmem0", "gmem1", "gmem2"}
    assert text.count("fk_fifo #(") == 3  # a, b, out
    assert text.count("fk_axi_read #(") == 2 and text.count("fk_axi_write #(") == 1
    assert "u_read_a" in text and ".araddr(m_axi_gmem0_araddr)" in text
    assert ".awaddr(m_axi_gmem2_awaddr)" in text


def test_rung3_is_the_rung2_kernel(tmp_path):
    k = kernel("binary_ops/add")
    two = generate(plan(k, 2, "float32"), tmp_path / "2")
    three = generate(plan(k, 3, "float32"), tmp_path / "3")
    # Only the header line naming the rung and its summary differs.
    strip = lambda t: re.sub(r"// Vitis RTL kernel of .*\n", "", t)  # noqa: E731
    assert strip(top_text(two)) == strip(top_text(three))
    assert top_text(two) != top_text(three)


def test_rung4_has_512_bit_ports_and_16_lanes(tmp_path):
    p = plan(kernel("binary_ops/add"), 4, "float32")
    rtl = generate(p, tmp_path)
    found = ports(top_text(rtl))
    for bundle in ("gmem0", "gmem1", "gmem2"):
        assert found[f"m_axi_{bundle}_wdata"] == 512
        assert found[f"m_axi_{bundle}_rdata"] == 512
        assert found[f"m_axi_{bundle}_wstrb"] == 64
    datapath = rtl.files[-2].read_text()
    assert "localparam int LANES   = 16;" in datapath
    assert "for (genvar lane = 0; lane < LANES; lane++) begin : g_lane" in datapath
    # one fused multiply-add per lane, instantiated inside the lane loop
    assert datapath.count("fk_fp32_fma u_") == 1
    assert re.search(r"\.a\(sc_alpha\),\s*\.b\(in_b\),\s*\.c\(in_a\),", datapath)
    assert rtl.lanes == 16
    assert re.search(r"MAX_BURST += 64;", top_text(rtl))  # 64 x 64 B = one 4 KiB page


def test_delay_balancing_follows_latencies(tmp_path):
    """sub = fma(-alpha, b, a): -alpha comes out of neg, so a and b wait exactly neg's
    latency (one cycle for int32, none for float32's sign flip)."""
    for dtype in ("int32", "float32"):
        neg = OPS["neg"].rtl[dtype].latency
        fma = OPS["fma"].rtl[dtype].latency
        rtl = generate(plan(kernel("binary_ops/sub"), 2, dtype), tmp_path / dtype)
        datapath = rtl.files[-2].read_text()
        for name in ("a", "b"):
            delayed = f"fk_delay #(.WIDTH(32), .DEPTH({neg})) u_in_{name}_d{neg}"
            assert (delayed in datapath) == (neg > 0), (dtype, name)
        assert rtl.latency == neg + fma
        assert f"LATENCY = {neg + fma};" in datapath


def test_schedule_balances_unequal_paths():
    graph = expr.parse("(a * b) + (a - b) * 2", {"a": "int32", "b": "int32"}, {})
    dp = schedule(graph, ("a", "b"), ())
    mul, sub = (OPS[o].rtl["int32"].latency for o in ("mul", "sub"))
    by_op = {i.op: i for i in dp.instances if i.op != "mul" or i.start == 0}
    # (a - b) is ready after sub; its product with 2 after mul more; a*b is ready after mul
    assert by_op["add"].start == sub + mul
    delays = {d.depth for d in dp.delays}
    assert delays == {sub}  # a*b waits sub cycles for (a - b) * 2
    assert dp.latency == sub + mul + OPS["add"].rtl["int32"].latency
    # shared sub-expressions are computed once
    shared = schedule(expr.parse("(a + b) * (a + b)", {"a": "int32", "b": "int32"}, {}),
                      ("a", "b"), ())
    assert [i.op for i in shared.instances] == ["add", "mul"]


def test_a_condition_is_one_bit_wide(tmp_path):
    """where's condition, a comparison, is a 1-bit wire and a 1-bit delay line (it waits
    for the product); the int32 kernel lints clean under -Wall with 16 lanes."""
    graph = expr.parse("where(a < b, b * 3, a)", {"a": "int32", "b": "int32"}, {})
    dp = schedule(graph, ("a", "b"), ())
    lt, mul = (OPS[o].rtl["int32"].latency for o in ("lt", "mul"))
    by_op = {i.op: i for i in dp.instances}
    assert by_op["lt"].width == 1 and by_op["where"].width == 32
    assert {(d.source, d.depth, d.width) for d in dp.delays} == {
        (by_op["lt"].name, mul - lt, 1), ("in_a", mul, 32)}
    specs = tmp_path / "kernel_specs" / "t"
    specs.mkdir(parents=True)
    (specs / "pick.yaml").write_text(
        "kernel: pick\ndoc: b * 3 where a < b, else a.\ninputs: [a, b]\noutputs: [out]\n"
        "dtypes: [int32]\nexpression: where(a < b, b * 3, a)\n")
    rtl = generate(plan(Library(tmp_path / "kernel_specs").get("t/pick"), 4, "int32"),
                   tmp_path / "rtl")
    datapath = rtl.files[-2].read_text()
    assert "logic n0_lt;" in datapath and "fk_delay #(.WIDTH(1)" in datapath
    result = lint(rtl)
    assert result.ok, result.output


def test_constants_are_literals_and_scalars_come_from_registers(tmp_path):
    graph = expr.parse("x * 1.5 + s", {"x": "float32"}, {"s": "float32"})
    dp = schedule(graph, ("x",), ("s",))
    operands = {sig for i in dp.instances for _, sig in i.operands}
    assert "32'h3FC00000" in operands and "sc_s" in operands
    assert not any(d.source in ("sc_s", "32'h3FC00000") for d in dp.delays)


def test_reduction_writes_one_element(tmp_path):
    p = plan(kernel("reduce_ops/sum"), 4, "float32")
    text = top_text(generate(p, tmp_path))
    assert "fk_reduce_fp32_sum #(.LANES(16), .P(8))" in text
    assert "assign out_beats = in_beats != '0 ? 32'd1 : 32'd0;" in text
    assert "RESULT_STRB = 64'(4'hF)" in text


def test_missing_rtl_operator_is_a_clear_error(tmp_path, monkeypatch):
    entry = OPS["mul"]
    monkeypatch.setitem(OPS, "mul", replace(entry, rtl={}))
    p = plan(kernel("binary_ops/mul"), 2, "int32")
    with pytest.raises(NoRtlOperator, match="no RTL operator for mul int32 yet"):
        generate(p, tmp_path)


def test_microarch_numbers():
    p2 = plan(kernel("binary_ops/add"), 2, "int32")
    arch = gen.microarch(p2, 4)
    assert arch.max_burst == 64 and arch.in_fifo_depth == 256
    assert arch.max_write_burst == 16 and arch.write_outstanding == 16  # HLS defaults
    assert arch.out_fifo_depth >= 2 * arch.max_write_burst + 4
    p0 = plan(kernel("binary_ops/add"), 0, "int32")
    assert gen.microarch(p0, 4).max_burst == 1 and gen.microarch(p0, 4).read_outstanding == 1
