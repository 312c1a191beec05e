"""Which kernel x rung x dtype variants the default test run exercises in the slow
checks (C simulation, RTL simulation), and which wait for ``-m slow``."""

from __future__ import annotations

import pytest

from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.kernel import SHAPED_KINDS
from fpgakern.ladder import RUNGS
from fpgakern.spec.library import Library


def _covers(kernel, rung: int, dtype: str, operators: bool) -> set[tuple]:
    """What simulating one variant proves beyond the other variants: its kind's template
    and microarchitecture at its rung and dtype, the shape of its interface (inputs,
    scalars), the wiring of each operator it applies (operands, a bool condition) and its
    reduction's accumulator, in its dtype; with ``operators``, also each operator itself
    (its fk:: C++ helper, which only C simulation of a kernel compiles)."""
    if kernel.kind == "transform":
        # C simulation: each transform at each rung (its own adapters and tables). RTL
        # simulation: one transform per rung, rung 3 being rung 2's kernel as N CUs; the
        # other transforms' adapters run on hw_emu (tests/runtime/test_spectral_kernels.py)
        # and every transform's RTL at every rung under -m slow.
        if operators:
            return {("rung", "transform", kernel.transform, rung)}
        return {("rung", "transform", 2 if rung == 3 else rung)}
    if not operators and DTYPES[dtype].is_complex:
        # complex64's RTL is the float32 operators' pipeline over its lowering, which
        # tests/rtl/test_complex_lowering.py proves bit for bit against the reference (each
        # operator: tests/oplib). What simulating it proves beyond that is the 64-bit lane
        # in each top template: 64-bit ports at the sequential rungs (0-1) and the dataflow
        # ones (2-3), and 8 lanes in 512 bits (rung 4): add at rungs 0, 2 and 4; and a
        # float32 result's narrower output (packed two to a beat of the shared bundle at
        # rungs 0-1, a port of its own after): abs, angle, real or imag at 0, 2 and 4.
        dtype = f"{dtype}->{kernel.output_dtype(dtype).name}"
        r = RUNGS[rung]
        return {("lane", dtype, r.dataflow, r.vector_bits)}
    ops = kernel.ops_used(dtype)
    # In RTL simulation a shaped kind's rung 3 is its rung-2 kernel as N instances: the
    # CUs' split of channels and rows is proven on the RTL by the hw_emu tests
    # (tests/runtime/test_torch_shaped_kernels.py, layer_norm at rung 3), so the rung-2
    # variant covers it (each model is a minute of verilating on 2 cores).
    if not operators and rung == 3 and kernel.kind in SHAPED_KINDS:
        rung = 2
    covered = {("rung", str(kernel.kind), dtype, rung),
               ("shape", len(kernel.inputs), bool(kernel.scalars), str(kernel.kind), dtype)}
    covered |= {("wiring", op.arity, op.condition, dtype) for op in ops}
    # An index reduction (argmax, argmin) once per kernel, in one of its dtypes: its
    # accumulator's pick is proven in every dtype by tests/oplib/test_reduce.py, and the
    # rest of the kernel (its int64 result word) is the same in both.
    covered |= {("reduce", op.name, None if op.picks else dtype) for op in ops
                if op.kind == "reduce"}
    if operators:
        covered |= {("op", op.name, None if op.picks else dtype) for op in ops}
    return covered


def representative_variants(library: Library, *,
                            operators: bool = True) -> list[tuple[str, int, str]]:
    """Few variants that still cover each capability: every rung of every kernel kind in
    every dtype, every interface shape (number of inputs, scalars or none), every operand
    wiring and reduction accumulator, and with ``operators`` every operator in every dtype
    a kernel applies it in. Chosen greedily: the variant that proves the most not yet
    proven first, the lower rung (a smaller, quicker model) and then the name breaking
    ties. What is left out waits for ``-m slow`` and for the nightly ``fpgakern build
    --all``, which run every variant.

    C simulation covers every operator (``operators=True``): an operator's fk:: C++ helper
    is compiled only inside a kernel. RTL simulation need not: every RTL operator is
    proven on its own, bit for bit with its latency and II=1, by tests/oplib, so a
    kernel's RTL simulation has to prove the datapath around it.
    """
    candidates = {(k.qualname, r, d): _covers(k, r, d, operators)
                  for k in library.kernels for d in k.dtypes for r in k.rungs}
    needed = set().union(*candidates.values())
    chosen: list[tuple[str, int, str]] = []
    while needed:
        best = min(candidates, key=lambda v: (-len(candidates[v] & needed), v[1], v))
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
