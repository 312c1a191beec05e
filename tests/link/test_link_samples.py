"""Real xclbins read back, and fpgakern's xclbin read by PYNQ's parser."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

import pytest
from link_support import DATA, SAMPLES

from fpgakern.link.inspect import dump_section, format_report, inspect_bytes

EXPECTED = {  # from tests/data/xclbin/SOURCES.md (what v++ and PYNQ wrote)
    "kv260-smartcam.xclbin": {
        "sections": [6, 8, 7, 14, 2, 22, 27, 26],
        "cus": {"DPUCZDX8G:DPUCZDX8G_1": "0xa0010000",
                "pp_pipeline_accel:pp_pipeline_accel_1": "0xa0020000"},
        "memories": 4, "errors": 0,
    },
    "dpu_RP_0.xclbin": {
        "sections": [6, 8, 7, 14, 2, 22, 27, 26],
        "cus": {"DPUCZDX8G:DPUCZDX8G_1": "0x80000000",
                "pp_pipeline_accel:pp_pipeline_accel_1": "0x82000000"},
        "memories": 7, "errors": 5,
    },
    "pynq-default.xclbin": {"sections": [2, 6, 26], "cus": {}, "memories": 1, "errors": 0},
}


def test_every_sample_is_covered():
    assert {p.name for p in SAMPLES} == set(EXPECTED)
    assert (DATA / "SOURCES.md").is_file() and (DATA / "LICENSE.PYNQ").is_file()


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_samples_read(path):
    report = inspect_bytes(path.read_bytes())
    want = EXPECTED[path.name]
    assert [s["kind"] for s in report["sections"]] == want["sections"]
    cus = {ip["m_name"]: ip["m_base_address"] for ip in report["ip_layout"]}
    assert cus == want["cus"]
    assert len(report["memories"]) == want["memories"]
    assert len(report["errors"]) == want["errors"]
    assert "xclbin Information" in format_report(report)


def test_dpu_rp0_connectivity_past_ip_layout_is_reported():
    report = inspect_bytes((DATA / "dpu_RP_0.xclbin").read_bytes())
    text = " | ".join(report["errors"])
    assert "IP_LAYOUT index 2 is out of range (IP_LAYOUT has 2 entries)" in text
    for arg in (10, 11, 12):
        assert f"kernel pp_pipeline_accel has no argument id {arg}" in text


def test_kv260_kernel_args_and_banks():
    report = inspect_bytes((DATA / "kv260-smartcam.xclbin").read_bytes())
    pp = next(k for k in report["kernels"] if k["name"] == "pp_pipeline_accel")
    inst = pp["instances"][0]
    assert inst["base_address"] == "0xa0020000" and inst["interrupt_id"] == 0
    args = {a["name"]: a for a in inst["args"]}
    assert args["img_inp_y"]["offset"] == "0x10" and args["img_inp_y"]["memory"] == ["HP3"]
    assert args["in_img_width"]["memory"] == []


def test_fpgakern_xclbin_report(lib_xclbin):
    report = inspect_bytes(lib_xclbin)
    assert report["errors"] == [] and report["warnings"] == []
    add = next(k for k in report["kernels"] if k["name"] == "add_f32")
    assert [i["name"] for i in add["instances"]] == [f"add_f32_{i}" for i in range(1, 5)]
    assert report["header"]["platform_vbnv"].startswith("xilinx_u250")


def test_dump_section_json_and_raw(lib_xclbin):
    raw = dump_section(lib_xclbin, "EMBEDDED_METADATA")
    assert raw.startswith(b"<?xml") and b"<instance name=\"add_f32_4\">" in raw
    assert b'"m_name": "sum_f32:sum_f32_1"' in dump_section(lib_xclbin, "ip_layout:json")


def _load_file(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def pynq_xclbin_parser() -> types.ModuleType:
    """PYNQ's parser module. ``import pynq`` pulls in board and packaging machinery (it
    needs setuptools' pkg_resources, gone from setuptools >= 81), so when that fails the
    two files the parser needs are loaded on their own, under a stand-in package."""
    try:
        from pynq.pl_server import xclbin_parser
        return xclbin_parser
    except Exception:  # noqa: BLE001 - any import-time failure of the full package
        pass
    spec = importlib.util.find_spec("pynq")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("pynq is not installed (pip install pynq)")
    root = Path(spec.submodule_search_locations[0])
    names = ("pynq", "pynq._3rdparty", "pynq._3rdparty.xclbin")
    saved = {n: sys.modules.pop(n) for n in names if n in sys.modules}
    try:
        for name, folder in (("pynq", root), ("pynq._3rdparty", root / "_3rdparty")):
            package = types.ModuleType(name)
            package.__path__ = [str(folder)]
            sys.modules[name] = package
        _load_file("pynq._3rdparty.xclbin", root / "_3rdparty" / "xclbin.py")
        return _load_file("_fpgakern_pynq_xclbin_parser", root / "pl_server" / "xclbin_parser.py")
    finally:
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


def test_pynq_parser_reads_fpgakern_xclbin(lib_xclbin, u250):
    """PYNQ (pip pynq) finds every CU, base address, register offset and memory bank."""
    xclbin_parser = pynq_xclbin_parser()
    parsed = xclbin_parser.XclBin(xclbin_data=lib_xclbin)
    report = inspect_bytes(lib_xclbin)
    expected = {}
    for kernel in report["kernels"]:
        for inst in kernel["instances"]:
            expected[inst["name"]] = (kernel["name"], int(inst["base_address"], 16),
                                      {a["name"]: (int(a["offset"], 16), a["memory"])
                                       for a in inst["args"]})
    assert set(parsed.ip_dict) == set(expected) and len(expected) == 6
    for name, (kernel, base, args) in expected.items():
        ip = parsed.ip_dict[name]
        assert ip["cu_name"] == f"{kernel}:{name}"
        assert ip["phys_addr"] == base
        assert ip["hw_control_protocol"] == "ap_ctrl_chain"
        for arg, (offset, memory) in args.items():
            reg = ip["registers"][arg]
            assert reg["address_offset"] == offset
            assert reg.get("memory") == (memory[-1] if memory else None)
    # the 4 add CUs sit on the 4 DDR banks, one each
    assert [parsed.ip_dict[f"add_f32_{i}"]["registers"]["a"]["memory"]
            for i in range(1, 5)] == [f"DDR[{i}]" for i in range(4)]
    assert list(parsed.mem_dict) == [b.tag for b in u250.banks]
    assert parsed.mem_dict["DDR[1]"]["size"] == 16 << 30
    assert {c["name"]: c["frequency"] for c in parsed.clock_dict.values()} == \
        {"DATA_CLK": 300, "KERNEL_CLK": 500}
