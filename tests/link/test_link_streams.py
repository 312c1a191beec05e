"""Stream kernels at link time: kernel.xml and component.xml of AXI4-Stream ports and of a
free-running kernel, and the xclbin of a chain joined by stream_connect (IP_LAYOUT,
MEM_TOPOLOGY's MEM_STREAMING_CONNECTION entries, CONNECTIVITY of both ends,
EMBEDDED_METADATA), read back by fpgakern inspect and PYNQ; unconnected streams refused.
The kernels are tests/data/stream_project's stream_ops: mm2s (mem -> stream out),
square_plus (free-running, x -> y) and s2mm (stream data -> mem)."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner
from test_link_samples import pynq_xclbin_parser

from fpgakern import paths
from fpgakern.cli import main
from fpgakern.errors import UsageError
from fpgakern.ladder import plan
from fpgakern.link import config, ipxact, kernel_xml, linker, metadata, platforms, xclbin
from fpgakern.link.inspect import inspect_bytes
from fpgakern.spec.library import Library

SPECS = paths.SOURCE_ROOT / "tests" / "data" / "stream_project" / "kernel_specs"
SPIRIT = {"spirit": "http://www.spiritconsortium.org/XMLSchema/SPIRIT/1685-2009"}
CHAIN = ("[connectivity]\nstream_connect=mm2s_1.out:square_plus_1.x:32\n"
         "stream_connect=square_plus_1.y:s2mm_1.data\n")
KERNELS = ("mm2s", "square_plus", "s2mm")


@pytest.fixture(scope="module")
def descs() -> dict[str, kernel_xml.KernelDesc]:
    library = Library(SPECS)
    return {name: kernel_xml.from_plan(plan(library.get(f"stream_ops/{name}"), 2, "float32"))
            for name in KERNELS}


def link(descs: dict[str, kernel_xml.KernelDesc], cfg: str = CHAIN) -> linker.Design:
    return linker.link([linker.LinkInput(descs[k]) for k in KERNELS], platforms.load("u250"),
                       config.parse(cfg, "chain.cfg"), "hw_emu")


def test_kernel_xml_of_stream_ports(descs):
    root = ElementTree.fromstring(descs["mm2s"].to_xml())
    kernel = root.find("kernel")
    assert kernel.get("hwControlProtocol") == "ap_ctrl_chain"
    ports = {p.get("name"): p.attrib for p in kernel.iter("port")}
    assert ports["out"] == {"name": "out", "mode": "write_only", "dataWidth": "32",
                            "portType": "stream"}
    args = {a.get("name"): a.attrib for a in kernel.iter("arg")}
    assert args["out"]["addressQualifier"] == "4" and args["out"]["port"] == "out"
    assert args["out"]["type"] == "stream<ap_axiu<32, 0, 0, 0> >&"
    assert (args["out"]["offset"], args["out"]["size"], args["out"]["hostSize"]) == \
        ("0x0", "0x0", "0x8")
    assert kernel_xml.parse(descs["mm2s"].to_xml(), "k") == descs["mm2s"]


def test_free_running_kernel_xml_has_no_control(descs):
    k = descs["square_plus"]
    root = ElementTree.fromstring(k.to_xml()).find("kernel")
    assert root.get("hwControlProtocol") == "ap_ctrl_none"
    assert root.get("interrupt") == "false"
    assert [(p.get("name"), p.get("mode")) for p in root.iter("port")] == \
        [("x", "read_only"), ("y", "write_only")]
    assert not k.has_control and kernel_xml.parse(k.to_xml(), "k") == k


def test_component_xml_axis_buses(descs):
    root = ElementTree.fromstring(ipxact.component_xml(descs["square_plus"], ["a.sv"]))
    buses = {b.find("spirit:name", SPIRIT).text: b
             for b in root.iterfind("spirit:busInterfaces/spirit:busInterface", SPIRIT)}
    assert set(buses) == {"x", "y", "ap_clk", "ap_rst_n"}  # no control, no interrupt
    for name, role in (("x", "slave"), ("y", "master")):
        bus = buses[name]
        assert bus.find("spirit:busType", SPIRIT).get(
            f"{{{SPIRIT['spirit']}}}name") == "axis"
        assert bus.find(f"spirit:{role}", SPIRIT) is not None
    ports = {p.find("spirit:name", SPIRIT).text: p.find("spirit:wire/spirit:direction",
                                                         SPIRIT).text
             for p in root.iterfind("spirit:model/spirit:ports/spirit:port", SPIRIT)}
    assert ports["x_TDATA"] == "in" and ports["x_TREADY"] == "out"
    assert ports["y_TDATA"] == "out" and ports["y_TREADY"] == "in"
    assert root.find("spirit:memoryMaps", SPIRIT) is None
    assert root.find("spirit:addressSpaces", SPIRIT) is None
    associated = buses["ap_clk"].find("spirit:parameters/spirit:parameter/spirit:value",
                                      SPIRIT).text
    assert associated == "x:y"


def test_chain_xclbin_sections(descs):
    design = link(descs)
    u250 = platforms.load("u250")
    report = inspect_bytes(xclbin.to_xclbin(design))
    assert report["errors"] == [] and report["warnings"] == []
    ips = {ip["m_name"]: ip for ip in report["ip_layout"]}
    assert ips["square_plus:square_plus_1"]["m_base_address"] == "not_used"
    assert ips["square_plus:square_plus_1"]["m_ip_control"] == "AP_CTRL_NONE"
    assert ips["square_plus:square_plus_1"]["m_int_enable"] == "0"
    # the data movers take the first two control windows and interrupts
    assert [(ips[f"{k}:{k}_1"]["m_base_address"], ips[f"{k}:{k}_1"]["m_interrupt_id"])
            for k in ("mm2s", "s2mm")] == [(hex(u250.cu_base), "0"),
                                           (hex(u250.cu_base + u250.cu_stride), "1")]
    assert [ip["m_name"] for ip in report["ip_layout"]][-1] == "square_plus:square_plus_1"
    streams = report["memories"][len(u250.banks):]
    assert [(m["tag"], m["type"], m["used"]) for m in streams] == [
        ("stream_conn0", "MEM_STREAMING_CONNECTION", True),
        ("stream_conn1", "MEM_STREAMING_CONNECTION", True)]
    order = [ip["m_name"].partition(":")[2] for ip in report["ip_layout"]]
    conns = {(order[int(c["m_ip_layout_index"])], int(c["arg_index"])): int(c["mem_data_index"])
             for c in report["connectivity"]}
    first = len(u250.banks)
    # both ends of each stream on its entry: mm2s.out (arg 1) and square_plus.x (arg 0)...
    assert conns[("mm2s_1", 1)] == conns[("square_plus_1", 0)] == first
    assert conns[("square_plus_1", 1)] == conns[("s2mm_1", 0)] == first + 1
    # ...while the memory arguments stay on banks
    assert conns[("mm2s_1", 0)] < first and conns[("s2mm_1", 1)] < first
    kernels = {k["name"]: k for k in report["kernels"]}
    assert kernels["square_plus"]["instances"][0]["base_address"] == "not_used"
    assert kernels["square_plus"]["instances"][0]["interrupt_id"] is None
    assert kernels["mm2s"]["instances"][0]["args"][1]["memory"] == ["stream_conn0"]


def test_chain_metadata_connections(descs):
    design = link(descs)
    xml = ElementTree.fromstring(metadata.embedded_metadata(design, "p"))
    core = xml.find("platform/device/core")
    kernel_links = [c.attrib for c in core.iter("connection") if c.get("srcType") == "kernel"]
    assert [(c["srcInst"], c["srcPort"], c["dstInst"], c["dstPort"]) for c in kernel_links] \
        == [("mm2s_1", "OUT", "square_plus_1", "X"), ("square_plus_1", "Y", "s2mm_1", "DATA")]
    free = next(k for k in core.iter("kernel") if k.get("name") == "square_plus")
    assert [i.find("addrRemap") for i in free.iter("instance")] == [None]


def test_pynq_reads_the_chain(descs):
    """PYNQ lists the data movers (it skips a kernel without control port) with their
    stream arguments and sees the streaming memories."""
    parser = pynq_xclbin_parser()
    parsed = parser.XclBin(xclbin_data=xclbin.to_xclbin(link(descs)))
    assert set(parsed.ip_dict) == {"mm2s_1", "s2mm_1"}
    assert parsed.ip_dict["mm2s_1"]["streams"]["out"]["direction"] == "output"
    assert parsed.ip_dict["s2mm_1"]["streams"]["data"]["direction"] == "input"
    assert "stream_conn0" in parsed.mem_dict


@pytest.mark.parametrize(("cfg", "message"), [
    ("[connectivity]\nstream_connect=mm2s_1.out:square_plus_1.x\n",
     r"AXI4-Stream output square_plus_1\.y is not connected: .*stream_connect="
     r"square_plus_1\.y:<cu>\.<input>"),
    ("[connectivity]\nstream_connect=square_plus_1.y:s2mm_1.data\n",
     r"AXI4-Stream output mm2s_1\.out is not connected"),
    ("", r"AXI4-Stream output mm2s_1\.out is not connected"),
    (CHAIN + "stream_connect=mm2s_1.out:s2mm_1.data\n",
     r"output mm2s_1\.out is in 2 stream_connect lines"),
])
def test_unconnected_or_doubly_connected_streams_refused(descs, cfg, message):
    with pytest.raises(UsageError, match=message):
        link(descs, cfg or "[connectivity]\n")


def test_link_cli_chain(tmp_path: Path):
    cfg = tmp_path / "chain.cfg"
    cfg.write_text(CHAIN)
    out = tmp_path / "chain.xclbin"
    runner = CliRunner()
    args = ["link", "stream_ops/mm2s", "stream_ops/square_plus", "stream_ops/s2mm",
            "--specs", str(SPECS), "-p", "u250", "-o", str(out)]
    done = runner.invoke(main, [*args, "--config", str(cfg)])
    assert done.exit_code == 0, done.output
    assert "square_plus:square_plus_1    free-running (no control port)" in done.output
    assert "stream mm2s_1.out -> square_plus_1.x" in done.output
    inspected = runner.invoke(main, ["inspect", str(out)])
    assert inspected.exit_code == 0, inspected.output
    assert "stream_conn1    MEM_STREAMING_CONNECTION " in inspected.output
    refused = runner.invoke(main, args)
    assert refused.exit_code != 0
    assert "AXI4-Stream output mm2s_1.out is not connected" in refused.output
