"""The Python runtime's API: a device holding kernels, and kernels called on numpy arrays
or on DeviceArrays (tensors kept in device memory, runtime/resident.py)."""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, overload

import numpy as np

from fpgakern import paths
from fpgakern.errors import FpgakernError, UsageError, display_path
from fpgakern.ir import fft, shapes
from fpgakern.ir.kernel import SHAPED_KINDS, Kernel
from fpgakern.ladder import Plan
from fpgakern.runtime import host, matrix, memory, program, shaped, transform
from fpgakern.runtime.program import Program, ProgramVariant
from fpgakern.runtime.resident import CallInfo, DeviceArray, Transfers
from fpgakern.runtime.targets import TARGETS, Target, open_target
from fpgakern.spec.library import Library

WORD_BYTES = host.WORD_BYTES_MIN  # a 512-bit memory word


class KernelUnavailable(FpgakernError):
    """The device cannot run this kernel (not built, failed to build, not in the xclbin).
    Callers that have a CPU twin (the torch ops) fall back on it."""


def default_target() -> str:
    """As Vitis: XCL_EMULATION_MODE picks the emulation; unset, fpgakern uses sw_emu
    (this machine has no card; ask for 'hw' explicitly)."""
    return os.environ.get("XCL_EMULATION_MODE") or "sw_emu"


