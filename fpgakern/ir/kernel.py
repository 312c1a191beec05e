"""The kernel IR: one validated kernel spec, typed per dtype."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fpgakern.ir import expr, fft
from fpgakern.ir import shapes as shape_rules
from fpgakern.ir.contraction import Contraction
from fpgakern.ir.dtypes import DTYPES, RESULT_DTYPES, DType
from fpgakern.ir.ops import EXACT, Accuracy, Op

# What shape of computation a kernel is; every generator and checker dispatches on it,
# never on the folder (category) a spec sits in. Three need a spec's ``shapes``
# (fpgakern.ir.shapes); ``transform`` is a spec's ``transform:`` (fpgakern.ir.fft);
# ``contraction`` a spec's ``contraction:`` (fpgakern.ir.contraction).
# ``registers`` a spec's ``control: auto_restart``: scalars in, scalars out, no memory.
KernelKind = Literal["elementwise", "reduction", "broadcast", "row_reduction", "row_map",
                     "transform", "contraction", "registers"]
KINDS: tuple[KernelKind, ...] = ("elementwise", "reduction", "broadcast", "row_reduction",
                                 "row_map", "transform", "contraction", "registers")
# The one place that exempts a kind from the rule that every kind is generated, linted
# and simulated in RTL (tests/test_variant_selection.py): each with its reason. The
# build's RTL steps report the reason as their outcome instead of running.
NO_RTL_KINDS: dict[KernelKind, str] = {}
# Kinds with no C++ host wrapper (XRT host code) yet, each with its reason: the
# host and xo steps report it as their outcome.
NO_HOST_KINDS: dict[KernelKind, str] = {
    "registers": "a register kernel is run by a host program of your own, started once "
                 "with xrt::autostart and fed through xrt::mailbox (docs/runtime.md); "
                 "fpgakern writes no host wrapper or torch op for it",
}
# Kinds with no .xo yet (a subset of NO_HOST_KINDS; a register kernel and a contraction
# have one).
NO_XO_KINDS: dict[KernelKind, str] = {}
# Kinds the Python runtime, the torch ops and the torch.compile backend cannot run (a
# subset of NO_HOST_KINDS).
NO_RUNTIME_KINDS: dict[KernelKind, str] = {"registers": NO_HOST_KINDS["registers"]}
# The name a contraction's epilogue (its ``expression``) gives the contracted value.
ACC = "acc"
SHAPED_KINDS: tuple[KernelKind, ...] = ("broadcast", "row_reduction", "row_map")

# The judges (fpgakern.verify.compare) and the C-simulation testbenches follow up to this
# many inner inexact applications exactly ((2k + 1)^m evaluations of the reference, 125 at
# most with k = 2); beyond, their bounds add (Kernel.followed_applications).
MAX_FOLLOWED = 3


@dataclass(frozen=True)
class ScalarArg:
    """A scalar kernel argument with its default (torch.add's ``alpha=1``)."""

    name: str
    default: float | int


@dataclass(frozen=True)
class Kernel:
    """A kernel of the library, as its spec declares it."""

    name: str
    category: str
    doc: str
    mirrors: str | None
    inputs: tuple[str, ...]
    scalars: tuple[ScalarArg, ...]
    outputs: tuple[str, ...]
    dtypes: tuple[str, ...]
    expression: str
    rungs: tuple[int, ...]
    compute_units: int
    source: Path
    # The spec's ``shapes`` (tensor name -> dimension names) and ``let`` (name ->
    # expression text), each in the spec's order; empty for most kernels.
    shapes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    lets: tuple[tuple[str, str], ...] = ()
    # A shaped kernel's stated accuracy (``accuracy`` key), where its ops' classes do not
    # decide it: the row kinds, whose statistics the hardware sums in its own order.
    stated_accuracy: Accuracy | None = None
    # A spectral kernel's transform (fft, ifft, rfft, irfft): rows of its one input
    # transformed along the last dimension, every result times its one scalar ``scale``
    # (torch's norm). Such a kernel has no expression (``expression`` is "").
    transform: fft.Transform | None = None
    # The spec's ``top`` (dtype -> hardware top name), for the dtypes it names; the
    # others keep the default name (:meth:`top_name`).
    tops: tuple[tuple[str, str], ...] = ()
    # The spec's ``streams``: inputs and outputs that are AXI4-Stream ports (``hls::stream``
    # arguments, joined to other kernels by the link's stream_connect) instead of pointers
    # to device memory. Only elementwise kernels have them (fpgakern.ir.streams).
    streams: tuple[str, ...] = ()
    # The spec's ``control: free_running``: no control port (ap_ctrl_none). The kernel runs
    # from reset, one element per input beat, for as long as its streams carry data.
    free_running: bool = False
    # The spec's ``args``: the C signature's argument order as the spec declares it (every
    # input, output, scalar and size argument once, e.g. ``c, a, b, n`` for AMD's
    # ``vector_add(c, a, b, n)``); empty: inputs, output, scalars, then the sizes.
    arg_order: tuple[str, ...] = ()
    # A contraction kernel's index sets (its first two inputs are the operands), and the
    # indices of each further input its epilogue reads (``bias: n``), in spec order.
    contraction: Contraction | None = None
    indices: tuple[tuple[str, str], ...] = ()
    # The spec's ``control: auto_restart``: a register kernel (kind ``registers``). Its
    # inputs are its scalars, its outputs scalar results in s_axi_control, each with its
    # expression (``results``, in the outputs' order; ``expression`` is ""). Started once,
    # it restarts itself; the host exchanges the scalars through the HLS mailbox.
    auto_restart: bool = False
    results: tuple[tuple[str, str], ...] = ()

    @property
    def qualname(self) -> str:
        """``category/name``, the way users name a kernel on the command line."""
        return f"{self.category}/{self.name}"

    @property
    def definition(self) -> str:
        """What the kernel computes, as a line: its expression, or its transform."""
        if self.transform is not None:
            return f"{self.transform}({self.inputs[0]}) * scale"
        if self.contraction is not None:
            return f"{ACC} = {self.contraction.text}; {self.expression}"
        if self.results:
            return "; ".join(f"{name} = {text}" for name, text in self.results)
        return self.expression

    @property
    def epilogue_inputs(self) -> tuple[str, ...]:
        """The inputs an expression names: all of them, but a contraction's operands."""
        return self.inputs[2:] if self.contraction is not None else self.inputs

    @property
    def output(self) -> str:
        return self.outputs[0]

    def top_name(self, dtype_name: str) -> str:
        """The C/RTL top name of one dtype variant, unique across the library: the spec's
        ``top`` for it (``vadd``), else ``<kernel>_<dtype tag>`` (``add_f32``). It names
        the HLS function, the RTL module, the .xo, the xclbin kernel and the host class."""
        return dict(self.tops).get(dtype_name) or default_top_name(self.name, dtype_name)

    @property
    def top_names(self) -> tuple[str, ...]:
        """The top of each dtype variant, in the spec's dtype order."""
        return tuple(self.top_name(d) for d in self.dtypes)

    @functools.cached_property
    def _graphs(self) -> dict[str, expr.Node]:
        return {d: self._parse(d) for d in self.dtypes}

    def _parse(self, dtype_name: str, text: str | None = None) -> expr.Node:
        return parse_graph(self.expression if text is None else text, self.expression_inputs,
                           self.scalars, self.lets, bool(self.shapes), dtype_name)[0]

    @functools.cached_property
    def _result_graphs(self) -> dict[str, dict[str, expr.Node]]:
        return {d: {name: self._parse(d, text) for name, text in self.results}
                for d in self.dtypes}

    def result_graphs(self, dtype_name: str) -> dict[str, expr.Node]:
        """A register kernel's typed graph of each result, in the outputs' order ({} for
        the other kinds)."""
        return self._result_graphs[dtype_name]

    @property
    def expression_inputs(self) -> tuple[str, ...]:
        """The tensor names the expression sees: a contraction's epilogue sees ``acc`` and
        its further inputs."""
        if self.contraction is not None:
            return (ACC, *self.epilogue_inputs)
        return self.inputs

    def graph(self, dtype_name: str) -> expr.Node:
        """The typed expression graph for one dtype (``let`` names substituted); a register
        kernel's first result."""
        if self.results:
            return next(iter(self.result_graphs(dtype_name).values()))
        return self._graphs[dtype_name]

    @functools.cached_property
    def layout(self) -> shape_rules.Layout | None:
        """How the tensors' shapes relate (None without ``shapes``)."""
        if not self.shapes:
            return None
        root = self.graph(self.dtypes[0])
        return shape_rules.layout(dict(self.shapes), self.inputs, self.output,
                             expr.reduction_of(root) is not None)

    @functools.cached_property
    def _staged(self) -> dict[str, shape_rules.Staged]:
        layout = self.layout
        if layout is None:
            return {}
        return {d: shape_rules.stage(self.graph(d), layout, self._let_names(d))
                for d in self.dtypes}

    def _let_names(self, dtype_name: str) -> dict[str, str]:
        lets = parse_graph(self.expression, self.inputs, self.scalars, self.lets, True,
                           dtype_name)[1]
        return {expr.to_text(node): name for name, node in lets.items()}

    def staged(self, dtype_name: str) -> shape_rules.Staged | None:
        """A shaped kernel's stages for one dtype (None for a kernel without ``shapes``, or
        one whose shapes add nothing: same-shaped inputs, no reduction)."""
        staged = self._staged.get(dtype_name)
        layout = self.layout
        if staged is None or layout is None or (
                staged.kind == "broadcast" and not layout.channel_inputs):
            return None
        return staged

    @property
    def reduction(self) -> Op | None:
        """The reduction op at the root of a kernel that reduces all its elements to one,
        or None (elementwise, shaped and transform kernels)."""
        if (self.transform is not None or self.contraction is not None or self.results
                or self.staged(self.dtypes[0]) is not None):
            return None
        return expr.reduction_of(self.graph(self.dtypes[0]))

    @property
    def is_reduction(self) -> bool:
        return self.reduction is not None

    @property
    def kind(self) -> KernelKind:
        """``elementwise`` (n elements in, n out), ``reduction`` (all elements to one), or a
        shaped kind (fpgakern.ir.shapes) from ``shapes`` and the expression: a ``sum(...)``
        in any category is a reduction; ``transform`` for a spectral kernel."""
        if self.transform is not None:
            return "transform"
        if self.contraction is not None:
            return "contraction"
        if self.auto_restart:
            return "registers"
        staged = self.staged(self.dtypes[0])
        if staged is not None:
            return staged.kind
        return "reduction" if self.is_reduction else "elementwise"

    @property
    def size_args(self) -> tuple[str, ...]:
        """The kernel's size arguments, after its scalars (shapes.SIZE_ARGS); none for a
        free-running kernel, which has no control port and no end."""
        return () if self.free_running else shape_rules.SIZE_ARGS[self.kind]

    @property
    def arguments(self) -> tuple[str, ...]:
        """Every argument's name in the C signature's order: the spec's ``args``, else
        inputs, output, scalars, then the size arguments (a register kernel's: its
        scalars, then its results, as ``void f(int a, int b, int& sum)``)."""
        if self.results and not self.arg_order:
            return (*(s.name for s in self.scalars), *self.outputs)
        return self.arg_order or (*self.inputs, *self.outputs,
                                  *(s.name for s in self.scalars), *self.size_args)

    @property
    def ports_note(self) -> str:
        """The kernel's stream ports and control, for listings ("" for a kernel of memory
        pointers only)."""
        if not self.streams:
            return ""
        control = "free-running, " if self.free_running else ""
        return f"{control}streams {', '.join(self.streams)}"

    @property
    def memory_ports(self) -> tuple[str, ...]:
        """Inputs, then outputs, that are pointers to device memory (not streams; none
        for a register kernel, whose results are registers)."""
        if self.results:
            return ()
        return tuple(p for p in (*self.inputs, *self.outputs) if p not in self.streams)

    def elementwise_body(self, dtype_name: str) -> expr.Node:
        """The per-element part: the whole graph, the reduction's operand, or a shaped
        kernel's per-element stage (Staged.body)."""
        staged = self.staged(dtype_name)
        if staged is not None:
            return staged.body
        root = self.graph(dtype_name)
        return root.args[0] if self.is_reduction and isinstance(root, expr.Apply) else root

    def output_dtype(self, dtype_name: str) -> DType:
        if self.transform is not None:
            return DTYPES["float32" if self.transform == "irfft" else "complex64"]
        return RESULT_DTYPES[self.graph(dtype_name).dtype]

    def pointer_dtype(self, pointer: str, dtype_name: str) -> DType:
        """The element type of pointer argument ``pointer`` in the ``dtype_name`` variant:
        the output's result type, the variant's dtype for every input."""
        if pointer in self.outputs:
            return self.output_dtype(dtype_name)
        return DTYPES[dtype_name]

    def accuracy(self, dtype_name: str) -> Accuracy:
        """The loosest accuracy class among the ops the kernel applies (exact < ulp <
        reduction); ulp bounds add up along a chain of inexact ops. Every verifier (csim's
        testbench, fpgakern's own comparison) holds results to it."""
        if self.stated_accuracy is not None:
            return self.stated_accuracy
        if self.transform is not None:
            # Held bit for bit to fpgakern.ir.fft's float32 algorithm; its distance to the
            # exact transform is bounded there (element_bound) and tested apart.
            return Accuracy("exact")
        classes = [op.accuracy_for(dtype_name) for op in self.ops_used(dtype_name)]
        reductions = [a for a in classes if a.kind == "reduction"]
        if reductions:  # one at most: a reduction stands only at the root
            return reductions[0]
        ulps = sum(a.ulps for a in classes if a.kind == "ulp")
        return Accuracy("ulp", ulps) if ulps else Accuracy("exact")

    def body_ulps(self, dtype_name: str) -> int:
        """A reduction's elementwise body: the ulps its inexact ops may each be off by,
        added up (``sum(sigmoid(x))``: sigmoid's), which the reduction's error bound
        adds for every reduced value (verify.compare.reduction_bound)."""
        return sum(op.accuracy_for(dtype_name).ulps for op in self.ops_used(dtype_name)
                   if op.kind != "reduce" and op.accuracy_for(dtype_name).kind == "ulp")

    def inexact_inner_applications(self, dtype_name: str) -> list[expr.Apply]:
        """The applications of ulp-bounded ops whose results feed another op (not the
        root): where the hardware may pick another float than the reference, within the
        op's bound, and the ops after it carry the difference on. For a broadcast kernel,
        those of its stages: each per-channel value's, its root included (the body uses
        it), and the body's below its root."""
        staged = self.staged(dtype_name)
        if staged is not None and staged.kind == "broadcast":
            roots = [*(value.node for value in staged.channel_values), staged.body]
            outer: expr.Node = staged.body
        else:
            roots = [self.graph(dtype_name)]
            outer = roots[0]
        found: dict[int, expr.Apply] = {}
        for root in roots:
            for node in root.walk():
                if (node is not outer and isinstance(node, expr.Apply)
                        and node.op.accuracy_for(dtype_name).kind == "ulp"):
                    found.setdefault(id(node), node)
        return list(found.values())

    def followed_applications(self, dtype_name: str) -> list[expr.Apply]:
        """The inner inexact applications the judges follow within their bounds (the
        result then held to its root's bound of the reference or of an alternative with
        them moved): those of an elementwise or broadcast kernel with an ulp accuracy, up
        to MAX_FOLLOWED of them; else none (reductions, transforms, row kinds, more)."""
        staged = self.staged(dtype_name)
        if (self.transform is not None or self.is_reduction
                or (staged is not None and staged.kind != "broadcast")
                or self.accuracy(dtype_name).kind != "ulp"):
            return []
        inner = self.inexact_inner_applications(dtype_name)
        return inner if len(inner) <= MAX_FOLLOWED else []

    def followed_root_accuracy(self, dtype_name: str) -> Accuracy:
        """The bound each result is held to, from the reference or one of its
        alternatives: the root's where the judges follow inner applications
        (:meth:`followed_applications`), else the kernel's accuracy."""
        if not self.followed_applications(dtype_name):
            return self.accuracy(dtype_name)
        staged = self.staged(dtype_name)
        root = staged.body if staged is not None else self.graph(dtype_name)
        return root.op.accuracy_for(dtype_name) if isinstance(root, expr.Apply) else EXACT

    def ops_used(self, dtype_name: str) -> list[Op]:
        """Each op the expression applies (a register kernel's results, in order), once, in
        evaluation order."""
        roots = list(self.result_graphs(dtype_name).values()) if self.results \
            else [self.graph(dtype_name)]
        seen: dict[str, Op] = {}
        for root in roots:
            for node in root.walk():
                if isinstance(node, expr.Apply):
                    seen.setdefault(node.op.name, node.op)
        return list(seen.values())


def default_top_name(kernel_name: str, dtype_name: str) -> str:
    """The top a kernel without ``top:`` gets: its name and the dtype's tag, ``add_f32``."""
    return f"{kernel_name}_{DTYPES[dtype_name].short}"


def parse_graph(text: str, inputs: tuple[str, ...], scalars: tuple[ScalarArg, ...],
                lets: tuple[tuple[str, str], ...], shaped: bool,
                dtype_name: str) -> tuple[expr.Node, dict[str, expr.Node]]:
    """The typed graph of ``text`` for one dtype, and the parsed ``let`` values it may use.
    A shaped kernel's reductions may stand anywhere (they run along rows). Raises
    ExprError (a let's message starts with its name)."""
    typed_inputs = dict.fromkeys(inputs, dtype_name)
    typed_scalars = dict.fromkeys((s.name for s in scalars), DTYPES[dtype_name].scalar_dtype)
    bound = expr.parse_lets(dict(lets), typed_inputs, typed_scalars, shaped)
    root = expr.parse(text, typed_inputs, typed_scalars, bound, shaped)
    return root, bound
