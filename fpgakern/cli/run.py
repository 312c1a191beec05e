"""``fpgakern run``: run a kernel on random data through the runtime and check it."""

from __future__ import annotations

import math
import time
from pathlib import Path

import click
import numpy as np

from fpgakern import paths
from fpgakern.cli._common import (
    RUNG,
    console,
    json_option,
    load_library,
    print_json,
    specs_option,
)
from fpgakern.errors import UsageError, display_path
from fpgakern.ir import fft, shapes
from fpgakern.ir.kernel import SHAPED_KINDS
from fpgakern.ladder import plan
from fpgakern.orchestrate.build import run_build
from fpgakern.orchestrate.executors import make_executor
from fpgakern.orchestrate.manifest import MANIFEST
from fpgakern.report.record import recorder
from fpgakern.runtime import device as runtime
from fpgakern.runtime import transform
from fpgakern.runtime.targets import TARGETS
from fpgakern.util.text import plural
from fpgakern.verify import compare, stimulus

EPILOG = """\b
Examples:
  fpgakern run binary_ops/add --opt 3 --size 1000000 --target hw_emu
  fpgakern run reduce_ops/sum --opt 4 --dtype int32 --target sw_emu
  fpgakern run unary_ops/exp --xclbin lib.xclbin --target hw_emu
  fpgakern run binary_ops/add --scalar alpha=2.5
  fpgakern run nn_ops/softmax --opt 4 --shape 256,1024 --target hw_emu
The variant is built first when the build tree does not have it. Kernels with shapes
(nn_ops) run a tensor of --shape (default: --size elements as rows of 1024); transforms
(spectral_ops) run rows of --shape too (the input's: an irfft row of n/2 + 1 bins), with
--norm as torch.fft's norm.
"""
# A shaped kernel's default main tensor: --size elements as (size / 1024, 1024, 1, ...).
DEFAULT_ROW = 1024


