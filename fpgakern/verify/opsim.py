"""Run one RTL operator of the operator library in Verilator on vectors of operands.

The operator contract (see docs/operators.md): ports ``clk``, ``ce``, ``a`` (``b``, ``c``)
and ``y``; a new operand set every cycle with ``ce`` high; the result of the set presented
in ce-cycle t appears in ce-cycle t + latency. A small C++ driver (``opsim_harness.cpp``
beside this file) feeds one operand set per ce-cycle from a binary file and records ``y``
in every ce-cycle; Python slices off the latency and compares.

Each (module, arity) is verilated and compiled once (``fpgakern.tools.cache``): the build
is cached under ``fpgakern.paths.cache_dir() / "opsim"`` by a hash of the RTL sources the
module needs, the driver, the flags and the Verilator version.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fpgakern.backends.rtl import sources
from fpgakern.errors import ToolError
from fpgakern.ir import special
from fpgakern.tools import verilator
from fpgakern.tools.cache import cached_build, key_of
from fpgakern.tools.verilator_build import verilate

OPLIB_DIR = sources.OPLIB_DIR
HARNESS = Path(__file__).resolve().with_name("opsim_harness.cpp")

# The shared model flags, the model and harness at -O0: an operator's vectors (a few
# hundred thousand operand sets at most) simulate in less time than -O2 takes to compile
# (tests/oplib on two cores: 147 CPU-seconds at -O0, 163 at -O2).
VERILATOR_FLAGS = (*verilator.FLAGS, "-CFLAGS", "-O0")
# measure_latency searches shifts 0..MAX_LATENCY: above the longest operator, fmod's
# remainder (fk_fp32_remainder, 148 cycles).
MAX_LATENCY = 160

# --------------------------------------------------------------------------- sources
# One module index and dependency walk for the whole RTL backend (backends/rtl/sources).


def module_index(folder: Path | None = None) -> dict[str, Path]:
    """Every module defined in the .sv files of ``folder`` (default OPLIB_DIR), mapped to
    its file."""
    return sources.module_index(folder or OPLIB_DIR)


def module_sources(module: str, folder: Path | None = None) -> list[Path]:
    """The files ``module`` needs: its own file plus, transitively, every file defining a
    module that one of them mentions. Keeping the list minimal keeps the build cache
    stable when unrelated operator files change."""
    return sources.operator_files([module], folder or OPLIB_DIR)


# --------------------------------------------------------------------------- build


def _build_key(module: str, arity: int, sources: Sequence[Path]) -> str:
    return key_of(module, str(arity), verilator.version(), *VERILATOR_FLAGS,
                  *verilator.make_variables(),
                  *(path.name.encode() + b"\0" + path.read_bytes()
                    for path in (*sources, HARNESS)))


def build_model(module: str, arity: int) -> Path:
    """The compiled simulation binary for ``module`` with ``arity`` operands (cached)."""
    if not 1 <= arity <= 3:
        raise ValueError(f"operators take 1 to 3 operands, not {arity}")
    sources = module_sources(module)

    def build(work: Path) -> None:
        verilate(
            work,
            ["--exe", *VERILATOR_FLAGS, "-Wno-fatal", "--top-module", module,
             "-o", str(work / "sim"), *(str(s) for s in sources), str(HARNESS)],
            prefix="Vtop", files={"opsim_config.h": f"#define FK_ARITY {arity}\n"},
            shared=[HARNESS], what=f"verilator build of {module}")

    key = _build_key(module, arity, sources)
    return cached_build("opsim", f"{module}-{arity}", key, "sim", build) / "sim"


# --------------------------------------------------------------------------- run


def _run(module: str, operands: Sequence[np.ndarray], extra: int,
         stall_pattern: np.ndarray | None) -> np.ndarray:
    """All ``n + extra`` samples of ``y``, one per ce-cycle (see opsim_harness.cpp)."""
    if not operands:
        raise ValueError("an operator needs at least one operand array")
    arrays = [np.ascontiguousarray(np.asarray(x).reshape(-1)) for x in operands]
    for x in arrays:
        if x.dtype.itemsize != 4:
            raise ValueError(
                f"operands must be 32-bit arrays (view float32 as uint32), not {x.dtype}")
    n = arrays[0].size
    if any(x.size != n for x in arrays):
        raise ValueError("operand arrays differ in length")
    binary = build_model(module, len(arrays))
    with tempfile.TemporaryDirectory(prefix="fk-opsim-") as tmp:
        inputs, outputs = Path(tmp) / "in.bin", Path(tmp) / "out.bin"
        np.concatenate([x.view(np.uint32) for x in arrays]).astype("<u4").tofile(inputs)
        command = [str(binary), str(inputs), str(n), str(extra), str(outputs)]
        if stall_pattern is not None:
            ce = (np.asarray(stall_pattern).reshape(-1) != 0).astype(np.uint8)
            if not ce.any():
                raise ValueError("the stall pattern never raises ce")
            ce.tofile(Path(tmp) / "ce.bin")
            command.append(str(Path(tmp) / "ce.bin"))
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip()
            raise ToolError(f"simulation of {module} failed: {detail}")
        return np.fromfile(outputs, dtype="<u4").astype(np.uint32)


def simulate_operator(module: str, operands: Sequence[np.ndarray], latency: int, *,
                      out_bits: int = 32, stall_pattern: np.ndarray | None = None) -> np.ndarray:
    """Results of RTL operator ``module`` on ``operands`` (uint32 bit patterns, one array
    per port a, b, c), one operand set per ce-cycle, read ``latency`` ce-cycles later.

    ``stall_pattern``: the ce level of each clock cycle (nonzero = advance), repeated
    cyclically; None means ce is always high. Returns uint32 bit patterns, or bool when
    ``out_bits`` is 1.
    """
    if latency < 0:
        raise ValueError("latency must be >= 0")
    samples = _run(module, operands, latency, stall_pattern)
    result = samples[latency:]
    if out_bits == 1:
        return (result & 1).astype(np.bool_)
    if out_bits < 32:
        return result & np.uint32((1 << out_bits) - 1)
    return result


def _nan_mask(bits: np.ndarray) -> np.ndarray:
    return (bits & np.uint32(0x7FFF_FFFF)) > np.uint32(0x7F80_0000)


def measure_latency(module: str, operands: Sequence[np.ndarray], expected: np.ndarray, *,
                    out_bits: int = 32, nan_equal: bool = False,
                    match: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> int:
    """The latency at which ``module``'s outputs line up with ``expected``.

    Runs the operator once and tries every shift from 0 to MAX_LATENCY; exactly one must
    match (use enough varied operands that only the true latency does). Values match when
    their bits are equal, or, with ``nan_equal``, when both are float32 NaNs; ``match``
    (got bits, expected bits) -> bool mask replaces that rule, e.g. for an ulp bound.
    Raises AssertionError unless exactly one shift matches.
    """
    want = np.asarray(expected).reshape(-1)
    n = want.size
    samples = _run(module, operands, MAX_LATENCY, None)
    mask = np.uint32(1) if out_bits == 1 else np.uint32(0xFFFF_FFFF if out_bits >= 32
                                                         else (1 << out_bits) - 1)
    want_bits = (want.astype(np.uint32) if want.dtype == np.bool_
                 else want.view(np.uint32) if want.dtype.itemsize == 4
                 else want.astype(np.uint32)) & mask
    matches = []
    for shift in range(MAX_LATENCY + 1):
        got = samples[shift:shift + n] & mask
        if match is not None:
            same = np.asarray(match(got, want_bits), dtype=np.bool_)
        else:
            same = got == want_bits
            if nan_equal:
                same |= _nan_mask(got) & _nan_mask(want_bits)
        if same.all():
            matches.append(shift)
    if len(matches) != 1:
        raise AssertionError(
            f"{module}: results match the expected values at shifts {matches or 'none'} "
            f"(searched 0..{MAX_LATENCY})")
    return matches[0]


# --------------------------------------------------------------------------- test vectors
# Deterministic given the generator; shared by the operator tests and the sweep benchmark.

U32 = np.uint32
SIGN = U32(0x8000_0000)
CANONICAL_NAN = special.FLOAT32["qnan"]

# Mantissas at the edges of every binade: zero, the first ones, the midpoint and around it,
# the last ones.
EDGE_MANTISSAS = np.array([0, 1, 2, 3, 0x1FFFFF, 0x3FFFFF, 0x400000, 0x400001, 0x5FFFFF,
                           0x7FFFFD, 0x7FFFFE, 0x7FFFFF], dtype=U32)

def fp32_named() -> np.ndarray:
    """Named special values (``special.OPERATOR_FLOAT32``): zeros, infinities, NaNs
    (quiet, signalling, payloads), the extreme subnormals and normals, and values around
    1, 2^24 and 2^31."""
    return special.float32_bits(special.OPERATOR_FLOAT32)


def fp32_every_exponent() -> np.ndarray:
    """Every exponent (0..255) x edge mantissas x both signs: 6,144 values."""
    exp = np.arange(256, dtype=U32)[:, None] << U32(23)
    values = (exp | EDGE_MANTISSAS[None, :]).reshape(-1)
    return np.concatenate([values, values | SIGN])


def fp32_unary_specials() -> np.ndarray:
    return np.concatenate([fp32_named(), fp32_every_exponent()])


def fp32_binary_specials(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Pairs: every named value with every named value and every every-exponent value,
    plus every exponent pair (256 x 256) with random and with edge mantissas."""
    named = fp32_named()
    unary = fp32_unary_specials()
    a1, b1 = np.meshgrid(named, unary, indexing="ij")
    ea, eb = np.meshgrid(np.arange(256, dtype=U32), np.arange(256, dtype=U32), indexing="ij")
    ea, eb = ea.reshape(-1) << U32(23), eb.reshape(-1) << U32(23)
    n = ea.size
    rand_m = lambda: rng.integers(0, 1 << 23, n, dtype=U32)  # noqa: E731
    rand_s = lambda: rng.integers(0, 2, n, dtype=U32) << U32(31)  # noqa: E731
    edge_m = lambda: rng.choice(EDGE_MANTISSAS, n)  # noqa: E731
    a = np.concatenate([a1.reshape(-1), b1.reshape(-1),
                        ea | rand_m() | rand_s(), ea | edge_m() | rand_s()])
    b = np.concatenate([b1.reshape(-1), a1.reshape(-1),
                        eb | rand_m() | rand_s(), eb | edge_m() | rand_s()])
    return a, b


