"""Stream kernels' RTL (top_stream.sv.j2) and its hw_emu model (model ABI 3).

The chain of tests/data/stream_project: mm2s (memory -> stream, started), square_plus
(free-running, y = x * x + 1) and s2mm (stream -> memory, started). The RTL lints clean
and has the Vitis port lists; the three hw_emu models, joined beat by beat through their
stream FIFOs as a link's stream_connect joins them, compute x * x + 1 bit for bit at one
element per cycle.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stream_kernels import MIXED_SPECS, STREAM_SPECS, mixed_library

from fpgakern import paths
from fpgakern.backends.rtl.generate import generate
from fpgakern.backends.rtl.lint import lint
from fpgakern.interface import interface
from fpgakern.ladder import Plan, plan
from fpgakern.runtime._abi import EmulationError, ModelCU
from fpgakern.runtime.models import hw_model
from fpgakern.spec.library import Library
from fpgakern.verify.rtlsim.wrapper import kernel_ports

LIBRARY = Library(STREAM_SPECS)
CHAIN = ("mm2s", "square_plus", "s2mm")
AXIS = ("TDATA", "TVALID", "TREADY", "TLAST", "TKEEP", "TSTRB")


def stream_plan(name: str) -> Plan:
    return plan(LIBRARY.get(f"stream_ops/{name}"), 2, "float32")


@pytest.mark.parametrize("name", CHAIN)
def test_stream_kernel_lints_clean(name, tmp_path):
    result = lint(generate(stream_plan(name), tmp_path))
    assert result.ok, result.output


@pytest.mark.parametrize("name", MIXED_SPECS)
def test_mixed_stream_kernel_lints_clean(name, tmp_path):
    p = plan(mixed_library(tmp_path).get(f"mix/{name}"), 2, "float32")
    result = lint(generate(p, tmp_path / "rtl"))
    assert result.ok, result.output


def _ports(name: str, tmp_path: Path) -> dict[str, tuple[str, str]]:
    rtl = generate(stream_plan(name), tmp_path)
    top = next(f for f in rtl.files if f.name == f"{rtl.top}.sv")
    return {p.name: (p.direction, p.width) for p in kernel_ports(top, rtl.top)}


def test_free_running_kernel_has_only_clock_reset_and_streams(tmp_path):
    ports = _ports("square_plus", tmp_path)
    expected = {"ap_clk", "ap_rst_n", *(f"x_{s}" for s in AXIS), *(f"y_{s}" for s in AXIS)}
    assert set(ports) == expected
    assert ports["x_TDATA"] == ("input", "[31:0]") and ports["x_TREADY"][0] == "output"
    assert ports["y_TDATA"] == ("output", "[31:0]") and ports["y_TKEEP"] == ("output", "[3:0]")


@pytest.mark.parametrize(("name", "stream", "direction", "bundle"),
                         [("mm2s", "out", "output", "gmem0"),
                          ("s2mm", "data", "input", "gmem0")])
def test_chained_stream_kernel_keeps_control_and_its_memory_port(name, stream, direction,
                                                                  bundle, tmp_path):
    ports = _ports(name, tmp_path)
    assert "interrupt" in ports and "s_axi_control_awaddr" in ports
    assert f"m_axi_{bundle}_araddr" in ports
    assert {f"{stream}_{s}" for s in AXIS} <= set(ports)
    assert ports[f"{stream}_TDATA"][0] == direction


def test_stream_args_take_no_register(tmp_path):
    """s2mm's register map: mem at 0x10, n at 0x1C, nothing for the stream `data`."""
    rtl = generate(stream_plan("s2mm"), tmp_path)
    assert (rtl.interface.arg("mem").offset, rtl.interface.arg("n").offset) == (0x10, 0x1C)
    top = (tmp_path / "s2mm.sv").read_text()
    # mem's two words and its reserved one, n and its reserved one
    assert "localparam int ARG_WORDS = 5;" in top


# --------------------------------------------------------------------------- hw_emu


@pytest.fixture(scope="module")
def models() -> dict[str, Path]:
    return {name: hw_model(stream_plan(name)).path for name in CHAIN}


def _program(cu: ModelCU, name: str, pointer: str, address: int, n: int) -> None:
    iface = interface(stream_plan(name))
    offset = iface.arg(pointer).offset
    cu.write(offset, address & 0xFFFF_FFFF)
    cu.write(offset + 4, address >> 32)
    cu.write(iface.arg("n").offset, n)


def test_free_running_model_has_no_registers(models):
    cu = ModelCU(models["square_plus"], "square_plus")
    assert cu.free_running
    with pytest.raises(EmulationError):
        cu.read(0x00)
    cu.tick(100)
    assert not cu.interrupt
    with pytest.raises(EmulationError, match="no input stream 'y'"):
        cu.push("y", 0, False)
    with pytest.raises(EmulationError, match="no output stream 'x'"):
        cu.pop("x")


