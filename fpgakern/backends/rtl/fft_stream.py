"""RTL of the spectral (FFT) kernels at the dataflow rungs 2, 3 and 4: one top module per
plan, rendered from ``templates/top_fft_stream.sv.j2`` around the streaming cores of
``lib/`` (``fk_fft_sdf``, one complex sample per cycle, at rungs 2 and 3; ``fk_fft_lanes``,
eight, at rung 4). Rung 3 is the rung-2 kernel instantiated as N compute units (the host
splits the rows), so it renders the same top.

The kernel computes, per row, exactly :func:`fpgakern.ir.fft.transform`; the template's
header comment describes the adapters around the core (rfft's real input, irfft's
Hermitian extension and real output, the row pitches of rung 4) and why the rows stream
back to back. The interface is :func:`fpgakern.interface.interface`'s: x on its own bundle
``gmem0``, out on ``gmem1``, 64-bit data at rungs 2-3 and 512-bit at rung 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fpgakern.backends.rtl import sources
from fpgakern.backends.rtl.top import control_words, environment, port_column
from fpgakern.backends.templates import file_header
from fpgakern.errors import UsageError
from fpgakern.interface import interface
from fpgakern.ir import fft
from fpgakern.ladder import Plan

RUNGS = (2, 3, 4)


@dataclass(frozen=True)
class StreamArch:
    """The AXI and FIFO numbers of a streaming FFT kernel (from the rung, as the other
    dataflow tops take them)."""

    read_burst: int
    read_outstanding: int
    write_burst: int
    write_outstanding: int
    in_fifo_depth: int  # beats: the read engine's credits
    out_fifo_depth: int  # beats in front of the write engine


def arch_of(plan: Plan) -> StreamArch:
    rung = plan.rung
    return StreamArch(
        read_burst=plan.arch.read_burst, read_outstanding=rung.read_outstanding,
        write_burst=plan.arch.write_burst, write_outstanding=rung.write_outstanding,
        in_fifo_depth=plan.arch.in_fifo_beats,
        out_fifo_depth=plan.arch.out_fifo_beats(0),
    )


def row_words(transform: str, lanes: int) -> tuple[str, str]:
    """SystemVerilog expressions of arg_n (32 bits): the input and the output words of a
    row. 64-bit words (lanes = 1): a complex sample or two floats each; 512-bit words
    (lanes = 8): 8 complex samples or 16 floats, every row padded to whole words."""
    if lanes == 1:
        return {
            "rfft": ("arg_n >> 1", "(arg_n >> 1) + 32'd1"),
            "irfft": ("(arg_n >> 1) + 32'd1", "arg_n >> 1"),
        }.get(transform, ("arg_n", "arg_n"))
    floats = "((arg_n == 32'd8) ? 32'd1 : arg_n >> 4)"  # n floats in words of 16
    bins = "((arg_n >> 4) + 32'd1)"  # n/2 + 1 bins in words of 8 (n/2 is a multiple of 4)
    return {"rfft": (floats, bins), "irfft": (bins, floats)}.get(
        transform, ("(arg_n >> 3)", "(arg_n >> 3)"))


def check(plan: Plan) -> None:
    if plan.kernel.kind != "transform" or plan.rung.index not in RUNGS:
        raise UsageError(f"{plan.kernel.qualname}: the streaming FFT kernel builds "
                         f"transforms at rungs {RUNGS}")
    if plan.arch.lanes not in (1, 8) or plan.arch.port_bits != 64 * plan.arch.lanes:
        raise UsageError(f"{plan.kernel.qualname}: the streaming FFT kernel takes 1 or 8 "
                         "complex samples per 64-bit lane")


def render_fft_stream(plan: Plan) -> dict[str, str]:
    """{file name: text}: the top ``<plan.top>.sv``; it needs :func:`fft_stream_files`."""
    check(plan)
    transform = plan.kernel.transform
    assert transform is not None  # check: a transform kernel
    lanes = plan.arch.lanes
    in_row, out_row = row_words(transform, lanes)
    x, out = plan.kernel.inputs[0], plan.kernel.output
    bins = "(n/2 + 1) complex64 bins"
    in_desc = {"rfft": "n float32", "irfft": bins}.get(transform, "n complex64")
    out_desc = {"rfft": bins, "irfft": "n float32"}.get(transform, "n complex64")
    text = environment().get_template("top_fft_stream.sv.j2").render(
        header=file_header(plan, "Vitis RTL kernel", plan.rung.rtl_summary),
        top=plan.top, transform=transform, inverse=fft.is_inverse(transform),
        ctrl=control_words(interface(plan)), col=port_column(plan.arch.port_bits),
        data_w=plan.arch.port_bits, lanes=lanes, lg=lanes.bit_length() - 1,
        core="fk_fft_sdf" if lanes == 1 else "fk_fft_lanes",
        in_bundle=plan.arch.bundle(x), out_bundle=plan.arch.bundle(out),
        arch=arch_of(plan), in_row=in_row, out_row=out_row,
        keep_last="arg_n >> 1" if lanes == 1 else "arg_n >> 4",
        in_desc=in_desc, out_desc=out_desc,
    )
    return {f"{plan.top}.sv": text}


def fft_stream_files() -> list[Path]:
    """The support and operator files the kernel needs besides its own, in compile order:
    every lib/ module (as for every kernel), then the FFT cores and what they use."""
    lib = sources.library_files()
    return [*lib, *(f for f in sources.fft_files() if f not in lib)]
