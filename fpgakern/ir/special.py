"""Special values: one vocabulary of the float32 values and int32 extremes fpgakern tests on.

Kernels (``verify.stimulus``: the cases C simulation and RTL simulation share) and RTL
operators (``verify.opsim``: the operator library's tests) both pick their special values
here, by name, so a value has one name and one bit pattern everywhere. Each picks its own
selection: a kernel's binary cases pair every value with every other, so its selection is
small (37 values, 1369 pairs) and leans on values kernels' ops turn on (exp's overflow and
underflow edges, rounding ties); an operator is tested on far more values at once, so its
selection covers the format's corners (every kind of NaN, both ends of each binade range,
float <-> int conversion limits).

Float32 values are written as bit patterns (``0x7FC0_0000`` is one NaN, where ``nan`` is
any of 2^24 - 2); a value written as a decimal is that decimal rounded to float32.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def _bits(decimal: float) -> int:
    return int(np.float32(decimal).view(np.uint32))


FLOAT32: dict[str, int] = {
    # zeros and infinities
    "+0": 0x0000_0000, "-0": 0x8000_0000,
    "+inf": 0x7F80_0000, "-inf": 0xFF80_0000,
    # NaNs: quiet (the canonical one that hardware produces first), signalling (quiet bit
    # clear), with payloads
    "qnan": 0x7FC0_0000, "-qnan": 0xFFC0_0000,
    "snan": 0x7F80_0001, "-snan": 0xFF80_0001,
    "qnan_payload": 0x7FFF_FFFF, "snan_payload": 0x7FA0_0000,
    # subnormals
    "+min_subnormal": 0x0000_0001, "-min_subnormal": 0x8000_0001,
    "2*min_subnormal": 0x0000_0002,
    "+max_subnormal": 0x007F_FFFF, "-max_subnormal": 0x807F_FFFF,
    "min_normal/2": 0x0040_0000, "min_normal/2+ulp": 0x0040_0001,
    "1e-40": _bits(1e-40), "-3.5e-39": _bits(-3.5e-39), "1e-41": _bits(1e-41),
    # the ends of the normal range
    "+min_normal": 0x0080_0000, "-min_normal": 0x8080_0000,
    "min_normal+ulp": 0x0080_0001, "2*min_normal": 0x0100_0000,
    "+max_normal": 0x7F7F_FFFF, "-max_normal": 0xFF7F_FFFF,
    "max_normal-ulp": 0x7F7F_FFFE, "2^127": 0x7F00_0000,
    # around one: ulp(1) is 2^-23, the float below 1 is 1 - 2^-24
    "+1": 0x3F80_0000, "-1": 0xBF80_0000, "1+ulp": 0x3F80_0001, "1-ulp/2": 0x3F7F_FFFF,
    "0.5": 0x3F00_0000, "1.5": 0x3FC0_0000, "2": 0x4000_0000, "3": 0x4040_0000,
    "-3": 0xC040_0000, "2.5": _bits(2.5), "-2.5": _bits(-2.5),
    "2^-23": 0x3400_0000, "2^-24": 0x3380_0000,
    # where floats stop holding every integer (2^24) or any fraction (2^23)
    "2^24": 0x4B80_0000, "2^24+2": 0x4B80_0001, "2^23": 0x4B00_0000, "2^23-0.5": 0x4AFF_FFFF,
    # the int32 limits of float -> int conversion
    "2^31": 0x4F00_0000, "-2^31": 0xCF00_0000,
    "2^31-128": 0x4EFF_FFFF, "-(2^31-128)": 0xCEFF_FFFF, "-(2^31+256)": 0xCF00_0001,
    # squares near the range limits
    "2^-64": 0x1F80_0000, "2^64": 0x5F80_0000, "2^-63": 0x2000_0000, "2^63": 0x5F00_0000,
    # large and small magnitudes, and the edges of exp's and sigmoid's ranges (exp
    # overflows above 88.72, is subnormal below -87.34 and zero below -103.97)
    "1e30": _bits(1e30), "-1e30": _bits(-1e30), "1e-30": _bits(1e-30),
    "20": _bits(20.0), "-20": _bits(-20.0), "88": _bits(88.0), "-88": _bits(-88.0),
    "89": _bits(89.0), "-104": _bits(-104.0),
}

_INT32_POSITIVE: dict[str, int] = {
    "1": 1, "2": 2, "3": 3, "7": 7, "31": 31, "32": 32, "33": 33, "255": 255,
    "65535": 65535, "65536": 65536, "2^24": 1 << 24, "2^24+1": (1 << 24) + 1,
    "2^25+1": (1 << 25) + 1, "2^25+3": (1 << 25) + 3, "2^30": 1 << 30,
    "max": 0x7FFF_FFFF, "max-1": 0x7FFF_FFFE, "max-63": 0x7FFF_FFC0, "max-127": 0x7FFF_FF80,
    "0x55555555": 0x5555_5555,
}
INT32: dict[str, int] = {
    "0": 0,
    **_INT32_POSITIVE,
    **{(f"-({name})" if "+" in name or "-" in name else f"-{name}"): -value
       for name, value in _INT32_POSITIVE.items()},
    "min": -(1 << 31),
    "0xAAAAAAAA": -0x5555_5556,  # the other alternating bit pattern
}

# What kernels are tested on, in the order their cases place them (csim and RTL
# simulation: verify.stimulus).
KERNEL_FLOAT32 = (
    "qnan", "+inf", "-inf", "+0", "-0", "+1", "-1", "0.5", "2", "3", "-3",
    "+max_normal", "-max_normal", "+min_normal", "-min_normal",
    "+min_subnormal", "-min_subnormal", "+max_subnormal", "1e-40", "-3.5e-39",
    "1e30", "-1e30", "1e-30", "88", "-88", "89", "-104", "20", "-20",
    "1+ulp", "1-ulp/2", "2^24", "2^24+2", "2^23", "1.5", "2.5", "-2.5",
)
KERNEL_INT32 = (
    "0", "1", "-1", "2", "-2", "7", "-7", "31", "32", "33", "max", "min", "max-1", "-max",
    "0x55555555", "0xAAAAAAAA", "65535", "-65536", "2^30", "-2^30",
)

# complex64 kernels (issue 16): a binary kernel pairs every value with every other, within
# a case's 4096 elements (Microarchitecture.max_test_elements), so its values are every
# pair (re, im)
# of these 8 components (64 values, 4096 pairs): NaN, the infinities and zeros of both
# signs, one, the largest and the smallest magnitude, in either part. A unary kernel takes
# every pair of KERNEL_FLOAT32's components (1369 values).
KERNEL_COMPLEX64_PARTS = ("qnan", "+inf", "-inf", "+0", "-0", "+1", "+max_normal",
                          "+min_subnormal")

# What the RTL operators are tested on (verify.opsim), in the order their vectors use.
OPERATOR_FLOAT32 = (
    "+0", "-0", "+inf", "-inf",
    "qnan", "-qnan", "snan", "-snan", "qnan_payload", "snan_payload",
    "+min_subnormal", "-min_subnormal", "2*min_subnormal", "+max_subnormal", "-max_subnormal",
    "min_normal/2", "min_normal/2+ulp",
    "+min_normal", "-min_normal", "min_normal+ulp", "2*min_normal",
    "+max_normal", "-max_normal", "max_normal-ulp", "2^127",
    "+1", "-1", "1+ulp", "1-ulp/2", "0.5", "1.5",
    "2", "3", "-3", "2^-23", "2^-24",
    "2^24", "2^24+2", "2^23", "2^23-0.5",
    "2^31", "-2^31", "2^31-128", "-(2^31-128)", "-(2^31+256)",
    "2^-64", "2^64", "2^-63", "2^63",
)
# Every named int32 but three that only kernels use (np.unique sorts them in opsim).
OPERATOR_INT32 = tuple(name for name in INT32 if name not in {"2^30", "-2^30", "0xAAAAAAAA"})


def float32_bits(names: Iterable[str]) -> np.ndarray:
    """The bit patterns (uint32) of the float32 values ``names``."""
    return np.array([FLOAT32[name] for name in names], dtype=np.uint32)


def float32(names: Iterable[str]) -> np.ndarray:
    """The float32 values ``names``."""
    return float32_bits(names).view(np.float32)


def complex64(names: Iterable[str]) -> np.ndarray:
    """Every complex64 (re, im) with both parts among the float32 values ``names``, re
    varying slowest."""
    parts = float32(list(names))
    re, im = np.meshgrid(parts, parts, indexing="ij")
    return np.stack([re.ravel(), im.ravel()], axis=-1).view(np.complex64).ravel()


def int32(names: Iterable[str]) -> np.ndarray:
    """The int32 values ``names``."""
    return np.array([INT32[name] for name in names], dtype=np.int32)
