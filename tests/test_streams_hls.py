"""Kernels with AXI4-Stream ports (a spec's ``streams:`` and ``control: free_running``):
their HLS C++, its C simulation and the sw_emu model of ABI 3.

The chain of tests/data/stream_project: mm2s (memory -> stream, started), square_plus
(stream -> stream, free-running, x * x + 1) and s2mm (stream -> memory, started).
"""

from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

import numpy as np
import pytest

from fpgakern import paths
from fpgakern.backends.hls import generate
from fpgakern.backends.hls.cexpr import CSpelling
from fpgakern.interface import REG_CTRL, interface
from fpgakern.ladder import plan
from fpgakern.orchestrate.steps.host import Host
from fpgakern.runtime import models
from fpgakern.runtime._abi import ModelCU, load_library
from fpgakern.spec.library import Library
from fpgakern.tools import gxx
from fpgakern.verify import csim, stimulus

DATA = Path(__file__).parent / "data"
SPECS = DATA / "stream_project" / "kernel_specs"
VITIS_API = DATA / "vitis_api"
KERNELS = ("mm2s", "square_plus", "s2mm")


@pytest.fixture(scope="module")
def plans():
    library = Library(SPECS)
    return {k: plan(library.get(f"stream_ops/{k}"), 2, "float32") for k in KERNELS}


# ------------------------------------------------------------------------------- HLS C++


def test_stream_kernels_are_written_the_way_vitis_hls_takes_them(plans, tmp_path):
    mm2s = generate(plans["mm2s"], tmp_path / "mm2s").kernel.read_text()
    assert '#include "ap_axi_sdata.h"' in mm2s and '#include "hls_stream.h"' in mm2s
    assert ('extern "C" void mm2s(\n    const float* mem,\n'
            '    hls::stream<ap_axiu<32, 0, 0, 0> >& out,\n    int n)') in mm2s
    assert "#pragma HLS INTERFACE m_axi port=mem offset=slave bundle=gmem0" in mm2s
    assert "#pragma HLS INTERFACE mode=axis port=out" in mm2s
    assert "#pragma HLS INTERFACE s_axilite port=n" in mm2s
    assert "#pragma HLS INTERFACE s_axilite port=return" in mm2s
    assert "#pragma HLS PIPELINE II=1" in mm2s
    assert "beat.keep = -1;" in mm2s and "beat.strb = -1;" in mm2s
    assert "beat.last = (i == n - 1);" in mm2s

    free = generate(plans["square_plus"], tmp_path / "sp").kernel.read_text()
    assert ('extern "C" void square_plus(\n    hls::stream<ap_axiu<32, 0, 0, 0> >& x,\n'
            '    hls::stream<ap_axiu<32, 0, 0, 0> >& y)') in free
    assert "#pragma HLS INTERFACE mode=ap_ctrl_none port=return" in free
    assert "s_axilite" not in free and "for (" not in free  # one element a call
    assert "result.last = x_b.last;" in free

    s2mm = generate(plans["s2mm"], tmp_path / "s2mm").kernel.read_text()
    assert "#pragma HLS INTERFACE mode=axis port=data" in s2mm
    assert "mem[i] = value;" in s2mm


def test_the_argument_order_is_the_interface(plans):
    for p in plans.values():
        names = [a.name for a in interface(p).args]
        assert names == [*p.kernel.inputs, *p.kernel.outputs, *p.kernel.size_args]


