"""``torch.compile(model, backend="fpgakern")``: the dynamo backend.

Registered through the package's entry points (``torch_dynamo_backends``), so installing
fpgakern is enough. Dynamo hands over a graph; aot_autograd turns it into aten
operators; the fusion plan (compiler.fusion) picks the kernels, the pipeline builds them
(compiler.build), and compiler.program runs the graph with them.

Options (``torch.compile(..., options={...})``):

* ``target``: ``sw_emu`` or ``hw_emu`` (default ``$XCL_EMULATION_MODE``, else sw_emu);
  ``hw`` is refused with the reason (no v++-linked .xclbin, no pyxrt here);
* ``rung``: the ladder rung every kernel is built at (default 4);
* ``strict``: an unsupported node, or a kernel that fails to build, is an error naming it
  (default ``$FPGAKERN_STRICT``, else off);
* ``cache_dir``: where the fused specs and their build tree live (default
  ``.fpgakern/compile`` under the project's root);
* ``verbose``: print the compile report (compiler.report) to stderr.
"""

from __future__ import annotations

import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torch import fx
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

from fpgakern import paths
from fpgakern.compiler import fusion
from fpgakern.compiler import report as reports
from fpgakern.compiler.build import Validator, build, default_cache, spec_folder
from fpgakern.compiler.program import CompiledGraph
from fpgakern.compiler.report import CompileReport, KernelEntry, LeftOut
from fpgakern.compiler.support import MatrixTerm, describe
from fpgakern.errors import ToolError, UsageError, display_path
from fpgakern.ladder import LAST_RUNG
from fpgakern.ladder import plan as ladder_plan
from fpgakern.runtime.device import (
    Device,
    KernelHandle,
    KernelUnavailable,
    default_target,
    open_plans,
)
from fpgakern.runtime.program import ProgramVariant, default_cu_names
from fpgakern.runtime.torch_ops import FallbackError, FallbackWarning, is_strict
from fpgakern.spec.library import Library

TARGETS = ("sw_emu", "hw_emu", "hw")


@dataclass(frozen=True)
class Options:
    target: str
    rung: int = 4
    strict: bool = False
    cache_dir: Path | None = None
    verbose: bool = False

    @classmethod
    def parse(cls, given: dict[str, Any] | None) -> Options:
        if given is not None and not isinstance(given, dict):
            raise UsageError(f"torch.compile(backend='fpgakern'): options must be a dict, "
                             f"got {type(given).__name__}")
        given = dict(given or {})
        known = {"target", "rung", "strict", "cache_dir", "verbose"}
        unknown = sorted(set(given) - known)
        if unknown:
            raise UsageError(f"torch.compile(backend='fpgakern'): unknown option(s) "
                             f"{', '.join(unknown)} (options: {', '.join(sorted(known))})")
        target = given.get("target") or default_target()
        if target not in TARGETS:
            raise UsageError(f"torch.compile(backend='fpgakern'): target {target!r} is not "
                             f"one of {', '.join(TARGETS)}")
        if target == "hw":
            raise UsageError("torch.compile(backend='fpgakern'): target 'hw' is not built "
                             "yet (it needs an .xclbin linked by v++ and XRT's pyxrt); "
                             "use sw_emu or hw_emu")
        rung = given.get("rung", 4)
        if isinstance(rung, bool) or not isinstance(rung, int) or not 0 <= rung <= LAST_RUNG:
            raise UsageError(f"torch.compile(backend='fpgakern'): rung {rung!r} is not a "
                             f"rung (0-{LAST_RUNG})")
        strict = given.get("strict")
        cache = given.get("cache_dir")
        if cache is not None and Path(cache).exists() and not Path(cache).is_dir():
            raise UsageError(f"torch.compile(backend='fpgakern'): cache_dir "
                             f"{display_path(cache)} is not a folder")
        return cls(target, rung, is_strict() if strict is None else bool(strict),
                   Path(cache).resolve() if cache is not None else None,
                   bool(given.get("verbose", False)))


def fpgakern(gm: fx.GraphModule, example_inputs: list[Any],
             options: dict[str, Any] | None = None, **unused: Any) -> Any:
    """The backend dynamo calls: aot_autograd with fpgakern's compiler on the forward
    graph (the backward graph, when there is one, runs in torch)."""
    parsed = Options.parse(options)

    def forward(graph: fx.GraphModule, inputs: list[Any]) -> Any:
        return compile_graph(graph, parsed)

    def backward(graph: fx.GraphModule, inputs: list[Any]) -> Any:
        return make_boxed_func(graph.forward)

    return aot_autograd(fw_compiler=forward, bw_compiler=backward)(gm, example_inputs)