@dataclass
class KernelHandle:
    """A library kernel on a device; calls pick the variant by the inputs' dtype."""

    device: Device
    kernel: Kernel
    variants: dict[str, ProgramVariant]  # by dtype name
    last_call: CallInfo | None = None
    _targets: dict[str, Target] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.kernel.qualname

    def variant(self, dtype: str) -> ProgramVariant:
        found = self.variants.get(dtype)
        if found is None:
            have = ", ".join(sorted(self.variants)) or "none"
            raise KernelUnavailable(f"{self.name} has no {dtype} variant on this device "
                                    f"(it has: {have})")
        if found.problem:
            raise KernelUnavailable(f"{found.top} cannot run: {found.problem}")
        return found

    def target(self, dtype: str) -> Target:
        """The opened target for one dtype (models are built here, on first use)."""
        if dtype not in self._targets:
            variant = self.variant(dtype)
            self._targets[dtype] = open_target(variant, self.device.target,
                                               self.device.xclbin, self.device.read_latency,
                                               self.device.bank_map(variant))
        return self._targets[dtype]

    # Typing: resident=True may give a DeviceArray; any other call gives numpy. The
    # second overload has no ``resident``: callers pass scalars as **dict, whose values
    # mypy would otherwise try against a bool (so a bool variable types as numpy).
    @overload
    def __call__(self, *arrays: np.ndarray | DeviceArray,  # type: ignore[overload-overlap]
                 resident: Literal[True], **scalars: object) -> np.ndarray | DeviceArray: ...

    @overload
    def __call__(self, *arrays: np.ndarray | DeviceArray, **scalars: object) -> np.ndarray: ...

    def __call__(self, *arrays: np.ndarray | DeviceArray, resident: object = False,
                 **scalars: object) -> np.ndarray | DeviceArray:
        """Run the kernel on ``arrays`` (numpy arrays, copied in, or DeviceArrays of this
        device, read in place); ``scalars`` by name. A transform kernel takes ``n`` and
        ``norm`` instead, as torch.fft does (runtime/transform.py).

        ``resident``: return the result as a DeviceArray left in device memory, not copied
        back (all kinds but full reductions, whose CUs' partials are merged on the host,
        and transforms): the next call can take it as it is."""
        where = self.name
        if self.kernel.contraction is not None:  # matrices, not elements (runtime/matrix.py)
            return matrix.call(self, arrays, dict(scalars), resident)  # type: ignore[arg-type]
        if not isinstance(resident, bool | np.bool_):
            raise UsageError(f"{where}: resident must be True or False, got {resident!r}")
        if self.kernel.kind == "transform":
            if resident:
                raise UsageError(f"{where}: a transform's result cannot stay on the device "
                                 "(resident=True is not supported for transforms)")
            return self._transform(self._on_host(arrays), **scalars)  # type: ignore[arg-type]
        shaped_kind = self.kernel.kind in SHAPED_KINDS
        placed = self._place(arrays)
        main_shape: tuple[int, ...] = ()
        if shaped_kind:
            checked, main_shape = shaped.check_inputs(self.kernel, placed, where)
        else:
            checked = host.check_inputs(self.kernel.inputs, placed, where)
        dtype = checked[0].dtype.name
        host.supported_dtype(self.kernel, dtype, where)
        variant = self.variant(dtype)
        values = host.scalar_values(variant.plan, scalars, where)
        target = self.target(dtype)
        started = time.perf_counter()
        if shaped_kind:
            prepared = shaped.prepare(variant.plan, target.compute_units, checked,
                                      main_shape, values)
        else:
            prepared = host.prepare(variant.plan, target.compute_units, checked, values)
        for nbytes in prepared.uploads:
            self.device.transfers.sent(nbytes)
        cycles = target.run(prepared)
        result: np.ndarray | DeviceArray
        if resident and self.kernel.kind != "reduction":
            result = self._kept(prepared, arrays[0])
        else:
            result = self._read(prepared, arrays[0])
        self.last_call = CallInfo(variant.top, target.name, prepared.n, len(prepared.shares),
                                  cycles, time.perf_counter() - started)
        return result

    def _own(self, arrays: tuple[object, ...]) -> None:
        """A DeviceArray of another device is refused: its memory is not this device's."""
        for name, a in zip(self.kernel.inputs, arrays, strict=False):
            if isinstance(a, DeviceArray) and a.device is not self.device:
                raise UsageError(f"{self.name}: {name} is a DeviceArray of another device "
                                 f"({a.device!r}); copy it with .to_numpy()")

    def _on_host(self, arrays: tuple[object, ...]) -> tuple[object, ...]:
        """DeviceArrays read back to the host (counted), for a call that copies its inputs."""
        self._own(arrays)
        return tuple(a.to_numpy() if isinstance(a, DeviceArray) else a for a in arrays)

    def _row_pitch(self, first: object) -> int | None:
        """The pitch a row kind reads its rows at, for a main tensor ``first``; None when
        ``first``'s dtype has no variant (the checks then say what is wrong)."""
        if self.kernel.kind not in ("row_map", "row_reduction"):
            return None
        dtype = getattr(first, "dtype", None)
        shape = getattr(first, "shape", ())
        name = dtype.name if isinstance(dtype, np.dtype) else None
        if name not in self.kernel.dtypes or name not in self.variants or not shape:
            return None
        return shaped.pitch(self.variants[name].plan, int(shape[-1]))

    def _place(self, arrays: tuple[object, ...]) -> tuple[object, ...]:
        """Each DeviceArray as a ``host.Placed`` buffer when its layout is the one the
        kernel reads (contiguous; a row kind's full-shaped operands: rows at the kernel's
        pitch), else read back and copied in again (through the host: counted both ways;
        no device-side copy kernel exists). numpy arrays pass as they are."""
        if not any(isinstance(a, DeviceArray) for a in arrays):
            return arrays
        self._own(arrays)
        lay = self.kernel.layout
        tables = lay.channel_inputs if lay is not None else ()
        row_pitch = self._row_pitch(arrays[0])
        placed: list[object] = []
        for name, a in zip(self.kernel.inputs, arrays, strict=False):
            if not isinstance(a, DeviceArray):
                placed.append(a)
                continue
            if row_pitch is not None and name not in tables:
                fits = a.ndim > 0 and (a.rows <= 1 or a.pitch == row_pitch)
            else:
                fits = a.contiguous
            # A flat kernel takes any shape: its element count is n.
            shape = a.shape if lay is not None else (a.size,)
            if fits:
                placed.append(host.Placed(a.buffer, shape))
            else:
                placed.append(a.to_numpy().reshape(shape))
        return (*placed, *arrays[len(placed):])

    def _out_shape(self, prepared: host.Prepared, first: object) -> tuple[int, ...]:
        """The result's shape: a shaped kernel's from its layout; a flat kernel's is its
        first input's (a DeviceArray may have any shape)."""
        lay = self.kernel.layout
        if lay is not None:
            assert prepared.main_shape is not None
            return shapes.operand_shape(self.kernel.output, lay, prepared.main_shape)
        return tuple(first.shape) if isinstance(first, DeviceArray) else (prepared.n,)

    def _kept(self, prepared: host.Prepared, first: object) -> DeviceArray:
        """The result left in device memory: the output buffer itself, not copied."""
        shape = self._out_shape(prepared, first)
        pitch = None
        if self.kernel.kind == "row_map" and shape:
            pitch = shaped.pitch(prepared.plan, shape[-1])
        return DeviceArray(self.device, prepared.output, shape, pitch)

    def _read(self, prepared: host.Prepared, first: object) -> np.ndarray:
        """The result copied to the host, counted: one transfer of the bytes read (a
        reduction's per-CU partials; a row map's rows with their padding)."""
        kind = self.kernel.kind
        itemsize = prepared.output.dtype.itemsize
        if kind == "reduction":
            result = host.finish(prepared)
            nbytes = len(prepared.shares) * itemsize
        elif kind in SHAPED_KINDS:
            result = shaped.finish(prepared)
            nbytes = result.nbytes
            if kind == "row_map" and result.ndim:
                rows = math.prod(result.shape[:-1])
                nbytes = rows * shaped.pitch(prepared.plan, result.shape[-1]) * itemsize
        else:
            result = host.finish(prepared).reshape(self._out_shape(prepared, first))
            nbytes = result.nbytes
        self.device.transfers.received(nbytes)
        return result

    def _transform(self, arrays: tuple[np.ndarray, ...], n: int | None = None,
                   norm: str | None = None, **unknown: object) -> np.ndarray:
        where = self.name
        assert self.kernel.transform is not None
        if unknown:
            raise UsageError(f"{where}: unknown argument(s) {', '.join(sorted(unknown))} "
                             "(a transform takes n= and norm=)")
        a = transform.check_input(self.kernel, arrays, where)
        dtype = a.dtype.name
        if dtype not in self.kernel.dtypes:
            raise UsageError(f"{where}: dtype {dtype} is not supported (the kernel takes "
                             f"{', '.join(self.kernel.dtypes)}); convert with .astype()")
        length = transform.length(self.kernel, a.shape[-1], n)
        try:
            scale = fft.norm_scale(self.kernel.transform, length, norm)
        except ValueError as err:
            raise UsageError(f"{where}: {err}") from None
        variant = self.variant(dtype)
        values = {"scale": host.scalar_bits(float(scale), variant.plan, "scale", where)}
        target = self.target(dtype)
        started = time.perf_counter()
        prepared = transform.prepare(variant.plan, target.compute_units,
                                     transform.fit(self.kernel, a, length), length, values)
        for nbytes in prepared.uploads:
            self.device.transfers.sent(nbytes)
        cycles = target.run(prepared)
        result = transform.finish(prepared)
        # The rows read back with their padding: the whole output buffer (none: no row).
        self.device.transfers.received(prepared.output.nbytes if prepared.shares else 0)
        self.last_call = CallInfo(variant.top, target.name, prepared.n, len(prepared.shares),
                                  cycles, time.perf_counter() - started)
        return result


