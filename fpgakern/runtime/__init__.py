"""Run built kernels from Python: ``dev = fpgakern.runtime.open("build")``, then
``dev.kernel("binary_ops/add")(a, b, alpha=2.0)`` on numpy arrays, or on DeviceArrays
(``dev.upload(a)``, ``resident=True``: tensors kept in device memory between calls;
``dev.transfers`` counts the host <-> device copies).

Targets: ``sw_emu`` (the HLS C++ kernel as a shared library), ``hw_emu`` (the Verilator
model of the RTL kernel with an AXI memory model; reports cycles per call) and ``hw`` (a
card through pyxrt). docs/runtime.md describes the whole runtime, including the C++ host
wrappers and the XRT emulation library, and the torch ops (``fpgakern.runtime.torch_ops``).
"""

from fpgakern.runtime.device import (
    CallInfo,
    Device,
    KernelHandle,
    KernelUnavailable,
    default_target,
    open,  # noqa: A004
    open_plans,
)
from fpgakern.runtime.resident import DeviceArray, Transfers
from fpgakern.runtime.targets import TARGETS

__all__ = ["TARGETS", "CallInfo", "Device", "DeviceArray", "KernelHandle",
           "KernelUnavailable", "Transfers", "default_target", "open", "open_plans"]
