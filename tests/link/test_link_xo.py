"""The .xo kernel object: members, kernel.xml, component.xml, determinism."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from fpgakern.errors import UsageError
from fpgakern.ladder import plan
from fpgakern.link import ipxact, kernel_xml, xo
from fpgakern.spec.library import Library

SPIRIT = {"spirit": "http://www.spiritconsortium.org/XMLSchema/SPIRIT/1685-2009"}


def test_members_and_index(make_plan, fixture_sources, tmp_path):
    p = make_plan("binary_ops/add", 4)
    hls, rtl = fixture_sources(p.top)
    path = xo.write_xo(p, tmp_path / "add.xo", hls, rtl)
    names = zipfile.ZipFile(path).namelist()
    ip = "ip_repo/fpgakern_rtl_add_f32_1_0"
    assert names == sorted(names)
    assert set(names) == {
        "xo.xml", "add_f32/kernel.xml", "add_f32/cpu_sources/add_f32.cpp",
        "add_f32/cpu_sources/fpgakern_ops.h", f"{ip}/component.xml",
        f"{ip}/hdl/add_f32.sv", f"{ip}/hdl/add_f32_control_s_axi.sv"}
    root = ElementTree.fromstring(zipfile.ZipFile(path).read("xo.xml"))
    assert (root.tag, root.get("VersionMajor")) == ("Root", "6")
    k = root.find("Kernels/Kernel")
    assert (k.get("Name"), k.get("Dir"), k.get("IP")) == ("add_f32", "add_f32", ip)
    assert [f.text for f in k.findall("SupportedFlows/SupportedFlow")] == \
        ["CPU_EMU", "HW_EMU", "SYSTEM"]
    contents = xo.read_xo(path)
    assert contents.problems == () and contents.component_vlnv == contents.kernel.vlnv


def test_kernel_xml_matches_interface(make_plan):
    p = make_plan("binary_ops/add", 4)
    desc = kernel_xml.from_plan(p)
    root = ElementTree.fromstring(desc.to_xml())
    assert (root.tag, root.get("versionMajor"), root.get("versionMinor")) == ("root", "1", "6")
    k = root.find("kernel")
    assert k.get("hwControlProtocol") == "ap_ctrl_chain" and k.get("interrupt") == "true"
    args = {a.get("name"): a.attrib for a in k.iter("arg")}
    assert [(n, a["offset"], a["size"], a["addressQualifier"], a["id"])
            for n, a in args.items()] == [
        ("a", "0x10", "0x8", "1", "0"), ("b", "0x1C", "0x8", "1", "1"),
        ("out", "0x28", "0x8", "1", "2"), ("alpha", "0x34", "0x4", "0", "3"),
        ("n", "0x3C", "0x4", "0", "4")]
    ports = {q.get("name"): q.attrib for q in k.iter("port")}
    assert ports["m_axi_gmem0"]["dataWidth"] == "512"
    assert ports["s_axi_control"]["range"] == "0x1000"
    assert kernel_xml.parse(desc.to_xml(), "t") == desc


def test_component_xml_describes_rtl(make_plan):
    desc = kernel_xml.from_plan(make_plan("unary_ops/exp", 2))
    root = ElementTree.fromstring(ipxact.component_xml(desc, ["hdl/exp_f32.sv"]))
    vlnv = ":".join(root.findtext(f"spirit:{t}", "", SPIRIT)
                    for t in ("vendor", "library", "name", "version"))
    assert vlnv == desc.vlnv
    buses = [b.findtext("spirit:name", "", SPIRIT)
             for b in root.iterfind("spirit:busInterfaces/spirit:busInterface", SPIRIT)]
    assert buses == ["m_axi_gmem0", "m_axi_gmem1", "s_axi_control", "ap_clk", "ap_rst_n",
                     "interrupt"]
    regs = {r.findtext("spirit:name", "", SPIRIT): r.findtext("spirit:addressOffset", "", SPIRIT)
            for r in root.iterfind(".//spirit:register", SPIRIT)}
    assert regs == {"CTRL": "0x000", "GIER": "0x004", "IP_IER": "0x008", "IP_ISR": "0x00C",
                    "x": "0x010", "out": "0x01C", "n": "0x028"}
    files = [f.findtext("spirit:name", "", SPIRIT) for f in root.iterfind(".//spirit:file", SPIRIT)]
    assert files == ["hdl/exp_f32.sv"]


def test_deterministic_bytes_and_epoch(make_plan, fixture_sources, tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    p = make_plan("reduce_ops/sum", 4)
    hls, rtl = fixture_sources(p.top)
    one = xo.write_xo(p, tmp_path / "one.xo", hls, rtl).read_bytes()
    two = xo.write_xo(p, tmp_path / "two.xo", hls, rtl).read_bytes()
    assert one == two
    info = zipfile.ZipFile(io.BytesIO(one)).infolist()[0]
    assert info.date_time == (2026, 11, 24, 0, 0, 0)  # fpgakern's release (repro.py)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    stamped = xo.write_xo(p, tmp_path / "three.xo", hls, rtl).read_bytes()
    assert zipfile.ZipFile(io.BytesIO(stamped)).infolist()[0].date_time[:3] == (2023, 11, 14)


def test_only_hls_sources_means_cpu_emulation_only(make_plan, fixture_sources, tmp_path):
    p = make_plan("unary_ops/relu", 2)
    hls, _ = fixture_sources(p.top)
    contents = xo.read_xo(xo.write_xo(p, tmp_path / "r.xo", hls, []))
    assert contents.flows == ("CPU_EMU",)


def test_clashing_source_names(make_plan, fixture_sources, tmp_path):
    p = make_plan("unary_ops/relu", 2)
    hls, rtl = fixture_sources(p.top)
    with pytest.raises(UsageError, match="both become"):
        xo.write_xo(p, tmp_path / "r.xo", hls, [rtl[0], rtl[0]])


def test_default_path_follows_the_build_tree(make_plan, tmp_path):
    p = make_plan("binary_ops/add", 3, "int32")
    assert xo.default_path(p, tmp_path).relative_to(tmp_path).as_posix() == \
        "build/binary_ops/add/opt3/int32/add_i32.xo"


def test_inconsistent_xo_is_reported(make_plan, fixture_sources, tmp_path):
    p = make_plan("unary_ops/neg", 4)
    hls, rtl = fixture_sources(p.top)
    good = zipfile.ZipFile(xo.write_xo(p, tmp_path / "n.xo", hls, rtl))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as out:
        for name in good.namelist():
            data = good.read(name)
            if name.endswith("component.xml"):
                data = data.replace(b"<spirit:version>1.0<", b"<spirit:version>2.0<")
            out.writestr(name, data)
    problems = xo.read_xo(buf.getvalue()).problems
    assert any("differs from kernel.xml" in p for p in problems)


EXAMPLES = Path(__file__).parents[1] / "data" / "xrt_examples_project" / "kernel_specs"


def test_a_register_kernel_declares_its_mailbox(fixture_sources, tmp_path):
    """kernel.xml says mailbox="both" countedAutoRestart="1" (XRT allows xrt::mailbox on it
    only then) and places the scalars and results from 0x1C, results typed int&;
    component.xml lists the counter and mailbox registers; both survive a .xo round trip.
    An ordinary kernel says neither."""
    p = plan(Library(EXAMPLES).get("xrt_examples/mbox_autorestart"), 0, "int32")
    hls, rtl = fixture_sources(p.top)
    contents = xo.read_xo(xo.write_xo(p, tmp_path / "mbox.xo", hls, rtl))
    desc = contents.kernel
    assert (desc.mailbox, desc.counted_auto_restart) == ("both", 1)
    assert [(a.name, a.offset, a.type) for a in desc.args] == [
        ("in1", 0x1C, "int"), ("in2", 0x24, "int"), ("add", 0x2C, "int&"), ("mult", 0x34, "int&")]
    element = ElementTree.fromstring(desc.to_xml()).find("kernel")
    assert (element.get("mailbox"), element.get("countedAutoRestart")) == ("both", "1")
    names = {r.name: r.offset for r in ipxact.registers(desc)}
    assert (names["AUTO_RESTART_COUNTER"], names["MAILBOX_IN"], names["MAILBOX_OUT"]) == \
        (0x10, 0x14, 0x18)
    ordinary = ElementTree.fromstring(kernel_xml.from_plan(
        plan(Library(EXAMPLES).get("xrt_examples/adder"), 4, "int32")).to_xml()).find("kernel")
    assert ordinary.get("mailbox") is None and ordinary.get("countedAutoRestart") is None


def test_a_register_kernels_hls_configuration_has_the_mailbox(tmp_path):
    """fpgakern vitis's Tcl and v++ -c's pre-synthesis Tcl both turn on the mailboxes and
    the counter for a register kernel, and only for it."""
    from fpgakern.link import vitis

    mbox = plan(Library(EXAMPLES).get("xrt_examples/mbox_autorestart"), 0, "int32")
    adder = plan(Library(EXAMPLES).get("xrt_examples/adder"), 4, "int32")
    lines = ["config_interface -s_axilite_mailbox both",
             "config_interface -s_axilite_auto_restart_counter 1"]
    for p, wanted in ((mbox, True), (adder, False)):
        script = vitis.hls_script(p, tmp_path / "k.cpp", tmp_path / "tb.cpp", part="xcu55c",
                                  clock_mhz=300, csim_argv=[], cosim_argv=[])
        files = dict(vitis.compile_invocation(p, [tmp_path / "k.cpp"], tmp_path / "k.xo",
                                              platform="pfm").files)
        pre = files[tmp_path / f"{p.top}.hls_pre.tcl"]
        for text in (script, pre):
            assert all((line in text) == wanted for line in lines), text
        if wanted:  # set before synthesis
            assert script.index(lines[0]) < script.index("csynth_design")
