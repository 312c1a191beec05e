"""Helpers the runtime tests import: the kernel library, plans, devices per target, linked
xclbins (here, not in conftest.py: one module named conftest serves every test folder).

Emulation models are cached by content under FPGAKERN_CACHE_DIR (CI: build/.cache), so a
second run reuses every model; a cold run builds each hw_emu model once (a lock file
makes pytest-xdist workers wait for each other instead of building twice).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fpgakern import paths
from fpgakern.ir.kernel import SHAPED_KINDS
from fpgakern.ladder import Plan, plan
from fpgakern.runtime import Device, open_plans
from fpgakern.spec.library import Library
from fpgakern.verify import compare, reference
from fpgakern.verify.stimulus import Case

LIBRARY = Library(paths.specs_dir())

# hw_emu variants: every starter kernel, mostly at rung 2 (one lane: the smallest model
# to verilate), add at rung 3 (4 CUs), exp and sum at rung 4 (16 lanes), two int32.
HW_RUNGS = {"binary_ops/add": 3, "unary_ops/exp": 4, "reduce_ops/sum": 4}
HW_INT32 = {"binary_ops/add": 4, "reduce_ops/sum": 2}


def variant(qualname: str, rung: int, dtype: str) -> Plan:
    return plan(LIBRARY.get(qualname), rung, dtype)


# The kernels of flat 1-D tensors (shaped kinds take tensors with their shapes: their own
# tests, test_shaped_*.py; transforms take rows: test_spectral_kernels.py).
FLAT_KERNELS = [k for k in LIBRARY.kernels
                if k.kind not in (*SHAPED_KINDS, "transform", "contraction")]


def sw_variants() -> list[tuple[str, int, str]]:
    """Every flat kernel x dtype at its top rung (vectorized), plus add, sum and complex64
    div at rung 3 (work split over CUs)."""
    out = [(k.qualname, max(k.rungs), d) for k in FLAT_KERNELS for d in k.dtypes]
    return [*out, ("binary_ops/add", 3, "float32"), ("reduce_ops/sum", 3, "int32"),
            ("binary_ops/div", 3, "complex64")]


# The hw_emu variants of the default run: every kernel kind, interface shape (one input,
# two and a scalar), lane count and CU count of the runtime's paths; each kernel's RTL
# against numpy is tests/sim/test_library_sim.py's job, each RTL operator's
# tests/oplib's (exp at rung 4 and div wait for -m slow).
HW_DEFAULT = {("binary_ops/add", "float32"), ("reduce_ops/sum", "float32"),
              ("reduce_ops/max", "float32"), ("unary_ops/sigmoid", "float32"),
              ("binary_ops/add", "int32"), ("reduce_ops/sum", "int32")}


def hw_variants() -> list[tuple[str, int, str]]:
    out = [(k.qualname, HW_RUNGS.get(k.qualname, 2), "float32") for k in FLAT_KERNELS
           if "float32" in k.dtypes]
    out += [(q, r, "int32") for q, r in HW_INT32.items()]
    # complex64's RTL (the float32 lowering) at rung 2: -m slow (each model is minutes of
    # verilating; the sim step and tests/sim cover the RTL against the reference)
    return out + [(k.qualname, 2, "complex64") for k in FLAT_KERNELS if "complex64" in k.dtypes]


def hw_params() -> list:
    """``hw_variants`` as pytest parameters, those outside HW_DEFAULT marked slow."""
    return [pytest.param(q, r, d, id=f"{q}@{r}:{d}",
                         marks=() if (q, d) in HW_DEFAULT else pytest.mark.slow)
            for q, r, d in hw_variants()]


_devices: dict[tuple[str, int, str, str], Device] = {}


def device_for(qualname: str, rung: int, dtype: str, target: str) -> Device:
    key = (qualname, rung, dtype, target)
    if key not in _devices:
        _devices[key] = open_plans([variant(qualname, rung, dtype)], target)
    return _devices[key]


def link_xclbin(folder: Path, refs: list[str], target: str = "hw_emu") -> Path:
    """One u250 .xclbin holding the variants ``refs`` (``kernel@optN:dtype``), built into
    ``folder``/build as needed (the host-program tests run it on the emulators)."""
    from fpgakern.link import linker, platforms, resolve, xclbin

    design = linker.link(resolve.resolve(refs, LIBRARY, folder / "build"),
                         platforms.load("u250"), None, target)
    path = folder / "lib.xclbin"
    path.write_bytes(xclbin.to_xclbin(design))
    return path


def for_target(path: Path, target: str) -> Path:
    """The .xclbin ``path`` as linked for emulation ``target``: the same design with the
    header's mode of ``target`` (what ``fpgakern link --target`` changes), written beside
    it so that its fpgakern_emu.cfg applies. The emulation refuses an xclbin built for
    another target than XCL_EMULATION_MODE, as XRT does."""
    import struct

    from fpgakern.link import axlf

    data = bytearray(path.read_bytes())
    mode = axlf.TARGET_MODES[target]
    if struct.unpack_from("<H", data, 0x14C)[0] == mode:
        return path
    struct.pack_into("<H", data, 0x14C, mode)
    out = path.with_name(f"{path.stem}.{target}.xclbin")
    out.write_bytes(bytes(data))
    return out


def emulation_env(target: str) -> dict[str, str]:
    """The environment a host program runs in on ``target`` (XCL_EMULATION_MODE), without
    a config file of another test's."""
    import os

    env = dict(os.environ, XCL_EMULATION_MODE=target)
    env.pop("FPGAKERN_EMU_CONFIG", None)
    return env


