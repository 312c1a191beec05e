"""Which kernel x rung x dtype variants the default test run exercises in the slow
checks (C simulation, RTL simulation), and which wait for ``-m slow``."""

from __future__ import annotations

import pytest

from fpgakern.ir.kernel import NO_RTL_KINDS, SHAPED_KINDS
from fpgakern.ladder import RUNGS
from fpgakern.spec.library import Library

# Kinds no bundled kernel has, each simulated in RTL in the default tier by the test file
# named (a project of its own): the register kind is AMD's mailbox example's and a
# user's, not an operator of the library.
RTL_PROVEN_ELSEWHERE = {"registers": "tests/sim/test_registers_sim.py"}


def _family(rung: int) -> tuple[bool, int | None]:
    """The top template a rung's RTL uses: sequential (0, 1), dataflow (2, 3) or lanes in
    512-bit words (4, 5). The width of an element's lane is proven once per family."""
    r = RUNGS[rung]
    return r.dataflow, r.vector_bits


def _covers(kernel, rung: int, dtype: str, operators: bool) -> set[tuple]:
    """What checking one variant proves beyond the other variants.

    Each kind's template and microarchitecture at each rung (once, in any dtype); each
    element width in and out (``lane``: a dtype, and the result's where it differs) in
    each template family; each interface shape of each kind (number of inputs, scalars
    or none); the wiring of each operator it applies (operands, a bool condition) in its
    dtype; each reduction's accumulator. With ``operators`` (C simulation), also each
    operator itself in each dtype (its fk:: C++ helper, which only C simulation of a
    kernel compiles), each reduction's accumulator in each dtype, and each transform at
    each rung (its own adapters and tables). Without (RTL), each RTL operator and
    accumulator is proven on its own, bit for bit, by tests/oplib, and a kernel's
    simulation proves the datapath around it.
    """
    lane = ("lane", f"{dtype}->{kernel.output_dtype(dtype).name}")
    if not operators and kernel.kind in NO_RTL_KINDS:
        return set()  # no RTL to simulate (its steps say why); -m slow skips them too
    if kernel.kind == "transform":
        if operators:
            return {("rung", "transform", kernel.transform, rung), (*lane, _family(rung))}
        # RTL: rung 3 is rung 2's kernel as N CUs. Only the streaming kernels (2-4) have
        # adapters, where a transform's input and result differ (rfft's real input and
        # kept bins, irfft's Hermitian row buffer and real output): each once (each model
        # is a minute of verilating; every transform at every rung under -m slow).
        covered = {("rung", "transform", 2 if rung == 3 else rung)}
        adapted = dtype != kernel.output_dtype(dtype).name
        return covered | ({(*lane, "stream")} if RUNGS[rung].dataflow and adapted else set())
    ops = kernel.ops_used(dtype)
    # In RTL simulation a shaped kind's rung 3 is its rung-2 kernel as N instances: the
    # CUs' split of channels and rows is proven on the RTL by the hw_emu tests
    # (tests/runtime/test_torch_shaped_kernels.py, layer_norm at rung 3).
    # So is a contraction's: its CUs' split of the blocks (unit, units) is simulated in RTL
    # under -m slow (every variant), and by default in C simulation and on sw_emu.
    if not operators and rung == 3 and kernel.kind in (*SHAPED_KINDS, "contraction"):
        rung = 2
    covered = {("rung", str(kernel.kind), rung), (*lane, _family(rung)),
               ("shape", len(kernel.inputs), bool(kernel.scalars), str(kernel.kind))}
    covered |= {("wiring", op.arity, op.condition, dtype) for op in ops}
    # An index reduction (argmax, argmin) once per kernel, in one of its dtypes: its
    # accumulator's pick is proven in every dtype by tests/oplib/test_reduce.py, and the
    # rest of the kernel (its int64 result word) is the same in both.
    covered |= {("reduce", op.name, None if op.picks or not operators else dtype)
                for op in ops if op.kind == "reduce"}
    if operators:
        covered |= {("op", op.name, None if op.picks else dtype) for op in ops}
    return covered


def _datapath_depth(kernel, dtype: str) -> int:
    """The summed RTL latency of the operators a variant applies: a proxy for the size
    of its datapath, and so of its Verilator model and simulation (a transform's core is
    the same at every rung: 0)."""
    if not kernel.expression:
        return 0
    depth = 0
    for op in kernel.ops_used(dtype):
        # complex64 lowers to float32 operators (docs/rtl.md).
        impl = op.rtl.get(dtype) or op.rtl.get("float32")
        depth += impl.latency if impl else 0
    return depth


def representative_variants(library: Library, *,
                            operators: bool = True) -> list[tuple[str, int, str]]:
    """Few variants that still cover each capability (:func:`_covers`): every rung of every
    kernel kind, every element width in every template family, every interface shape,
    every operand wiring and reduction accumulator, and with ``operators`` every operator
    in every dtype a kernel applies it in. Chosen greedily: the variant that proves the
    most not yet proven first; ties go to the lower rung (a smaller, quicker model), then
    to the shallower datapath (:func:`_datapath_depth`: bias_add proves a broadcast rung
    as well as batch_norm does, in half the model), then to the name. What is left out
    waits for ``-m slow`` and for the nightly ``fpgakern build --all``, which run every
    variant.

    C simulation covers every operator (``operators=True``): an operator's fk:: C++ helper
    is compiled only inside a kernel. RTL simulation need not: every RTL operator is
    proven on its own, bit for bit with its latency and II=1, by tests/oplib, so a
    kernel's RTL simulation has to prove the datapath around it.
    """
    candidates = {(k.qualname, r, d): _covers(k, r, d, operators)
                  for k in library.kernels for d in k.dtypes for r in k.rungs}
    depth = {(k.qualname, d): _datapath_depth(k, d) for k in library.kernels for d in k.dtypes}
    needed = set().union(*candidates.values())
    chosen: list[tuple[str, int, str]] = []
    while needed:
        best = min(candidates, key=lambda v: (-len(candidates[v] & needed), v[1],
                                              depth[v[0], v[2]], v))
        chosen.append(best)
        needed -= candidates.pop(best)
    return sorted(chosen)


def all_variants(library: Library) -> list[tuple[str, int, str]]:
    return [(k.qualname, r, d) for k in library.kernels for d in k.dtypes for r in k.rungs]


def variant_params(library: Library, *, operators: bool = True) -> list:
    """Every variant as a pytest parameter, the ones outside ``representative_variants``
    marked slow."""
    fast = set(representative_variants(library, operators=operators))
    return [pytest.param(*v, id=f"{v[0].replace('/', '.')}-{v[1]}-{v[2]}",
                         marks=() if v in fast else pytest.mark.slow)
            for v in all_variants(library)]