def compile_graph(gm: fx.GraphModule, options: Options) -> Any:
    """One aten graph as a callable that runs its fused kernels on the device."""
    started = time.perf_counter()
    cache = options.cache_dir or default_cache()
    nodes = sum(n.op == "call_function" for n in gm.graph.nodes)
    result = CompileReport(options.target, options.rung, cache, nodes)
    validator = Validator(options.target, options.rung)
    try:
        plan = fusion.plan(gm, validator)
        result.partitions = plan.partitions
        result.left_out = [LeftOut(u.node.name, describe(u.node), u.reason)
                           for u in plan.left_out]
        if options.strict and plan.left_out:
            first = plan.left_out[0]
            raise FallbackError(f"strict: node {first.node.name} ({describe(first.node)}) "
                                f"cannot run on fpgakern: {first.reason}")
        compiled: Any = make_boxed_func(gm.forward)
        handles: dict[str, KernelHandle] = {}
        device: Device | None = None
        if plan.specs:
            built = build(plan.specs, cache, options.target, options.rung, validator)
            device = built.device
            result.tasks_run, result.tasks_cached = built.tasks_run, built.tasks_cached
            result.build_reports = built.report.folder
            for spec in plan.specs:
                problem = built.problems.get(spec.name)
                if problem is None:
                    try:
                        handle = built.device.kernel(spec.qualname)
                        handle.variant("float32")
                        handles[spec.name] = handle
                    except KernelUnavailable as err:
                        problem = str(err)
                result.kernels.append(KernelEntry(
                    spec.qualname, spec.kind, tuple(n.name for n in spec.nodes),
                    tuple(n.name for n in spec.inputs),
                    spec_folder(cache) / f"{spec.name}.yaml", problem))
                if problem is not None:
                    _refused(spec.qualname, problem, options.strict)
                    result.left_out += [LeftOut(n.name, describe(n),
                                                f"kernel {spec.qualname} cannot run: {problem}")
                                        for n in spec.nodes]
        matrices: dict[fx.Node, tuple[MatrixTerm, KernelHandle]] = {}
        if plan.matrices:
            device = device or open_plans([], options.target)
            matrices = _matrix_handles(plan.matrices, device, options, result)
        order = {node.name: i for i, node in enumerate(gm.graph.nodes)}
        result.kernels.sort(key=lambda k: order.get(k.nodes[-1], 0))  # graph order
        if device is not None and (handles or matrices):
            compiled = CompiledGraph(gm, plan.specs, handles, device, matrices)
            result.graph = compiled
    finally:
        validator.close()
    result.seconds = time.perf_counter() - started
    reports.add(result)
    if options.verbose:
        print(result, file=sys.stderr)
    return compiled


def _matrix_handles(terms: list[MatrixTerm], device: Device, options: Options,
                    result: CompileReport) -> dict[fx.Node, tuple[MatrixTerm, KernelHandle]]:
    """The bundled contraction kernels the matrix nodes run on, added to ``device`` at the
    compile's rung (or the highest below it the kernel has), their models built now; a
    kernel that cannot run leaves its nodes to torch, with the reason."""
    library = Library(paths.library_dir())
    handles: dict[str, KernelHandle | str] = {}
    found: dict[fx.Node, tuple[MatrixTerm, KernelHandle]] = {}
    for term in terms:
        if term.kernel not in handles:
            kernel = library.get(term.kernel)
            rung = max(r for r in kernel.rungs if r <= options.rung) \
                if min(kernel.rungs) <= options.rung else min(kernel.rungs)
            made = ladder_plan(kernel, rung, "float32")
            cus = made.placement.compute_units
            device.program.add(ProgramVariant(made, cus, default_cu_names(made.top, cus)))
            try:
                handle = device.kernel(term.kernel)
                handle.target("float32")  # builds (or finds) the emulation model
                handles[term.kernel] = handle
            except (KernelUnavailable, ToolError) as err:
                handles[term.kernel] = str(err)
        got = handles[term.kernel]
        problem = got if isinstance(got, str) else None
        kernel_source = library.get(term.kernel).source
        result.kernels.append(KernelEntry(
            term.kernel, "contraction", tuple(n.name for n in (*term.absorbed, term.node)),
            tuple(n.name for n in term.operands), kernel_source, problem))
        if isinstance(got, str):
            _refused(term.kernel, got, options.strict)
            result.left_out.append(LeftOut(term.node.name, describe(term.node),
                                           f"kernel {term.kernel} cannot run: {got}"))
            continue
        found[term.node] = (term, got)
    return found


def _refused(qualname: str, problem: str, strict: bool) -> None:
    message = f"{qualname} cannot run ({problem}); its nodes run in torch"
    if strict:
        raise FallbackError(f"strict: {message}")
    warnings.warn(message, FallbackWarning, stacklevel=2)
