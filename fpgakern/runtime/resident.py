"""Tensors kept in device memory between kernel calls, and the host <-> device traffic.

A :class:`DeviceArray` is what an XRT buffer object is to a host program: memory on the
device that kernels read and write in place. In emulation the numpy buffer *is* the
device memory (targets.py maps it into the model), so passing a DeviceArray from one
kernel to the next copies nothing; reading it on the host (``to_numpy``) is a transfer,
and the device counts it (:class:`Transfers`), as it counts every copy in and out.

Layout: a DeviceArray holds ``rows`` rows (the product of all dimensions but the last) of
``shape[-1]`` elements, one row starting every ``pitch`` elements: ``pitch == shape[-1]``
is contiguous (what elementwise, reduction and broadcast kernels read), a larger pitch is a
row kind's (rows padded to whole memory words). The buffer always holds whole 512-bit
words, so a kernel of any rung can read its last word.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Protocol

import numpy as np

_UNITS = ("KiB", "MiB", "GiB", "TiB")


def show_bytes(count: int) -> str:
    """``4 B``, ``1.5 KiB``, ``2.0 MiB``."""
    if count < 1024:
        return f"{count} B"
    value = float(count)
    for unit in _UNITS:
        value /= 1024
        if value < 1024 or unit == _UNITS[-1]:
            break
    return f"{value:.1f} {unit}"


@dataclass
class Transfers:
    """Host <-> device traffic of one Device: buffers copied each way and their bytes."""

    to_device: int = 0  # buffers copied host -> device
    to_device_bytes: int = 0
    from_device: int = 0  # buffers copied device -> host
    from_device_bytes: int = 0

    def copy(self) -> Transfers:
        return Transfers(**{f.name: getattr(self, f.name) for f in fields(self)})

    def __sub__(self, other: Transfers) -> Transfers:
        """The traffic between two snapshots (``after - before``)."""
        return Transfers(**{f.name: getattr(self, f.name) - getattr(other, f.name)
                            for f in fields(self)})

    def __str__(self) -> str:
        return (f"{self.to_device} to device ({show_bytes(self.to_device_bytes)}), "
                f"{self.from_device} from device ({show_bytes(self.from_device_bytes)})")

    def sent(self, nbytes: int) -> None:
        """Count one buffer copied host -> device."""
        self.to_device += 1
        self.to_device_bytes += nbytes

    def received(self, nbytes: int) -> None:
        """Count one buffer copied device -> host."""
        self.from_device += 1
        self.from_device_bytes += nbytes


class Counting(Protocol):
    """What a DeviceArray needs of its Device (runtime.device.Device; not imported here:
    device.py imports this module)."""

    transfers: Transfers


class BufferView:
    """What a tensor in a device buffer tells the checks: its dtype, rank and size, from
    ``buffer`` and ``shape``."""

    buffer: np.ndarray
    shape: tuple[int, ...]

    @property
    def dtype(self) -> np.dtype:
        return self.buffer.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)


class DeviceArray(BufferView):
    """A tensor held in device memory (an emulated xrt::bo): data stays there between
    kernel calls; reading it on the host is a counted transfer.

    Made by ``Device.upload`` and by kernel calls with ``resident=True``; kernels of its
    device take it in place of a numpy array."""

    def __init__(self, device: Counting, buffer: np.ndarray, shape: tuple[int, ...],
                 pitch: int | None = None) -> None:
        self.device = device
        self.shape = tuple(int(d) for d in shape)
        self.buffer = buffer  # the device memory: 1-D, 4 KiB-aligned, whole words
        cols = self.shape[-1] if self.shape else 1
        self.pitch = cols if pitch is None else pitch
        # A wrong layout here is fpgakern's bug, not the caller's: assert.
        assert buffer.ndim == 1 and self.pitch >= cols
        assert buffer.size >= self.span and buffer.nbytes % 64 == 0, (buffer.size, self.span)

    @property
    def nbytes(self) -> int:
        """The tensor's bytes (as numpy's nbytes: padding not counted)."""
        return self.size * self.dtype.itemsize

    @property
    def rows(self) -> int:
        """Rows of ``shape[-1]`` elements (a 0-d array: one row of one)."""
        return math.prod(self.shape[:-1]) if self.shape else 1

    @property
    def span(self) -> int:
        """Elements from the first row's start to the end of the last's pitch: what a
        host read covers."""
        return self.rows * self.pitch if self.shape else 1

    @property
    def contiguous(self) -> bool:
        """Laid out as numpy would be: rows back to back (one row always is)."""
        return self.ndim == 0 or self.rows <= 1 or self.pitch == self.shape[-1]

    def __repr__(self) -> str:
        layout = "" if self.contiguous else f", pitch {self.pitch}"
        return f"<DeviceArray {self.shape} {self.dtype.name}{layout}>"

    def to_numpy(self) -> np.ndarray:
        """A host copy in ``shape``, the padding stripped: one device -> host transfer of
        the rows read (``span`` elements)."""
        self.device.transfers.received(self.span * self.dtype.itemsize)
        if self.ndim == 0:
            return self.buffer[:1].reshape(()).copy()
        rows = self.buffer[:self.span].reshape(self.rows, self.pitch)
        # .copy(), not ascontiguousarray: a contiguous slice would come back as a view.
        return rows[:, :self.shape[-1]].copy().reshape(self.shape)


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
