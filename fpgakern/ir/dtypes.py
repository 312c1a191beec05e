"""Element types a kernel can be built for, with their spelling in every layer."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DType:
    """One element type: its numpy, C++, SystemVerilog and torch spellings."""

    name: str
    short: str  # suffix of kernel top names, e.g. add_f32
    ctype: str
    bits: int
    is_float: bool

    @property
    def numpy(self) -> np.dtype:
        return np.dtype(self.name)

    @property
    def bytes(self) -> int:
        return self.bits // 8

    @property
    def uint_view(self) -> np.dtype:
        """The unsigned integer type with the same width, for bit-level views."""
        return np.dtype(f"uint{self.bits}")

    def lanes(self, bus_bits: int) -> int:
        """How many elements fit in one bus word of ``bus_bits``."""
        return bus_bits // self.bits

    def __str__(self) -> str:
        return self.name


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        DType("float32", "f32", "float", 32, True),
        DType("int32", "i32", "int32_t", 32, False),
    )
}


# Types only a kernel's result may have, never its elements: int64 for the index an
# argmax returns, as torch returns it.
RESULT_DTYPES: dict[str, DType] = {
    **DTYPES, "int64": DType("int64", "i64", "int64_t", 64, False),
}


def dtype(name: str) -> DType:
    """Look a dtype up by name; KeyError names the known ones."""
    try:
        return DTYPES[name]
    except KeyError:
        raise KeyError(f"unknown dtype {name!r} (known: {', '.join(DTYPES)})") from None
