"""The HLS C++ of a contraction kernel (issue 30): every rung of its ladder computes each
output in the one declared order (fpgakern.ir.contraction.ACCUMULATION_ORDER).

Rung 0 loops naively; rung 1 tiles A and B on chip (TM x TK and TK x TN, each element read
once per tile); rung 2 runs k outermost and the tile's TM x TN independent outputs at
II=1, so the adder's latency is hidden by other outputs, never by splitting a sum; rung 3
splits the output tiles over compute units; rung 4 is a PR x PC array of PEs, each
interleaving its UR x UC outputs, behind ports HLS widens to 512 bits.
"""

from __future__ import annotations

from fpgakern import paths
from fpgakern.backends import templates
from fpgakern.backends.hls.cexpr import expression
from fpgakern.ir.contraction import PARTIALS, Contraction
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.kernel import ACC
from fpgakern.ladder import Plan

# The tile and the PE array (rungs 1-4). Ideal multiply-accumulates per cycle: rung 0 and
# 1 one per adder latency, rungs 2 and 3 one per CU, rung 4 PR * PC (docs/matrix.md).
TM = TN = TK = 32
PR = PC = 4
# The C names of the canonical loop variables and sizes (fpgakern.ir.contraction).
_VARIABLES = {"batch": "fk_b", "free_a": "fk_i", "free_b": "fk_j", "summed": "fk_p"}
_SIZES = {"batch": "batch", "free_a": "m", "free_b": "n", "summed": "k"}
HEADERS = ("fpgakern_ops.h",)


def _roles(contraction: Contraction) -> dict[str, str]:
    """index letter -> role (batch, free_a, free_b, summed)."""
    roles = {"batch": contraction.batch, "free_a": contraction.free_a,
             "free_b": contraction.free_b, "summed": contraction.summed}
    return {index: role for role, index in roles.items() if index is not None}


def offset(indices: str, contraction: Contraction) -> str:
    """The row-major element offset of a tensor indexed by ``indices``, in the kernel's
    loop variables (64-bit, so that no product of sizes overflows)."""
    roles = _roles(contraction)
    terms = []
    for position, index in enumerate(indices):
        later = [_SIZES[roles[i]] for i in indices[position + 1:]]
        term = " * ".join([f"(int64_t){_VARIABLES[roles[index]]}", *later])
        terms.append(term)
    return " + ".join(terms) or "0"


def context(plan: Plan) -> dict[str, object]:
    kernel = plan.kernel
    contraction = kernel.contraction
    assert contraction is not None, kernel.qualname
    dtype = plan.dtype
    ctype = dtype.ctype
    scalar_type = DTYPES[dtype.scalar_dtype].ctype
    a, b = kernel.inputs[:2]
    out = kernel.output
    names = {ACC: "fk_acc", **{s.name: s.name for s in kernel.scalars}}
    for name, indices in kernel.indices:
        names[name] = f"{name}[{offset(indices, contraction)}]"
    pointers = [*kernel.inputs, out]
    params = [f"const {ctype}* {name}" for name in kernel.inputs] + [f"{ctype}* {out}"]
    params += [f"{scalar_type} {s.name}" for s in kernel.scalars]
    params += [f"int {size}" for size in kernel.size_args]
    rung = plan.rung.index
    multi_cu = plan.rung.multi_cu  # rungs 3 and 5
    if multi_cu:
        params += ["int unit", "int units"]
    call = [f"fk_in_{name}.data()" for name in kernel.inputs] + ["fk_out.data()"]
    call += [s.name for s in kernel.scalars] + list(kernel.size_args)
    return {
        "top": plan.top, "definition": kernel.definition, "contraction": contraction,
        "rung": rung, "rung_name": plan.rung.name, "multi_cu": multi_cu,
        "array": plan.rung.vector_bits is not None,  # rungs 4 and 5: the PE array
        "T": ctype, "S": scalar_type, "is_float": dtype.is_float,
        "params": ", ".join(params), "call_args": ", ".join(call),
        "signature_doc": ", ".join(p.split()[-1] for p in params),
        "pointers": pointers, "bundles": {p: plan.arch.bundle(p) for p in pointers},
        "scalar_args": [*(s.name for s in kernel.scalars),
                                              *kernel.size_args,
                                              *(("unit", "units") if multi_cu else ())],
        "scalars": [s.name for s in kernel.scalars], "inputs": kernel.inputs,
        "a_elem": f"{a}[{offset(contraction.a, contraction)}]",
        "b_elem": f"{b}[{offset(contraction.b, contraction)}]",
        "out": out, "out_offset": offset(contraction.out, contraction),
        "epilogue": f"{ctype}({expression(kernel.graph(dtype.name), names)})",
        "tm": TM, "tn": TN, "tk": TK, "pr": PR, "pc": PC, "partials": PARTIALS,
        "units": plan.placement.compute_units,
    }


def render(plan: Plan) -> dict[str, str]:
    """The kernel, its C-simulation testbench and the headers they include."""
    ctx = context(plan)
    root = paths.data_dir("hls_templates")
    files = {f"{plan.top}.cpp": templates.render(root, "contraction", "kernel.cpp.j2", **ctx),
             f"{plan.top}_tb.cpp": templates.render(root, "contraction", "testbench.cpp.j2",
                                                    **ctx)}
    for header in HEADERS:
        files[header] = (root / "include" / header).read_text(encoding="utf-8")
    return files


def ideal_macs_per_cycle(rung: int, compute_units: int, add_latency: int) -> float:
    """Multiply-accumulates per cycle a rung's loop structure allows at best: rungs 0-1
    wait for each sum (1 / latency), rung 2 one per cycle, rung 3 one per CU, rung 4 one
    per PE."""
    return {0: 1 / add_latency, 1: 1 / add_latency, 2: 1.0, 3: float(compute_units),
            4: float(PR * PC)}.get(rung, float(PR * PC * compute_units))