def sw_library_device() -> Device:
    """Every kernel x dtype at its top rung on sw_emu: the torch-op tests' device."""
    return open_plans([variant(k.qualname, max(k.rungs), d) for k in LIBRARY.kernels
                       for d in k.dtypes], "sw_emu")


def fake_build(root: Path, qualname: str, rung: int, dtype: str, passed: bool) -> Path:
    """A build tree variant with the HLS sources and a manifest saying how csim went."""
    from fpgakern.backends import hls

    p = variant(qualname, rung, dtype)
    folder = root / p.kernel.category / p.kernel.name / f"opt{rung}" / dtype
    hls.generate(p, folder)
    verdict = {"passed": passed, "detail": "3 cases pass" if passed else "1 of 3 fail"}
    (folder / "manifest.json").write_text(json.dumps({
        "kernel": qualname, "top": p.top, "rung": rung, "dtype": dtype,
        "steps": {"csim": verdict}, "csim": verdict}))
    return folder


def torch_farther(kernel, inputs, theirs: np.ndarray, ours: np.ndarray,
                  dtype: str = "float32") -> np.ndarray:
    """Where torch's float32 result is the inaccurate one: ours passes (as a whole) the
    kernel's own verdict against its reference (compare.judge: the op table's correctly rounded
    oracle) and torch is more ulps from that reference than ours. torch's silu and sigmoid
    return 0 where the result is subnormal (its float32 exp(-x) overflows); its gelu
    cancels in 1 + erf(x / sqrt(2)) for x << 0 (hundreds of ulps at x = -3.3). ``dtype``:
    the variant's (complex64 for abs and angle of complex64, whose result is float32)."""
    names = kernel.inputs
    case = Case("torch", {n: np.ascontiguousarray(np.broadcast_to(x, ours.shape))
                          for n, x in zip(names, inputs, strict=True)}, {})
    expected = reference.expected_output(kernel, dtype, case)
    ours_off = compare.ulp_distance(expected, ours)
    theirs_off = compare.ulp_distance(expected, theirs)
    if not compare.judge(kernel, dtype, case, ours).passed:
        return np.zeros(ours.shape, bool)
    return theirs_off > ours_off
