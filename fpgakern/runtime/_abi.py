"""ctypes binding of the emulation model ABI (``emu/include/fkemu_model.h``).

A :class:`ModelCU` is one compute unit of a loaded model library, driven at register level
the way a host drives a card: arguments into the control registers, ap_start, wait for the
interrupt, read CTRL, clear ISR, ap_continue. The same code drives sw_emu and hw_emu
models; only hw_emu advances a clock.
"""

from __future__ import annotations

import ctypes
import functools
import os
from pathlib import Path

import numpy as np

from fpgakern.errors import FpgakernError
from fpgakern.interface import (
    CTRL_AP_CONTINUE,
    CTRL_AP_DONE,
    CTRL_AP_START,
    REG_CTRL,
    REG_GIE,
    REG_IER,
    REG_ISR,
)

ABI_VERSION = 3
_u32, _u64, _int, _vp = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int, ctypes.c_void_p


class EmulationError(FpgakernError):
    """The emulated kernel misbehaved: an AXI violation, a timeout, a csim stream error."""


@functools.cache
def load_library(path: Path) -> ctypes.CDLL:
    # RTLD_LOCAL (ctypes' default): every model carries its own libverilated.
    lib = ctypes.CDLL(str(path))
    signatures = {
        "fkemu_abi_version": ([], _int),
        "fkemu_model_top": ([], ctypes.c_char_p),
        "fkemu_model_target": ([], ctypes.c_char_p),
        "fkemu_cu_new": ([], _vp),
        "fkemu_cu_free": ([_vp], None),
        "fkemu_cu_configure": ([_vp, ctypes.c_uint, ctypes.c_uint], None),
        "fkemu_cu_map": ([_vp, _u64, _vp, _u64, _int], _int),
        "fkemu_cu_unmap_all": ([_vp], None),
        "fkemu_cu_write": ([_vp, _u32, _u32], _int),
        "fkemu_cu_read": ([_vp, _u32, ctypes.POINTER(_u32)], _int),
        "fkemu_cu_interrupt": ([_vp], _int),
        "fkemu_cu_wait_interrupt": ([_vp, _u64], _int),
        "fkemu_cu_tick": ([_vp, _u64], None),
        "fkemu_cu_cycles": ([_vp], _u64),
        "fkemu_cu_error": ([_vp], ctypes.c_char_p),
        "fkemu_cu_clear_error": ([_vp], None),
        "fkemu_cu_stream_push": ([_vp, ctypes.c_char_p, _u64, _int], _int),
        "fkemu_cu_stream_pop": ([_vp, ctypes.c_char_p, ctypes.POINTER(_u64),
                                 ctypes.POINTER(_int)], _int),
        "fkemu_model_free_running": ([], _int),
    }
    for name, (args, result) in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = result
    version = lib.fkemu_abi_version()
    if version != ABI_VERSION:
        raise EmulationError(f"{path}: model ABI {version}, this runtime speaks {ABI_VERSION}")
    if lib.fkemu_model_target() == b"hw_emu":  # banks and lockstep: hw_emu models only
        hw_signatures = {
            "fkemu_bank_new": ([ctypes.c_double], _vp),
            "fkemu_bank_free": ([_vp], None),
            "fkemu_bank_bytes": ([_vp], _u64),
            "fkemu_cu_place": ([_vp, ctypes.c_char_p, _vp], _int),
            "fkemu_cus_wait_interrupt": ([ctypes.POINTER(_vp), ctypes.c_uint, ctypes.c_uint,
                                          _u64], _int),
        }
        for name, (args, result) in hw_signatures.items():
            fn = getattr(lib, name)
            fn.argtypes = args
            fn.restype = result
    return lib


class ModelBank:
    """A memory bank of a hw_emu model library: at most ``bytes_per_cycle`` bytes per
    cycle over all ports placed on it (CUs of the same library)."""

    def __init__(self, library: Path, bytes_per_cycle: float) -> None:
        self.handle = None
        self._pid = os.getpid()
        self.lib = load_library(library)
        self.bytes_per_cycle = bytes_per_cycle
        self.handle = self.lib.fkemu_bank_new(bytes_per_cycle)

    @property
    def bytes(self) -> int:
        """Bytes moved through the bank since it was made."""
        return int(self.lib.fkemu_bank_bytes(self.handle))

    def close(self) -> None:
        if self.handle:
            self.lib.fkemu_bank_free(self.handle)
            self.handle = None

    def __del__(self) -> None:
        if _made_here(self):
            self.close()


def _made_here(obj: object) -> bool:
    """Whether ``obj`` was made in this process. A process forked from the one that made
    it (a build's process pool) holds a copy of its handle, but the model library's
    locks may have been held by another thread at the fork: freeing it there can hang
    forever, and the memory is the parent's to free."""
    return getattr(obj, "_pid", None) == os.getpid()


