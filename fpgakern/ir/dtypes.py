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
    is_float: bool  # IEEE float32 elements (complex64 is not: its elements are pairs)
    # complex64: two float32 components, re at the low address, im at the high one (numpy's
    # complex64 and torch.complex64 layout, so memory images need no repacking).
    is_complex: bool = False
    # The dtype a variant's scalars take (None: the element dtype). A complex64 variant's
    # scalars are real float32 (torch's alpha and scalar multipliers are real there), each
    # promoted to (s, +0) where a complex op uses it.
    scalar: str | None = None
    # The element type in host C++ (the XRT wrappers), where it differs from the HLS one.
    host: str | None = None

    @property
    def scalar_dtype(self) -> str:
        """The name of the dtype a variant's scalars take."""
        return self.scalar or self.name

    @property
    def host_ctype(self) -> str:
        return self.host or self.ctype

    @property
    def is_ieee(self) -> bool:
        """Floating-point elements (float32, or complex64's float32 components)."""
        return self.is_float or self.is_complex

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
        # fk::cfloat (fpgakern_ops.h), not std::complex<float>, whose operators follow C99
        # Annex G (__mulsc3, __divsc3) instead of torch's sequences.
        DType("complex64", "c64", "fk::cfloat", 64, False, is_complex=True,
              scalar="float32", host="std::complex<float>"),
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