def _parse_shape(text: str | None, size: int, named: int) -> tuple[int, ...]:
    if text is None:
        return (size // DEFAULT_ROW, DEFAULT_ROW, *([1] * max(named - 2, 0)))
    try:
        shape = tuple(int(d) for d in text.replace("x", ",").split(","))
    except ValueError:
        shape = ()
    if not shape or min(shape) < 0:
        raise UsageError(f"--shape {text!r}: write the extents as D0,D1,... (e.g. 256,1024)")
    return shape


def _transform_shape(transform: fft.Transform, text: str | None,
                     size: int) -> tuple[int, ...]:
    """A transform's input shape: --shape, or --size samples as rows of DEFAULT_ROW (an
    irfft's rows of DEFAULT_ROW / 2 + 1 bins)."""
    if text is not None:
        shape = _parse_shape(text, size, 2)
    else:
        shape = (max(size // DEFAULT_ROW, 1), fft.input_length(transform, DEFAULT_ROW))
    last = shape[-1]
    n = fft.default_length(transform, last)
    try:
        fft.check_length(n)
    except ValueError as err:
        raise UsageError(f"--shape {','.join(map(str, shape))}: {err}") from None
    return shape


def _parse_scalars(items: tuple[str, ...]) -> dict[str, float]:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            out[name] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise UsageError(f"--scalar {item!r}: write NAME=NUMBER")
    return out


@click.command("run", epilog=EPILOG)
@click.argument("kernel")
@click.option("--target", "-t", type=click.Choice(TARGETS), default=None,
              help="Where to run (default: $XCL_EMULATION_MODE, else sw_emu).")
@click.option("--opt", type=RUNG, default=None,
              help="Rung (default: the highest the kernel declares).")
@click.option("--dtype", default=None, help="Element type (default: float32 when declared).")
@click.option("--size", "-n", type=click.IntRange(0), default=1 << 20, show_default=True,
              help="Elements per input.")
@click.option("--shape", default=None,
              help="Kernels with shapes: the main tensor's extents, D0,D1,...")
@click.option("--scalar", "scalars", multiple=True, help="NAME=VALUE (e.g. alpha=2).")
@click.option("--norm", type=click.Choice(fft.NORMS), default=None,
              help="Transforms: torch.fft's norm (default backward).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--xclbin", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              default=None, help="Run the kernel of this .xclbin instead of the build tree.")
@click.option("--build-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Build tree (default: build/ of the project).")
@click.option("--read-latency", type=click.IntRange(1), default=64, show_default=True,
              help="hw_emu: cycles from an AXI read request to its first data.")
@specs_option
@json_option
def command(kernel: str, target: str | None, opt: int | None, dtype: str | None, size: int,
            shape: str | None, scalars: tuple[str, ...], norm: str | None, seed: int,
            xclbin: Path | None,
            build_dir: Path | None, read_latency: int, specs: Path | None, as_json: bool) -> None:
    """Run KERNEL on random data on sw_emu, hw_emu or hw, and check it against numpy.

    Prints the wall time and, on hw_emu, the simulated cycles of the call (the slowest
    compute unit's, from ap_start to the interrupt). Exits 1 when results differ.
    """
    library = load_library(specs)
    k = library.get(kernel)
    layout = k.layout if k.kind in SHAPED_KINDS else None
    if shape is not None and layout is None and k.transform is None:
        raise UsageError(f"--shape: {k.qualname} takes flat inputs (give --size)")
    if norm is not None and k.transform is None:
        raise UsageError(f"--norm: {k.qualname} is not a transform")
    main_shape: tuple[int, ...] = ()
    if k.transform is not None:
        main_shape = _transform_shape(k.transform, shape, size)
        size = math.prod(main_shape)
    if layout is not None:
        named = len(layout.main) - (shapes.ANY in layout.main)
        main_shape = _parse_shape(shape, size, named)
        if shapes.expand(layout.main, len(main_shape)) is None:
            raise UsageError(f"--shape {','.join(map(str, main_shape))} does not fit "
                             f"{k.qualname}'s {shapes.show(layout.main)}")
        size = math.prod(main_shape)
    dtype = dtype or ("float32" if "float32" in k.dtypes else k.dtypes[0])
    rung = opt if opt is not None else max(k.rungs)
    p = plan(k, rung, dtype)
    root = build_dir or paths.build_dir(library.root.parent)
    # The runtime reads one spec folder: the one this kernel comes from (the project's or
    # the bundled library, which the default library combines).
    kernel_specs = specs or k.source.parent.parent
    if size == 0 and k.reduction is not None:
        try:  # the op table's reference says whether no elements have a result
            k.reduction.reference(np.empty(0, dtype=p.dtype.numpy))
        except (ValueError, IndexError):
            raise UsageError(f"{k.qualname}: the {k.reduction.name} of no elements has no "
                             "value (torch raises too); give --size 1 or more") from None

    def log(text: str) -> None:
        if not as_json:
            console.print(text, soft_wrap=True)


    started = time.perf_counter()
    if xclbin is None:
        folder = p.variant_dir(root)
        if not (folder / MANIFEST).is_file():
            log(f"building {k.qualname} opt{rung} {dtype} into {display_path(folder)}")
            executor = make_executor("local", 1)
            try:  # the HLS C++ and its C simulation: what sw_emu runs, proven first
                run_build([p], root, executor, record=recorder("fpgakern run"),
                          until="csim")
            finally:
                executor.close()
        dev = runtime.open(folder, target, specs=kernel_specs, read_latency=read_latency)
    else:
        dev = runtime.open(xclbin, target, specs=kernel_specs, read_latency=read_latency)
    handle = dev.kernel(p.top)
    variant = handle.variant(dtype)
    log(f"{k.qualname} opt{variant.plan.rung.index} {dtype} on {dev.target}: "
        f"{plural(size, 'element')}, {plural(variant.compute_units, 'CU')}")
    handle.target(dtype)  # builds the emulation model if needed
    prepare_seconds = time.perf_counter() - started

    rng = np.random.default_rng(seed)
    case_scalars = {s.name: s.default for s in k.scalars} | _parse_scalars(scalars)
    if k.transform is not None:  # rows of the input, n from their length
        x = stimulus.random_values(p.dtype, size, rng).reshape(main_shape)
        actual = handle(x, norm=norm)
        n = transform.length(k, main_shape[-1], None)
        case = stimulus.Case("run", {k.inputs[0]: x.reshape(-1, main_shape[-1])},
                             {"scale": float(fft.norm_scale(k.transform, n, norm))})
        verdict = compare.judge(k, dtype, case, actual.reshape(-1, actual.shape[-1]))
    elif layout is not None:  # a shaped kernel: each operand in its shape beside the main one
        tensors = {name: stimulus.random_values(p.dtype, math.prod(dims), rng).reshape(dims)
                   for name in k.inputs
                   for dims in [shapes.operand_shape(name, layout, main_shape)]}
        actual = handle(*(tensors[n] for n in k.inputs), **case_scalars)
        verdict = compare.judge_shaped(k, dtype, tensors, case_scalars, actual)
    else:
        tensors = {name: stimulus.random_values(p.dtype, size, rng) for name in k.inputs}
        case = stimulus.Case("run", tensors, case_scalars)
        actual = np.atleast_1d(handle(*(tensors[n] for n in k.inputs), **case_scalars))
        verdict = compare.judge(k, dtype, case, actual)
    info = handle.last_call
    assert info is not None

    cycles = info.cycles
    result = {
        "kernel": k.qualname, "top": p.top, "rung": variant.plan.rung.index, "dtype": dtype,
        "target": dev.target, "size": size, "compute_units": info.compute_units,
        "passed": verdict.passed, "detail": verdict.summary(),
        "seconds": round(info.seconds, 4), "prepare_seconds": round(prepare_seconds, 3),
        "cycles": cycles, "cu_cycles": info.cu_cycles,
        "elements_per_cycle": round(size / cycles, 3) if cycles else None,
    }
    if as_json:
        print_json(result)
    else:
        mark = "[green]matches numpy[/]" if verdict.passed else "[red]DIFFERS from numpy[/]"
        console.print(f"  result  {mark}: {verdict.summary()}", soft_wrap=True)
        console.print(f"  time    {info.seconds:.3f} s for the call "
                      f"(+{prepare_seconds:.1f} s to open and build models)", soft_wrap=True)
        if cycles is not None:
            per_cu = " ".join(str(c) for c in info.cu_cycles)
            console.print(f"  cycles  {cycles} simulated (slowest CU; per CU: {per_cu}), "
                          f"{size / cycles:.3f} elements/cycle", soft_wrap=True)
    if not verdict.passed:
        raise SystemExit(1)