def test_free_running_model_under_backpressure(models):
    """square_plus copies each input beat's TLAST, wherever it is, and stalls (loses
    nothing) while its output FIFO is full: more beats than its FIFOs and the model's
    hold, popped only after the kernel had to stop."""
    cu = ModelCU(models["square_plus"], "square_plus")
    x = np.random.default_rng(3).standard_normal(600).astype(np.float32)
    words = x.view(np.uint32)
    sent = 0
    for _ in range(1000):  # nothing popped: the output FIFO and the kernel's fill up
        while sent < len(x) and cu.push("x", int(words[sent]), sent % 7 == 6):
            sent += 1
        cu.tick(1)
    assert sent < len(x), "the kernel took every beat although nothing was popped"
    out: list[tuple[int, bool]] = []
    for _ in range(3000):
        while sent < len(x) and cu.push("x", int(words[sent]), sent % 7 == 6):
            sent += 1
        while (beat := cu.pop("y")) is not None:
            out.append(beat)
        cu.tick(1)
    expected = (x * x + np.float32(1)).view(np.uint32)
    assert [d for d, _ in out] == [int(w) for w in expected]
    assert [last for _, last in out] == [i % 7 == 6 for i in range(len(x))]


def test_input_fifo_holds_its_depth(models):
    """An input FIFO takes FKEMU_STREAM_FIFO_DEPTH beats and refuses the next while the
    kernel is not clocked (s2mm is not started: it takes no beat)."""
    cu = ModelCU(models["s2mm"], "s2mm")
    assert not cu.free_running
    assert all(cu.push("data", i, False) for i in range(16))
    assert not cu.push("data", 16, False)


def _run_chain(cus: dict[str, ModelCU], x: np.ndarray, base: int
               ) -> tuple[np.ndarray, list[list[bool]], int]:
    """One run of the chain on ``x``: mm2s and s2mm started, every CU ticked one cycle at a
    time and the beats moved between their stream FIFOs after each cycle, until s2mm
    interrupts. Returns s2mm's output, the TLAST of every beat moved on each of the two
    links and the cycles."""
    n = x.size
    y = np.zeros(n, np.float32)
    for cu in cus.values():
        cu.unmap_all()
    cus["mm2s"].map(base, x, writable=False)
    cus["s2mm"].map(base + 0x1000_0000, y, writable=True)
    _program(cus["mm2s"], "mm2s", "mem", base, n)
    _program(cus["s2mm"], "s2mm", "mem", base + 0x1000_0000, n)
    cus["s2mm"].start()
    cus["mm2s"].start()
    links = [(cus["mm2s"], "out", cus["square_plus"], "x"),
             (cus["square_plus"], "y", cus["s2mm"], "data")]
    held: list[tuple[int, bool] | None] = [None, None]  # a beat popped, not yet pushed
    lasts: list[list[bool]] = [[], []]  # TLAST of each beat moved, per link
    cycles = 0
    while not cus["s2mm"].interrupt:
        assert cycles < 4 * n + 1000, "the chain stalled"
        for cu in cus.values():
            cu.tick(1)
        cycles += 1
        for i, (source, out, sink, into) in enumerate(links):
            if held[i] is None:
                held[i] = source.pop(out)
            beat = held[i]
            if beat is not None and sink.push(into, *beat):
                lasts[i].append(beat[1])
                held[i] = None
    cus["s2mm"].wait(100)
    cus["mm2s"].wait(100)
    return y, lasts, cycles


def test_chain_of_hw_emu_models(models):
    """mm2s -> square_plus -> s2mm as a link's stream_connect joins them: x * x + 1 bit
    for bit, TLAST on the last beat only, close to one element per cycle; then a second,
    shorter run on the same CUs (ap_continue, the streams' FIFOs empty again)."""
    cus = {name: ModelCU(models[name], name) for name in CHAIN}
    rng = np.random.default_rng(7)
    for n in (4096, 37):
        x = rng.standard_normal(n).astype(np.float32)
        y, lasts, cycles = _run_chain(cus, x, 0x1_0000_0000)
        expected = x * x + np.float32(1)
        np.testing.assert_array_equal(y.view(np.uint32), expected.view(np.uint32))
        assert lasts[0] == lasts[1] == [False] * (n - 1) + [True]
        print(f"hw_emu chain: n={n} in {cycles} cycles ({n / cycles:.3f} elements/cycle)")
        assert cycles < n + 400  # one element per cycle plus the pipelines' latency


def test_models_without_streams_answer_minus_one():
    """A kernel without streams exports the ABI 3 symbols too: push and pop answer -1,
    and it is not free-running."""
    p = plan(Library(paths.specs_dir()).get("binary_ops/add"), 2, "float32")
    cu = ModelCU(hw_model(p).path, "add")
    assert not cu.free_running
    assert cu.lib.fkemu_cu_stream_push(cu.handle, b"a", 0, 0) == -1
    with pytest.raises(EmulationError):
        cu.pop("out")
