"""The Python runtime's API: a device holding kernels, and kernels called on numpy arrays."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fpgakern import paths
from fpgakern.errors import FpgakernError, UsageError, display_path
from fpgakern.ir import fft
from fpgakern.ir.kernel import SHAPED_KINDS, Kernel
from fpgakern.ladder import Plan
from fpgakern.runtime import host, memory, program, shaped, transform
from fpgakern.runtime.program import Program, Variant
from fpgakern.runtime.targets import TARGETS, Target, open_target
from fpgakern.spec.library import Library


class KernelUnavailable(FpgakernError):
    """The device cannot run this kernel (not built, failed to build, not in the xclbin).
    Callers that have a CPU twin (the torch ops) fall back on it."""


@dataclass
class CallInfo:
    """What the last call did: per-CU cycles on hw_emu, wall time everywhere."""

    top: str
    target: str
    n: int
    compute_units: int  # CUs that ran
    cu_cycles: list[int | None]
    seconds: float

    @property
    def cycles(self) -> int | None:
        """Device time of the call in cycles: the slowest CU (all CUs start together)."""
        known = [c for c in self.cu_cycles if c is not None]
        return max(known) if known else None


def default_target() -> str:
    """As Vitis: XCL_EMULATION_MODE picks the emulation; unset, fpgakern uses sw_emu
    (this machine has no card; ask for 'hw' explicitly)."""
    return os.environ.get("XCL_EMULATION_MODE") or "sw_emu"


@dataclass
class KernelHandle:
    """A library kernel on a device; calls pick the variant by the inputs' dtype."""

    device: Device
    kernel: Kernel
    variants: dict[str, Variant]  # by dtype name
    last_call: CallInfo | None = None
    _targets: dict[str, Target] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.kernel.qualname

    def variant(self, dtype: str) -> Variant:
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

    def __call__(self, *arrays: np.ndarray, **scalars: object) -> np.ndarray:
        """Run the kernel on ``arrays``; ``scalars`` by name. A transform kernel takes
        ``n`` and ``norm`` instead, as torch.fft does (runtime/transform.py)."""
        if self.kernel.kind == "transform":
            return self._transform(arrays, **scalars)  # type: ignore[arg-type]
        where = self.name
        shaped_kind = self.kernel.kind in SHAPED_KINDS
        main_shape: tuple[int, ...] = ()
        if shaped_kind:
            checked, main_shape = shaped.check_inputs(self.kernel, arrays, where)
        else:
            checked = host.check_inputs(self.kernel.inputs, arrays, where)
        dtype = checked[0].dtype.name
        if dtype not in self.kernel.dtypes:
            raise UsageError(f"{where}: dtype {dtype} is not supported (the kernel takes "
                             f"{', '.join(self.kernel.dtypes)}); convert with .astype()")
        variant = self.variant(dtype)
        known = {s.name: s.default for s in self.kernel.scalars}
        unknown = set(scalars) - set(known)
        if unknown:
            raise UsageError(f"{where}: unknown scalar(s) {', '.join(sorted(unknown))} "
                             f"(the kernel takes: {', '.join(known) or 'none'})")
        values = {name: host.scalar_bits(scalars.get(name, default), variant.plan, name, where)
                  for name, default in known.items()}
        target = self.target(dtype)
        started = time.perf_counter()
        if shaped_kind:
            prepared = shaped.prepare(variant.plan, target.compute_units, checked,
                                      main_shape, values)
        else:
            prepared = host.prepare(variant.plan, target.compute_units, checked, values)
        cycles = target.run(prepared)
        result = shaped.finish(prepared) if shaped_kind else host.finish(prepared)
        self.last_call = CallInfo(variant.top, target.name, prepared.n, len(prepared.shares),
                                  cycles, time.perf_counter() - started)
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
        cycles = target.run(prepared)
        result = transform.finish(prepared)
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

    def __repr__(self) -> str:
        return f"<fpgakern device {self.program.source} on {self.target}: " \
               f"{', '.join(sorted(self.program.variants)) or 'no kernels'}>"

    def bank_map(self, variant: Variant) -> memory.BankMap | None:
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
    def variants(self) -> dict[str, Variant]:
        return self.program.variants

    def kernel(self, name: str) -> KernelHandle:
        """A kernel by ``category/name``, bare name, or top name (``add_f32``, one dtype).

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