def fp32_random(rng: np.random.Generator, n: int) -> np.ndarray:
    """A mixture that reaches every part of the format: uniform bit patterns (every
    exponent, some NaNs), moderate magnitudes, subnormals, and short significands (whose
    sums and products land exactly on rounding ties)."""
    bits = rng.integers(0, 1 << 32, n, dtype=U32)
    kind = rng.integers(0, 4, n)
    sign = bits & SIGN
    mant = bits & U32(0x7F_FFFF)
    moderate = sign | (rng.integers(100, 155, n, dtype=U32) << U32(23)) | mant
    subnormal = sign | (rng.integers(0, 3, n, dtype=U32) << U32(23)) | mant
    keep = rng.integers(0, 24, n, dtype=U32)  # significant fraction bits kept
    short_mant = mant & ~((U32(1) << (U32(23) - keep)) - U32(1))
    short = sign | (rng.integers(90, 165, n, dtype=U32) << U32(23)) | short_mant
    return np.select([kind == 0, kind == 1, kind == 2], [bits, moderate, subnormal], short)


def fp32_random_pairs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Random pairs: independent draws, plus near pairs (close exponents and significands:
    cancellation in add/sub), plus pairs whose exponents sum near the underflow and
    overflow limits of a product."""
    a = fp32_random(rng, n)
    b = fp32_random(rng, n)
    third = n // 3
    near = slice(0, third)
    flip = rng.integers(0, 1 << 12, third, dtype=U32)
    shift = rng.integers(0, 3, third, dtype=U32) << U32(23)
    b[near] = ((a[near] ^ flip) + shift) ^ (rng.integers(0, 2, third, dtype=U32) << U32(31))
    edge = slice(third, 2 * third)
    target = rng.choice(np.array([100, 110, 118, 122, 124, 125, 126, 127, 128, 378, 380, 381,
                                  382], dtype=np.int64), third)
    ea = rng.integers(1, 255, third).astype(np.int64)
    eb = np.clip(target - ea, 0, 254)
    mant_a = rng.integers(0, 1 << 23, third, dtype=U32)
    mant_b = rng.integers(0, 1 << 23, third, dtype=U32)
    a[edge] = (a[edge] & SIGN) | (ea.astype(U32) << U32(23)) | mant_a
    b[edge] = (b[edge] & SIGN) | (eb.astype(U32) << U32(23)) | mant_b
    return a, b


def _with_exponent(bits: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """``bits`` with the exponent field replaced by ``exponent`` (clipped to 0..255)."""
    field = np.clip(exponent, 0, 255).astype(U32) << U32(23)
    return (bits & U32(0x807F_FFFF)) | field


def _field(bits: np.ndarray) -> np.ndarray:
    return ((bits >> U32(23)) & U32(0xFF)).astype(np.int64)


def _short_significands(rng: np.random.Generator, n: int, bits: int, odd: bool) -> np.ndarray:
    """Finite float32 with ``bits`` significant bits (the last one set when ``odd``), random
    sign, exponents 2^-40 .. 2^40."""
    significand = rng.integers(1 << (bits - 1), 1 << bits, n) | int(odd)
    scale = 2.0 ** rng.integers(-40 - bits, 40 - bits, n) * np.where(rng.random(n) < 0.5, -1, 1)
    return (significand * scale).astype(np.float32).view(U32)


def fp32_ternary_specials(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Triples (a, b, c) for a*b + c: every named value in every position against every
    other (49^3), every exponent pair of the product with random and with edge mantissas
    and an addend whose exponent sits within 50 binades of the product's (where the
    terms overlap, cancel or meet the sticky bit), and every special addend (every
    exponent x edge mantissas) under random special products."""
    named = fp32_named()
    a1, b1, c1 = (x.reshape(-1) for x in np.meshgrid(named, named, named, indexing="ij"))
    ea, eb = np.meshgrid(np.arange(256, dtype=U32), np.arange(256, dtype=U32), indexing="ij")
    ea, eb = np.tile(ea.reshape(-1), 2), np.tile(eb.reshape(-1), 2)
    n = ea.size
    mantissas = np.concatenate([rng.integers(0, 1 << 23, n // 2, dtype=U32),
                                rng.choice(EDGE_MANTISSAS, n - n // 2)])
    signs = lambda: rng.integers(0, 2, n, dtype=U32) << U32(31)  # noqa: E731
    a2 = (ea << U32(23)) | mantissas | signs()
    b2 = (eb << U32(23)) | rng.permutation(mantissas) | signs()
    offset = rng.integers(-50, 51, n)
    c2 = _with_exponent(rng.permutation(mantissas) | signs(), _field(a2) + _field(b2) - 127
                        + offset)
    unary = fp32_unary_specials()
    c3 = np.repeat(unary, 20)
    a3, b3 = rng.choice(unary, c3.size), rng.choice(unary, c3.size)
    return (np.concatenate([a1, a2, a3]), np.concatenate([b1, b2, b3]),
            np.concatenate([c1, c2, c3]))


def fp32_random_triples(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]:
    """Random triples (a, b, c) for a*b + c, in five equal parts: independent draws;
    cancellation (c within a few ulps of -fl(a*b)); an addend within 52 binades of the
    product (every alignment, the sticky boundaries included); rounding traps (products of
    short significands that land on or next to a tie, with an addend far below that
    moves the exact sum off it by less than a float64 resolves); and exponents summing
    near the underflow and overflow limits of the product, with small or large addends."""
    a, b, c = fp32_random(rng, n), fp32_random(rng, n), fp32_random(rng, n)
    k = n // 5
    f32 = np.float32
    # cancellation
    part = slice(k, 2 * k)
    a[part] = _with_exponent(a[part], rng.integers(64, 190, k))
    b[part] = _with_exponent(b[part], rng.integers(64, 190, k))
    with np.errstate(all="ignore"):
        product = (a[part].view(f32) * b[part].view(f32)).astype(f32).view(U32)
    c[part] = (product ^ SIGN) + rng.integers(-3, 4, k).astype(U32)
    # every alignment
    part = slice(2 * k, 3 * k)
    c[part] = _with_exponent(c[part], _field(a[part]) + _field(b[part]) - 127
                             + rng.integers(-52, 53, k))
    # rounding traps
    part = slice(3 * k, 4 * k)
    bits = rng.choice(np.array([12, 13]), k)
    odd = rng.random(k) < 0.5
    a[part] = np.where(bits == 12, _short_significands(rng, k, 12, False),
                       _short_significands(rng, k, 13, True))
    b[part] = np.where(bits == 12, _short_significands(rng, k, 12, False),
                       _short_significands(rng, k, 13, True))
    with np.errstate(all="ignore"):
        exact = a[part].view(f32).astype(np.float64) * b[part].view(f32)
        far = (exact * 2.0 ** -rng.integers(25, 90, k)).astype(f32).view(U32)
    power = _with_exponent(rng.integers(0, 2, k, dtype=U32) << U32(31),
                           _field(a[part]) + _field(b[part]) - 127 + rng.integers(-30, 30, k))
    c[part] = np.where(odd, far ^ (rng.integers(0, 2, k, dtype=U32) << U32(31)), power)
    # underflow and overflow limits
    part = slice(4 * k, n)
    m = n - 4 * k
    target = rng.choice(np.array([60, 90, 100, 104, 110, 118, 122, 124, 125, 126, 127, 128,
                                  378, 380, 381, 382, 383]), m)
    ea = rng.integers(1, 255, m)
    a[part] = _with_exponent(a[part], ea)
    b[part] = _with_exponent(b[part], target - ea)
    c[part] = _with_exponent(c[part], np.where(target > 300, rng.integers(240, 256, m),
                                               rng.integers(0, 4, m)))
    return a, b, c


INT32_SPECIALS = np.unique(special.int32(special.OPERATOR_INT32)).view(U32)


def int32_random(rng: np.random.Generator, n: int) -> np.ndarray:
    """Uniform bit patterns mixed with values of random bit length (small magnitudes, and
    the integers just above 2^24 where int -> float rounding starts)."""
    bits = rng.integers(0, 1 << 32, n, dtype=U32)
    length = rng.integers(0, 33, n, dtype=U32)
    short = np.where(length >= 32, bits, bits & ((U32(1) << length) - U32(1)))
    signed = np.where(rng.integers(0, 2, n) == 1, (U32(0) - short), short).astype(U32)
    return np.where(rng.integers(0, 2, n) == 1, bits, signed).astype(U32)


def int32_binary_specials() -> tuple[np.ndarray, np.ndarray]:
    a, b = np.meshgrid(INT32_SPECIALS, INT32_SPECIALS, indexing="ij")
    return a.reshape(-1), b.reshape(-1)


def shift_amounts(rng: np.random.Generator, n: int) -> np.ndarray:
    """Shift amounts: mostly -40..40 (the in- and out-of-range edges), some extremes."""
    small = rng.integers(-40, 41, n).astype(np.int32).view(U32)
    return np.where(rng.integers(0, 8, n) == 0, rng.integers(0, 1 << 32, n, dtype=U32), small)


def _is_nan(bits: np.ndarray) -> np.ndarray:
    return (bits & U32(0x7FFF_FFFF)) > U32(0x7F80_0000)


@dataclass
class OpCheck:
    """The outcome of running one op's RTL module against the op table's reference."""

    module: str
    compared: int
    mismatches: list[str] = field(default_factory=list)  # the first few, formatted
    mismatch_count: int = 0
    noncanonical_nans: int = 0  # NaN outputs other than 0x7FC00000

    @property
    def passed(self) -> bool:
        return self.mismatch_count == 0


def reference_bits(op_name: str, dtype: str, operands: Sequence[np.ndarray]) -> np.ndarray:
    """The op table's numpy reference on ``operands`` as uint32 bits (bool for compares)."""
    from fpgakern.ir.ops import OPS  # the op table is above this layer's data, import late

    np_type = np.float32 if dtype == "float32" else np.int32
    op = OPS[op_name]
    # A condition operand (where's first) is a 1-bit port: its bit 0 is the bool.
    args = [(x & U32(1)) != 0 if op.condition and i == 0 else x.view(np_type)
            for i, x in enumerate(operands)]
    ref = np.asarray(op.reference(*args))
    return ref if ref.dtype == np.bool_ else ref.view(U32)


def check_against_reference(op_name: str, dtype: str, operands: Sequence[np.ndarray], *,
                            stall_pattern: np.ndarray | None = None) -> OpCheck:
    """Simulate the RTL module the op table names for (``op_name``, ``dtype``) at its
    table latency and compare bit for bit with the reference; any NaN matches any NaN
    when the result is float32."""
    from fpgakern.ir.ops import OPS

    op = OPS[op_name]
    impl = op.rtl[dtype]
    want = reference_bits(op_name, dtype, operands)
    out_bits = 1 if want.dtype == np.bool_ else 32
    got = simulate_operator(impl.module, operands, impl.latency, out_bits=out_bits,
                            stall_pattern=stall_pattern)
    same = got == want
    float_result = (op.result_dtype or dtype) == "float32"
    if float_result:
        same |= _is_nan(got) & _is_nan(want)
    bad = np.flatnonzero(~same)
    shown = [" ".join(f"{int(x[i]):#010x}" for x in operands)
             + f" -> got {int(got[i]):#010x}, want {int(want[i]):#010x}" for i in bad[:8]]
    nans = got[_is_nan(got)] if float_result else np.zeros(0, U32)
    return OpCheck(impl.module, int(want.size), shown, int(bad.size),
                   int((nans != U32(CANONICAL_NAN)).sum()))