def test_stream_kernels_use_only_the_vitis_api(plans, tmp_path):
    files = []
    for name, p in plans.items():
        sources = generate(p, tmp_path / name)
        files += [sources.kernel, sources.testbench]
    flags = [f for f in csim.CXXFLAGS if f != csim.OPTIMIZATION]
    done = subprocess.run([gxx.compiler(), *flags, "-fsyntax-only", "-I", str(VITIS_API),
                           *map(str, files)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[:3000]


# ------------------------------------------------------------------------------- C simulation


@pytest.mark.parametrize("name", KERNELS)
def test_c_simulation_passes(plans, tmp_path, name):
    p = plans[name]
    cases = csim.cases_for(p, 300)
    assert any(c.label == "special_values" for c in cases)
    result = csim.run(p, generate(p, tmp_path / "hls"), cases, tmp_path / "csim")
    assert result.passed, result.summary()


def _altered(p, sources, body: str) -> None:
    """Rename the generated top and put a wrapper in its place that calls it and then runs
    ``body`` (C++ with the arguments in scope): a kernel gone wrong, made from the real one."""
    text = sources.kernel.read_text()
    head = f'extern "C" void {p.top}('
    assert text.count(head) == 1
    text = text.replace(head, f"static void {p.top}_unaltered(")
    iface = interface(p)
    args = ", ".join(a.name for a in iface.args)
    text += f"\n{CSpelling(p, iface).signature(' {')}\n    {p.top}_unaltered({args});\n{body}\n}}\n"
    sources.kernel.write_text(text)


def _run_case(p, sources, tmp_path, size=40):
    case = next(c for c in stimulus.cases(p.kernel, p.dtype, size=size) if c.label == "random")
    case_file = tmp_path / "case.bin"
    csim.write_case(case, p, case_file)
    binary = csim.compile_testbench(sources)
    return subprocess.run([binary, case_file, tmp_path / "out.bin"], capture_output=True,
                          text=True, check=False)


# Each alteration of an output stream: (what it does, C++ run after the real kernel).
_MM2S_ALTERATIONS = {
    # TLAST moved off the last beat: every beat is read back and written again.
    "last_cleared": """
    const int count = static_cast<int>(out.size());
    for (int i = 0; i < count; ++i) {
        ap_axiu<32, 0, 0, 0> beat = out.read();
        beat.last = 0;
        out.write(beat);
    }""",
    "last_on_first": """
    const int count = static_cast<int>(out.size());
    for (int i = 0; i < count; ++i) {
        ap_axiu<32, 0, 0, 0> beat = out.read();
        beat.last = beat.last.to_uint() != 0 || i == 0;
        out.write(beat);
    }""",
    "one_beat_more": """
    ap_axiu<32, 0, 0, 0> extra;
    extra.data = 0;
    extra.keep = -1;
    extra.strb = -1;
    extra.last = 1;
    out.write(extra);""",
    "keep_partial": """
    const int count = static_cast<int>(out.size());
    for (int i = 0; i < count; ++i) {
        ap_axiu<32, 0, 0, 0> beat = out.read();
        if (i == 3) beat.keep = 7;
        out.write(beat);
    }""",
}


def test_the_testbench_passes_the_real_kernel(plans, tmp_path):
    p = plans["mm2s"]
    done = _run_case(p, generate(p, tmp_path / "good"), tmp_path)
    assert done.returncode == csim.TB_MATCH and "PASS" in done.stdout, done.stderr


@pytest.mark.parametrize("alteration", sorted(_MM2S_ALTERATIONS))
def test_the_testbench_catches_a_broken_output_stream(plans, tmp_path, alteration):
    p = plans["mm2s"]
    sources = generate(p, tmp_path / "bad")
    _altered(p, sources, _MM2S_ALTERATIONS[alteration])
    done = _run_case(p, sources, tmp_path)
    assert done.returncode == csim.TB_STREAM_PROTOCOL, (done.returncode, done.stderr)
    assert "AXI4-Stream protocol" in done.stderr
    reason = csim.testbench_failure(done.returncode, done.stderr)
    assert reason.startswith("AXI4-Stream protocol broken: ")


def test_the_testbench_catches_a_flipped_data_bit(plans, tmp_path):
    p = plans["mm2s"]
    sources = generate(p, tmp_path / "bad")
    _altered(p, sources, """
    const int count = static_cast<int>(out.size());
    for (int i = 0; i < count; ++i) {
        ap_axiu<32, 0, 0, 0> beat = out.read();
        if (i == 7) beat.data = beat.data.to_uint() ^ 1u;
        out.write(beat);
    }""")
    done = _run_case(p, sources, tmp_path)
    assert done.returncode == csim.TB_MISMATCH, (done.returncode, done.stderr)
    assert "1 of 40 values differ" in done.stderr


def test_the_testbench_catches_an_input_beat_left_unread(plans, tmp_path):
    p = plans["s2mm"]
    sources = generate(p, tmp_path / "bad")
    # The kernel reads one beat fewer: run the real one on n - 1.
    text = sources.kernel.read_text().replace("i < n;", "i < n - 1;")
    sources.kernel.write_text(text)
    done = _run_case(p, sources, tmp_path)
    assert done.returncode == csim.TB_STREAM_PROTOCOL, (done.returncode, done.stderr)
    assert "left 1 of data's 40 beats unread" in done.stderr


def test_the_testbench_catches_a_free_running_kernel_that_drops_tlast(plans, tmp_path):
    p = plans["square_plus"]
    sources = generate(p, tmp_path / "bad")
    _altered(p, sources, """
    ap_axiu<32, 0, 0, 0> beat = y.read();
    beat.last = 0;
    y.write(beat);""")
    done = _run_case(p, sources, tmp_path)
    assert done.returncode == csim.TB_STREAM_PROTOCOL, (done.returncode, done.stderr)
    assert "y beat 39: TLAST 0 (expected 1)" in done.stderr


def test_a_free_running_kernel_reading_two_beats_a_call_fails(plans, tmp_path):
    """One beat more than there is: the stand-in's read of an empty stream (status 3)."""
    p = plans["square_plus"]
    sources = generate(p, tmp_path / "bad")
    _altered(p, sources, "    square_plus_unaltered(x, y);")
    done = _run_case(p, sources, tmp_path)
    assert done.returncode == csim.TB_STREAM_MISUSE
    assert "read while empty" in done.stderr


# ------------------------------------------------------------------------------- steps


def test_the_host_step_skips_stream_kernels(plans):
    for p in plans.values():
        reason = Host().applies(p)
        assert reason is not None and "linked chain" in reason
    library = Library(paths.specs_dir())
    assert Host().applies(plan(library.get("binary_ops/add"), 2, "float32")) is None


# ------------------------------------------------------------------------------- sw_emu


class _FreeRunning:
    """A free-running CU of a model library, driven through the raw ABI (it has no control
    registers for ModelCU to set up)."""

    def __init__(self, path: Path) -> None:
        self.lib = load_library(path)
        self.handle = self.lib.fkemu_cu_new()

    def close(self) -> None:
        self.lib.fkemu_cu_free(self.handle)


def _push(lib, handle, port: str, data: int, last: bool) -> int:
    return lib.fkemu_cu_stream_push(handle, port.encode(), data, int(last))


def _pop_all(lib, handle, port: str) -> list[tuple[int, int]]:
    beats = []
    data, last = ctypes.c_uint64(), ctypes.c_int()
    while (status := lib.fkemu_cu_stream_pop(handle, port.encode(), ctypes.byref(data),
                                              ctypes.byref(last))) == 0:
        beats.append((data.value, last.value))
    assert status == 1  # empty, not unknown
    return beats


def _set_args(cu: ModelCU, p, addresses: dict[str, int], n: int) -> None:
    iface = interface(p)
    for arg in iface.pointers:
        cu.write(arg.offset, addresses[arg.name] & 0xFFFF_FFFF)
        cu.write(arg.offset + 4, addresses[arg.name] >> 32)
    cu.write(iface.arg("n").offset, n)


@pytest.fixture(scope="module")
def sw_libraries(plans):
    return {k: models.sw_model(p).path for k, p in plans.items()}


def test_sw_emu_chain_mm2s_square_plus_s2mm(plans, sw_libraries):
    n = 1000
    rng = np.random.default_rng(7)
    x = rng.standard_normal(n).astype(np.float32)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40]
    result = np.zeros(n, dtype=np.float32)

    mm2s = ModelCU(sw_libraries["mm2s"], "mm2s")
    square_plus = _FreeRunning(sw_libraries["square_plus"])
    s2mm = ModelCU(sw_libraries["s2mm"], "s2mm")
    try:
        assert mm2s.lib.fkemu_model_free_running() == 0
        assert square_plus.lib.fkemu_model_free_running() == 1
        mm2s.map(0x1000, x, writable=False)
        _set_args(mm2s, plans["mm2s"], {"mem": 0x1000}, n)
        mm2s.start()
        mm2s.wait(1)  # no input streams: it runs at ap_start
        beats = _pop_all(mm2s.lib, mm2s.handle, "out")
        assert len(beats) == n
        assert [last for _, last in beats] == [0] * (n - 1) + [1]
        assert np.array_equal(np.array([d for d, _ in beats], dtype=np.uint32),
                              x.view(np.uint32))

        # s2mm started first: it waits for its n beats.
        s2mm.map(0x8000, result, writable=True)
        _set_args(s2mm, plans["s2mm"], {"mem": 0x8000}, n)
        s2mm.start()
        assert not s2mm.lib.fkemu_cu_interrupt(s2mm.handle)

        lib, handle = square_plus.lib, square_plus.handle
        value = ctypes.c_uint32()
        assert lib.fkemu_cu_read(handle, REG_CTRL, ctypes.byref(value)) == -1
        assert lib.fkemu_cu_write(handle, REG_CTRL, 1) == -1
        assert _push(lib, handle, "y", 0, False) == -1  # an output, not an input
        out = ctypes.c_uint64()
        last = ctypes.c_int()
        assert lib.fkemu_cu_stream_pop(handle, b"x", ctypes.byref(out), ctypes.byref(last)) == -1
        for data, last_flag in beats[:10]:
            assert _push(lib, handle, "x", data, bool(last_flag)) == 0
        lib.fkemu_cu_tick(handle, 1)  # once per complete set of input beats
        first = _pop_all(lib, handle, "y")
        assert len(first) == 10
        for data, last_flag in beats[10:]:
            assert _push(lib, handle, "x", data, bool(last_flag)) == 0
        lib.fkemu_cu_tick(handle, 1)
        squared = first + _pop_all(lib, handle, "y")
        assert len(squared) == n
        assert [last for _, last in squared] == [0] * (n - 1) + [1]
        assert lib.fkemu_cu_error(handle) is None
        assert lib.fkemu_cu_interrupt(handle) == 0

        for data, last_flag in squared[:-1]:
            assert _push(s2mm.lib, s2mm.handle, "data", data, bool(last_flag)) == 0
        s2mm.lib.fkemu_cu_tick(s2mm.handle, 1)
        assert not s2mm.lib.fkemu_cu_interrupt(s2mm.handle)  # one beat short
        data, last_flag = squared[-1]
        assert _push(s2mm.lib, s2mm.handle, "data", data, bool(last_flag)) == 0
        s2mm.lib.fkemu_cu_tick(s2mm.handle, 1)
        s2mm.wait(1)
    finally:
        square_plus.close()
    with np.errstate(over="ignore", invalid="ignore"):
        expected = x * x + np.float32(1)
    assert np.array_equal(result.view(np.uint32), expected.view(np.uint32))


def test_sw_emu_models_without_streams_answer_the_stream_calls():
    p = plan(Library(paths.specs_dir()).get("binary_ops/add"), 2, "float32")
    lib = load_library(models.sw_model(p).path)
    handle = lib.fkemu_cu_new()
    try:
        assert lib.fkemu_model_free_running() == 0
        assert _push(lib, handle, "a", 1, True) == -1
        data, last = ctypes.c_uint64(), ctypes.c_int()
        assert lib.fkemu_cu_stream_pop(handle, b"out", ctypes.byref(data),
                                       ctypes.byref(last)) == -1
    finally:
        lib.fkemu_cu_free(handle)


def test_c_simulation_reports_a_broken_stream(plans, tmp_path):
    """Through csim.run, as the build's csim step runs it: failed, with the reason."""
    p = plans["mm2s"]
    sources = generate(p, tmp_path / "bad")
    _altered(p, sources, _MM2S_ALTERATIONS["last_cleared"])
    result = csim.run(p, sources, csim.cases_for(p, 300), tmp_path / "csim")
    assert not result.passed
    assert result.summary().startswith("AXI4-Stream protocol broken: ")
    assert "TLAST 0 (expected 1)" in result.summary()


def test_sw_emu_free_running_kernel_waits_for_a_beat_on_every_input(tmp_path):
    """Two input streams: a call only once both hold a beat (int32, x + y)."""
    folder = tmp_path / "specs" / "pair"
    folder.mkdir(parents=True)
    (folder / "_category.yaml").write_text("doc: scratch\ndefaults:\n  dtypes: [int32]\n")
    (folder / "addz.yaml").write_text(
        "kernel: addz\ndoc: x + y, free-running\ninputs: [x, y]\noutputs: [z]\n"
        "streams: [x, y, z]\ncontrol: free_running\nexpression: x + y\n")
    p = plan(Library(tmp_path / "specs").get("pair/addz"), 2, "int32")
    cu = _FreeRunning(models.sw_model(p).path)
    lib, handle = cu.lib, cu.handle
    try:
        assert lib.fkemu_model_free_running() == 1
        for value in (5, 0x7FFFFFFF, 7):
            assert _push(lib, handle, "x", value, value == 7) == 0
        lib.fkemu_cu_tick(handle, 10)
        assert _pop_all(lib, handle, "z") == []  # y has no beat yet
        assert _push(lib, handle, "y", 1, False) == 0
        assert _push(lib, handle, "y", 1, False) == 0
        lib.fkemu_cu_tick(handle, 10)
        assert _pop_all(lib, handle, "z") == [(6, 0), (0x80000000, 0)]  # int32 wraps
        assert _push(lib, handle, "y", 0xFFFFFFFF, True) == 0  # -1
        lib.fkemu_cu_tick(handle, 10)
        assert _pop_all(lib, handle, "z") == [(6, 1)]  # TLAST from x, the first input
        assert lib.fkemu_cu_error(handle) is None
    finally:
        cu.close()
