"""A register kernel's spec (``control: auto_restart``): scalars in, scalar results out.

A register kernel touches no memory and no stream: its scalars and its results are
registers of ``s_axi_control``. It is started once (XRT's ``xrt::autostart``), restarts
itself, and the host exchanges the scalars and results with it through the HLS mailbox
(``xrt::mailbox``), as AMD's ``mailbox_auto_restart_xrt`` example does:

    kernel: mbox
    inputs: []
    scalars: {in1: 0, in2: 0}
    outputs: [add, mult]
    expression: {add: in1 + in2, mult: in1 * in2}
    control: auto_restart
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fpgakern.errors import shown
from fpgakern.ir import expr
from fpgakern.ir.kernel import Kernel, parse_graph
from fpgakern.spec import schema
from fpgakern.spec.names import check_identifier
from fpgakern.spec.yamlpos import Located

# The dtypes a register kernel is built for: its registers are 32-bit words.
REGISTER_DTYPES = ("float32", "int32")
# What a register kernel's spec may not say: it has no tensors, so no shapes, streams,
# rungs beyond 0 (nothing to stage) or torch op.
_NOT_FOR_REGISTERS = ("shapes", "let", "accuracy", "streams", "mirrors", "transform",
                      "contraction", "indices", "compute_units")


def registers_kernel(doc: Located, category: str, merged: dict[str, Any],
                     source: Callable[[str], Located]) -> Kernel:
    """Validate a register kernel (the module's docstring) into a Kernel."""
    for key in _NOT_FOR_REGISTERS:
        if key in merged:
            raise source(key).error(key, f"a register kernel (control: auto_restart) has no "
                                         f"{key}: its arguments are scalars and results")
    name = check_identifier(doc, "kernel", merged["kernel"])
    if name != doc.file.stem:
        raise doc.error("kernel", f"name {shown(name)} must match the file name "
                                  f"{shown(doc.file.stem)}")
    if merged.get("inputs", []) not in ([], None):
        raise source("inputs").error("inputs", "a register kernel has no tensor inputs "
                                               "(inputs: []): its inputs are its scalars")
    outputs = schema.parse_names(source("outputs"), "outputs", merged["outputs"])
    scalars = schema.parse_scalars(source("scalars"), merged.get("scalars"))
    dtypes = schema.parse_dtypes(source("dtypes"), merged["dtypes"])
    for i, dtype in enumerate(dtypes):
        if dtype not in REGISTER_DTYPES:
            raise source("dtypes").error("dtypes", f"a register kernel is built for "
                                                   f"{' and '.join(REGISTER_DTYPES)} (32-bit "
                                                   f"registers), not {dtype}", "dtypes", i)
    schema.check_defaults(source("scalars"), scalars, dtypes)
    schema.check_no_clashes(doc, name, (), outputs, scalars)
    rungs = schema.parse_rungs(source("rungs"), merged.get("rungs", [0]))
    if rungs != (0,):
        raise source("rungs").error("rungs", "a register kernel builds rung 0 only (it has no "
                                             "memory traffic to buffer, stream or widen)")
    results = _results(doc, merged.get("expression"), outputs)
    kernel = Kernel(
        name=name, category=category, doc=schema.one_line(doc, "doc", merged["doc"]),
        mirrors=None, inputs=(), scalars=scalars, outputs=outputs, dtypes=dtypes,
        expression="", rungs=rungs, compute_units=1, source=doc.file,
        tops=schema.parse_tops(doc, merged.get("top"), name, dtypes,
                          {*outputs, *(s.name for s in scalars)}),
        auto_restart=True, results=results,
    )
    _check_results(doc, kernel)
    return schema.with_arg_order(doc, merged.get("args"), kernel)


def _results(doc: Located, value: Any, outputs: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``expression``: a mapping of each output to its expression, in the outputs' order."""
    if value is None:
        raise doc.error("expression", "missing: a register kernel gives each output its "
                                      f"expression ({{{outputs[0]}: ...}})")
    if not isinstance(value, dict):
        raise doc.error("expression", "a register kernel's expression is a mapping of each "
                                      f"output to its expression, e.g. {{{outputs[0]}: a + b}}")
    for key in value:
        if key not in outputs:
            raise doc.error("expression", f"{shown(key)} is not an output "
                                          f"({', '.join(outputs)})", "expression", key)
    out = []
    for name in outputs:
        if name not in value:
            raise doc.error("expression", f"output {name} has no expression")
        text = value[name]
        if isinstance(text, bool) or not isinstance(text, str | int | float):
            raise doc.error("expression", f"{name}: expected an expression such as 'a + b'",
                            "expression", name)
        out.append((name, str(text)))
    return tuple(out)


def _check_results(doc: Located, kernel: Kernel) -> None:
    """Each result parses for every dtype, keeps the kernel's dtype (a 32-bit register),
    and the results together use every scalar."""
    used: set[str] = set()
    for name, text in kernel.results:
        try:
            expr.syntax(text)
        except expr.ExprError as err:
            raise doc.error("expression", f"{name}: {err}", "expression", name) from None
        for dtype in kernel.dtypes:
            suffix = f" (for {dtype})" if len(kernel.dtypes) > 1 else ""
            try:
                root, _ = parse_graph(text, (), kernel.scalars, (), False, dtype)
            except expr.ExprError as err:
                raise doc.error("expression", f"{name}: {err}{suffix}", "expression",
                                name) from None
            if expr.reduction_of(root) is not None:
                raise doc.error("expression", f"{name}: a register kernel has no elements "
                                              "to reduce", "expression", name)
            if root.dtype != dtype:
                raise doc.error("expression", f"{name}: the result is {root.dtype}{suffix}; a "
                                              f"register kernel's results keep its dtype",
                                "expression", name)
            used |= {n.name for n in root.walk() if isinstance(n, expr.Scalar)}
    for scalar in kernel.scalars:
        if scalar.name not in used:
            raise doc.error("scalars", f"{shown(scalar.name)} is declared but not used",
                            "scalars", scalar.name)