class Device:
    """Kernels of one build tree, xclbin or plan list, run on one target."""

    def __init__(self, prog: Program, library: Library, target: str | None = None,
                 read_latency: int = 64, platform: str | None = None,
                 bank_per_port: bool = False) -> None:
        self.program = prog
        self.library = library
        self.target = target or default_target()
        if self.target not in TARGETS:
            raise UsageError(f"unknown target {self.target!r} (targets: {', '.join(TARGETS)})")
        self.read_latency = read_latency
        self.xclbin = prog.xclbin
        if platform is not None and self.xclbin is not None:
            raise UsageError("an .xclbin names its platform and places its ports itself: "
                             "platform= applies to build trees and plans")
        self.platform = platform
        self.bank_per_port = bank_per_port
        self._handles: dict[str, KernelHandle] = {}
        # Host <-> device copies since the device opened: every numpy input copied in,
        # every result read back, uploads and DeviceArray reads (resident.py).
        self.transfers = Transfers()

    def __repr__(self) -> str:
        return f"<fpgakern device {self.program.source} on {self.target}: " \
               f"{', '.join(sorted(self.program.variants)) or 'no kernels'}>"

    def bank_map(self, variant: ProgramVariant) -> memory.BankMap | None:
        """hw_emu's memory banks for ``variant``: from the .xclbin (its platform's
        bandwidths, its CONNECTIVITY), else from ``platform`` and the link config's
        placement; None (no bandwidth limit) on other targets, without a platform, or
        on a platform without bandwidth figures."""
        if self.target != "hw_emu":
            return None
        if self.xclbin is not None:
            return memory.from_xclbin(self.xclbin, variant.top, variant.cu_names, variant.plan)
        if self.platform is not None:
            return memory.from_plan(variant.plan, self.platform, self.bank_per_port)
        return None

    @property
    def variants(self) -> dict[str, ProgramVariant]:
        return self.program.variants

    def upload(self, a: np.ndarray, pitch: int | None = None) -> DeviceArray:
        """``a`` copied into device memory (one counted host -> device transfer of the
        buffer's bytes), to pass to this device's kernels. ``pitch``: elements from one
        row's (last dimension's) start to the next; default contiguous. A row kind reads
        rows at ``shaped.pitch`` (at rung 4, the row rounded up to whole 512-bit words):
        an array uploaded at another pitch goes through the host again when it is called."""
        if not isinstance(a, np.ndarray):
            raise UsageError(f"upload takes a numpy array, got {type(a).__name__}")
        if a.dtype.kind not in "biufc" or WORD_BYTES % a.dtype.itemsize:
            raise UsageError(f"upload: dtype {a.dtype} is not one kernels read")
        cols = int(a.shape[-1]) if a.ndim else 1
        if pitch is None:
            pitch = cols
        if isinstance(pitch, bool) or not isinstance(pitch, int | np.integer) or \
                pitch < cols or (a.ndim == 0 and pitch != 1):
            raise UsageError(f"upload: pitch={pitch!r} must be an int of at least the last "
                             f"dimension ({cols})")
        rows = math.prod(a.shape[:-1]) if a.ndim else 1
        buf = host.aligned_zeros(host.word_elements(rows * int(pitch), a.dtype), a.dtype)
        buf[:rows * int(pitch)].reshape(rows, int(pitch))[:, :cols] = a.reshape(rows, cols)
        self.transfers.sent(buf.nbytes)
        return DeviceArray(self, buf, a.shape, int(pitch))

    def kernel(self, name: str) -> KernelHandle:
        """A kernel by ``category/name``, bare name, or top name (``add_f32``, or a spec's
        ``top:`` such as ``vadd``: one dtype).

        Raises KernelUnavailable when the device holds no variant of it.
        """
        if name in self._handles:
            return self._handles[name]
        pinned = self.variants.get(name)
        if pinned is not None:
            kernel, variants = pinned.plan.kernel, {pinned.plan.dtype.name: pinned}
        else:
            # Plans may come from another library than the project's (open_plans with a
            # user's kernels): their own kernels count before the library is asked.
            planned = [v for v in self.variants.values() if v.plan.kernel.qualname == name]
            kernel = planned[0].plan.kernel if planned else self.library.get(name)
            variants = {v.plan.dtype.name: v for v in self.variants.values()
                        if v.plan.kernel.qualname == kernel.qualname}
        if not variants:
            raise KernelUnavailable(f"{kernel.qualname} is not on this device "
                                    f"({self.program.source}); build it with "
                                    f"'fpgakern build {kernel.qualname}'")
        if kernel.streams:
            # Its AXI4-Stream ports lead to other CUs, which only a link joins.
            raise UsageError(f"{kernel.qualname} has AXI4-Stream ports "
                             f"({', '.join(kernel.streams)}): it runs only in a chain of "
                             "kernels linked with stream_connect, from an XRT host program "
                             "(docs/runtime.md, 'Stream kernels')")
        if kernel.auto_restart:
            # Started once, it restarts itself: its scalars and results go through the
            # mailbox, which only an XRT host program drives.
            raise UsageError(f"{kernel.qualname} is a register kernel (control: auto_restart): "
                             "it runs from an XRT host program of your own, started once with "
                             "xrt::autostart and fed through xrt::mailbox (docs/runtime.md, "
                             "'Register kernels')")
        handle = KernelHandle(self, kernel, variants)
        self._handles[name] = handle
        return handle