class ModelCU:
    """One compute unit of a model library."""

    def __init__(self, library: Path, name: str, read_latency: int = 64,
                 write_latency: int = 64) -> None:
        self.handle = None
        self._pid = os.getpid()
        self.lib = load_library(library)
        self.name = name
        self.target = self.lib.fkemu_model_target().decode()
        self.handle = self.lib.fkemu_cu_new()
        self.lib.fkemu_cu_configure(self.handle, read_latency, write_latency)
        self._keep: list[np.ndarray] = []  # mapped arrays stay alive while mapped
        self.free_running = bool(self.lib.fkemu_model_free_running())
        if not self.free_running:  # ap_ctrl_none has no registers and no interrupt
            # Interrupt on ap_done, as XRT sets it up: global enable and IER bit 0.
            self.write(REG_GIE, 1)
            self.write(REG_IER, 1)
        self._started_at = 0

    def close(self) -> None:
        if self.handle:
            self.lib.fkemu_cu_free(self.handle)
            self.handle = None

    def __del__(self) -> None:
        if _made_here(self):
            self.close()

    # ------------------------------------------------------------------ memory
    def map(self, dev_addr: int, array: np.ndarray, writable: bool) -> None:
        assert array.flags.c_contiguous
        self.lib.fkemu_cu_map(self.handle, dev_addr, array.ctypes.data, array.nbytes,
                              int(writable))
        self._keep.append(array)

    def unmap_all(self) -> None:
        self.lib.fkemu_cu_unmap_all(self.handle)
        self._keep.clear()

    # ------------------------------------------------------------------ registers
    def write(self, offset: int, value: int) -> None:
        if self.lib.fkemu_cu_write(self.handle, offset, value & 0xFFFF_FFFF) != 0:
            self._raise(f"register write at 0x{offset:02X} not answered")

    def read(self, offset: int) -> int:
        value = _u32()
        if self.lib.fkemu_cu_read(self.handle, offset, ctypes.byref(value)) != 0:
            self._raise(f"register read at 0x{offset:02X} not answered")
        return value.value

    @property
    def cycles(self) -> int:
        return int(self.lib.fkemu_cu_cycles(self.handle))

    def place(self, bundle: str, bank: ModelBank | None) -> None:
        """Put the m_axi port of ``bundle`` (``gmem0``) on ``bank`` (None: no limit)."""
        if self.lib.fkemu_cu_place(self.handle, bundle.encode(),
                                   bank.handle if bank else None) != 0:
            raise EmulationError(f"{self.name}: no m_axi port {bundle!r} to place on a bank")

    # ------------------------------------------------------------------ streams
    def push(self, port: str, data: int, last: bool) -> bool:
        """Offer one beat to input stream ``port``: False when its FIFO is full."""
        status = self.lib.fkemu_cu_stream_push(self.handle, port.encode(), data, int(last))
        if status < 0:
            raise EmulationError(f"{self.name}: no input stream {port!r}")
        return status == 0

    def pop(self, port: str) -> tuple[int, bool] | None:
        """The next beat (TDATA, TLAST) of output stream ``port``, None when none waits."""
        data, last = _u64(), _int()
        status = self.lib.fkemu_cu_stream_pop(self.handle, port.encode(), ctypes.byref(data),
                                              ctypes.byref(last))
        if status < 0:
            raise EmulationError(f"{self.name}: no output stream {port!r}")
        return (int(data.value), bool(last.value)) if status == 0 else None

    def tick(self, cycles: int = 1) -> None:
        """Advance the CU's clock ``cycles`` cycles (hw_emu; sw_emu runs what streams allow)."""
        self.lib.fkemu_cu_tick(self.handle, cycles)

    @property
    def interrupt(self) -> bool:
        return bool(self.lib.fkemu_cu_interrupt(self.handle))

    # ------------------------------------------------------------------ runs
    def start(self) -> None:
        self._check()
        self._started_at = self.cycles
        self.write(REG_CTRL, CTRL_AP_START)

    def wait(self, max_cycles: int, running: list[ModelCU] | None = None) -> int:
        """Wait for the run's interrupt, acknowledge it as XRT does; return its cycles.

        ``running`` (hw_emu, CUs of the same library, this one among them): the CUs
        advanced together with this one, cycle by cycle, while it runs (those whose
        interrupt is up stay put), so that ports of several CUs on one bank share it."""
        others = [cu for cu in running or [] if cu is not self]
        if any(cu.lib is not self.lib for cu in others):
            raise EmulationError(f"{self.name}: only CUs of one model library run together")
        if others:
            group = [self, *others]
            handles = (_vp * len(group))(*(cu.handle for cu in group))
            status = self.lib.fkemu_cus_wait_interrupt(handles, len(group), 0, max_cycles)
            for cu in others:
                cu._check()
        else:
            status = self.lib.fkemu_cu_wait_interrupt(self.handle, max_cycles)
        if status != 0:
            self._check()
            raise EmulationError(f"{self.name}: no ap_done within {max_cycles} cycles "
                                 "(the kernel hangs or the timeout is too short)")
        cycles = self.cycles - self._started_at
        ctrl = self.read(REG_CTRL)  # clears ap_done
        if not ctrl & CTRL_AP_DONE:
            self._raise(f"interrupt raised but CTRL=0x{ctrl:02X} has no ap_done")
        self.write(REG_ISR, 1)  # toggle-on-write: clears the done event
        self.write(REG_CTRL, CTRL_AP_CONTINUE)
        self._check()
        return cycles

    def _check(self) -> None:
        error = self.lib.fkemu_cu_error(self.handle)
        if error:
            self.lib.fkemu_cu_clear_error(self.handle)
            raise EmulationError(f"{self.name}: {error.decode()}")

    def _raise(self, what: str) -> None:
        self._check()
        raise EmulationError(f"{self.name}: {what}")