def open(path: str | Path | None = None, target: str | None = None, *,  # noqa: A001
         opt: int | None = None, specs: str | Path | None = None, read_latency: int = 64,
         platform: str | None = None, bank_per_port: bool = False) -> Device:
    """Open a build tree (default: the project's ``build/``), a variant folder, or an
    ``.xclbin``, to run its kernels on ``target`` (sw_emu, hw_emu or hw; default
    ``$XCL_EMULATION_MODE``, else sw_emu). ``opt`` picks one rung of a build tree.

    hw_emu's memory: an .xclbin's banks limit its bandwidth (its platform's figures,
    its port placement); for a build tree, ``platform`` (``u55c``) gives the platform's
    banks with the link config's placement (``bank_per_port``: an sp= per port). Without
    either, memory has no bandwidth limit."""
    # Every path is made absolute now: models are built later, on a kernel's first call,
    # by compilers running in staging folders, and the caller may have changed directory.
    # Without ``specs``: the kernels of the project the build tree belongs to (the nearest
    # folder above it holding kernel_specs/, else the current one) beside the bundled
    # library, as the CLI reads them, wherever the caller stands.
    given = Path(path).resolve() if path is not None else None
    library = Library(Path(specs).resolve()) if specs is not None else \
        Library.for_project(given)
    where = given or paths.build_dir(library.root.parent).resolve()
    if where.is_file():
        prog = program.from_xclbin(where, library, paths.build_dir(library.root.parent))
    elif where.is_dir():
        prog = program.from_build_tree(where, library, opt)
    else:
        raise UsageError(f"{display_path(where)}: no such build folder or .xclbin")
    return Device(prog, library, target, read_latency, platform, bank_per_port)


def open_plans(plans: list[Plan], target: str | None = None, *,
               read_latency: int = 64, platform: str | None = None,
               bank_per_port: bool = False) -> Device:
    """A device holding ``plans`` directly: sources are generated when first called."""
    library = Library.for_project()
    return Device(program.from_plans(plans), library, target, read_latency, platform,
                  bank_per_port)
