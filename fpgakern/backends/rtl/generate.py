"""SystemVerilog kernels from a ladder plan: ``generate(plan, out_dir) -> RtlSources``.

The top module (``plan.top``) has the Vitis RTL-kernel interface of
:func:`fpgakern.interface.interface`; its compute pipeline is scheduled from the kernel's
expression graph (:mod:`fpgakern.backends.rtl.schedule`). Rungs differ only in the numbers
their :class:`~fpgakern.ladder.Rung` gives (gathered in :class:`Microarch`) and in which
top template they use: ``top_sequential`` (rungs 0 and 1: one bundle, phases in
sequence) or ``top_dataflow`` (rungs 2 to 4: concurrent engines joined by FIFOs). The
fixed support modules in ``lib/`` and the operator modules in ``oplib/`` are referenced
where they are, not copied per kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from fpgakern.backends.rtl import (
    contraction,
    fft_sequential,
    fft_stream,
    reduce,
    registers,
    rows,
    sources,
    stream,
)
from fpgakern.backends.rtl.schedule import Datapath, NoRtlOperator, schedule, schedule_outputs
from fpgakern.backends.rtl.top import Microarch, control_words, environment, port_column
from fpgakern.backends.templates import file_header, write
from fpgakern.errors import UsageError
from fpgakern.interface import SIZE_ARG, KernelInterface, interface
from fpgakern.ir import complex_lowering, expr, shapes
from fpgakern.ir.contraction import PARTIALS
from fpgakern.ir.kernel import ACC, NO_RTL_KINDS, Kernel
from fpgakern.ir.ops import OPS
from fpgakern.ladder import Plan

# The kernel kinds (Kernel.kind) this backend builds.
RTL_KINDS = ("elementwise", "reduction", "broadcast", *rows.KINDS, "transform", "registers",
             "contraction")

__all__ = ["Microarch", "NoRtlOperator", "RtlSources", "generate", "microarch"]


@dataclass(frozen=True)
class RtlSources:
    """What :func:`generate` produced: every file a simulator or synthesizer needs."""

    top: str
    files: list[Path]  # compile order: support library, operators, datapath, top
    interface: KernelInterface
    latency: int  # cycles through the compute pipeline
    lanes: int


def _pow2_at_least(value: int) -> int:
    return 1 << max(1, (value - 1).bit_length())


def microarch(plan: Plan, latency: int) -> Microarch:
    """The rung's numbers (:class:`fpgakern.ladder.Rung`) for a pipeline of ``latency``
    cycles, in the shape the top templates take."""
    rung = plan.rung
    if rung.dataflow:
        return Microarch(
            template="top_dataflow.sv.j2",
            max_burst=plan.arch.read_burst,
            write_burst=plan.arch.write_burst,
            read_outstanding=rung.read_outstanding,
            write_outstanding=rung.write_outstanding,
            in_fifo_depth=plan.arch.in_fifo_beats,
            out_fifo_depth=plan.arch.out_fifo_beats(latency),
        )
    # The sequential rungs, phase after phase: each input's phase is burst into its buffer,
    # then computed into the output FIFO while the write engine bursts it out.
    chunk = plan.arch.phase_elements
    return Microarch(
        template="top_sequential.sv.j2",
        max_burst=plan.arch.read_burst,
        read_outstanding=rung.read_outstanding,
        write_outstanding=rung.write_outstanding,
        in_fifo_depth=chunk,
        out_fifo_depth=_pow2_at_least(max(plan.arch.read_burst, chunk)),
        chunk=chunk,
    )


@dataclass(frozen=True)
class _Pointer:
    name: str
    bundle: str
    per_channel: bool = False  # a broadcast kernel's (C) operand, read once into tables


def check_supported(plan: Plan) -> None:
    """UsageError for plans the RTL backend cannot build at all (NoRtlOperator is raised
    later, per missing operator; complex64 is built by lowering, datapath_of)."""
    kernel = plan.kernel
    if kernel.kind in NO_RTL_KINDS:  # the one list of kinds without an RTL generator
        raise UsageError(f"{kernel.qualname}: {NO_RTL_KINDS[kernel.kind]}")
    if len(kernel.outputs) != 1 and kernel.kind != "registers":
        raise UsageError(f"{kernel.qualname}: RTL kernels have exactly one output")
    if kernel.kind == "transform":
        # Every transform at every rung: fft_sequential (0, 1), fft_stream (2-4).
        if plan.rung.index not in (*fft_sequential.RUNGS, *fft_stream.RUNGS):
            raise UsageError(f"{kernel.qualname}: the RTL backend builds transforms at rungs "
                             "0-4")
        return
    if kernel.kind not in RTL_KINDS:
        raise UsageError(f"{kernel.qualname}: the RTL backend does not build {kernel.kind} "
                         "kernels yet")
    if plan.dtype.is_complex and kernel.kind != "elementwise":
        raise UsageError(f"{kernel.qualname}: complex64 RTL covers elementwise kernels only")
    out_dtype = kernel.output_dtype(plan.dtype.name)
    # An index reduction's int64 result is written as a word of its own (two beats on a
    # 32-bit port); a complex64 kernel's float32 result (abs, real, imag, angle) has
    # words of its own, as many lanes (Microarchitecture.pointer_bits); every other result has the
    # elements' width.
    narrower = plan.dtype.is_complex and out_dtype.name == "float32"
    if out_dtype.bits != plan.dtype.bits and not kernel.is_reduction and not narrower:
        raise UsageError(
            f"{kernel.qualname}: output dtype {out_dtype.name} differs in width from "
            f"{plan.dtype.name}; the RTL backend needs equal widths"
        )


@dataclass(frozen=True)
class Reduction:
    """The accumulator a reduction kernel streams its elements through."""

    op: str
    module: str
    interleave: int  # P, the partial results it interleaves (fixes the combination order)
    # The finish the kernel applies to the accumulator's result and float(n) (mean's
    # divider), with the int-to-float converter of n: None where the kernel has none
    # (Microarchitecture.finish).
    finish: Finish | None = None
    result_bits: int = 32  # the result word: 64 for an index reduction's int64


@dataclass(frozen=True)
class Finish:
    """The operator after the accumulator: ``module(result, convert(n))``."""

    kernel_op: str  # the kernel's reduction (mean), whose finish this is
    module: str
    latency: int
    convert: str  # n (int32) to the dtype
    convert_latency: int


def reduction_of(plan: Plan) -> Reduction | None:
    """The accumulator of ``plan``'s kernel, None for elementwise kernels."""
    op = plan.kernel.reduction
    if op is None:
        return None
    impl = op.rtl.get(plan.dtype.name)
    if impl is None:
        raise NoRtlOperator(f"no RTL operator for {op.name} {plan.dtype.name} yet")
    finish = None
    if plan.arch.finish is not None:
        div = OPS[plan.arch.finish].rtl[plan.dtype.name]
        convert = OPS["to_" + plan.dtype.name].rtl["int32"]
        finish = Finish(op.name, div.module, div.latency, convert.module, convert.latency)
    return Reduction(op.accumulates or op.name, impl.module, plan.arch.acc_interleave, finish,
                     plan.kernel.output_dtype(plan.dtype.name).bits)


@dataclass(frozen=True)
class Broadcast:
    """A broadcast kernel's table stage (docs/rtl.md, "Broadcast kernels"): its per-channel
    inputs are read once per run into the channel pipeline, whose results (``tables``:
    the per-channel inputs the element stage uses as they are, then the channel values
    it uses) are written into on-chip tables of ``max_channels`` entries."""

    channel_inputs: tuple[str, ...]
    tables: tuple[str, ...]
    module: str  # the channel pipeline's module
    pipeline: Datapath
    max_channels: int = shapes.MAX_CHANNELS

    @property
    def ch_w(self) -> int:
        """Bits of a channel index (a table address)."""
        return max(1, (self.max_channels - 1).bit_length())


@dataclass(frozen=True)
class TableReads:
    """How a broadcast kernel's dataflow top reads its per-channel inputs
    (_broadcast.sv.j2, ``read_tables``): one read engine on their shared bundle
    (``Microarchitecture.bundle``) reads them whole, one after the other; ``staged`` into
    buffers of a whole table (``words`` words of a beat), then ``last`` into a FIFO whose
    beats drive the channel pipeline, which reads the buffers at the same channel."""

    bundle: str
    staged: tuple[str, ...]
    last: str
    words: int


def table_reads_of(plan: Plan, bcast: Broadcast) -> TableReads:
    """The table reads of a broadcast kernel at a dataflow rung: its per-channel inputs
    must share one bundle with no other pointer, as ``Microarchitecture.bundle`` puts
    them (the interface, kernel.xml and every model follow the same bundles)."""
    arch = plan.arch
    bundles = {arch.bundle(c) for c in bcast.channel_inputs}
    others = {arch.bundle(p) for p in arch.pointers if p not in bcast.channel_inputs}
    assert len(bundles) == 1 and not bundles & others, (plan.top, bundles, others)
    words, rest = divmod(bcast.max_channels, arch.lanes)
    assert rest == 0 and words & (words - 1) == 0, "a buffer of a power of two of words"
    return TableReads(bundles.pop(), bcast.channel_inputs[:-1], bcast.channel_inputs[-1],
                      words)


def broadcast_of(plan: Plan) -> Broadcast | None:
    """The table stage of a broadcast kernel (None for other kinds); raises
    NoRtlOperator."""
    kernel, dtype = plan.kernel, plan.dtype.name
    staged, layout = kernel.staged(dtype), kernel.layout
    if staged is None or layout is None or staged.kind != "broadcast":
        return None
    used = {n.name for n in staged.body.walk() if isinstance(n, expr.Input)}
    values = {h.name: h.node for h in staged.channel_values}
    roots: dict[str, expr.Node] = {c: expr.Input(dtype, c) for c in layout.channel_inputs
                                   if c in used}
    roots.update((name, node) for name, node in values.items() if name in used)
    pipeline = schedule_outputs(roots, layout.channel_inputs,
                                tuple(s.name for s in kernel.scalars))
    return Broadcast(layout.channel_inputs, tuple(roots), f"{plan.top}_channels", pipeline)


def datapath_of(plan: Plan) -> Datapath:
    """The scheduled elementwise pipeline of ``plan``'s kernel (raises NoRtlOperator). A
    broadcast kernel's takes its full inputs and its tables (Broadcast.tables). A
    complex64 kernel's is its float32 lowering (fpgakern.ir.complex_lowering): the
    outputs ``re`` and ``im`` over the inputs' components."""
    kernel = plan.kernel
    inputs = kernel.inputs
    if kernel.kind == "registers":
        return registers.datapath(plan)
    if kernel.kind == "contraction":
        return contraction.epilogue(plan)
    if plan.dtype.is_complex:
        body = kernel.elementwise_body(plan.dtype.name)
        if body.dtype != complex_lowering.C64:  # a float32 result: abs, real, imag, angle
            root, components = complex_lowering.lower_real(body, inputs)
            return schedule(root, components, tuple(s.name for s in kernel.scalars))
        lowered = complex_lowering.lower(body, inputs)
        return schedule_outputs(lowered.roots, lowered.inputs,
                                tuple(s.name for s in kernel.scalars))
    bcast = broadcast_of(plan)
    if bcast is not None:
        assert kernel.layout is not None
        inputs = (*kernel.layout.full_inputs, *bcast.tables)
    return schedule(
        kernel.elementwise_body(plan.dtype.name),
        inputs,
        tuple(s.name for s in kernel.scalars),
    )


@dataclass(frozen=True)
class _Design:
    """A plan's generated RTL: the texts of its files, in compile order, and what else it
    needs (the operator modules, from oplib/)."""

    texts: dict[str, str]  # file name -> text
    operators: list[str]
    latency: int


def _design(plan: Plan) -> _Design:
    check_supported(plan)
    if plan.kernel.kind == "transform":
        return _transform_design(plan)
    if plan.kernel.kind in rows.KINDS:
        return _row_design(plan)
    if plan.kernel.kind == "registers":
        return _register_design(plan)
    if plan.kernel.kind == "contraction":
        return _contraction_design(plan)
    dp = datapath_of(plan)
    reduction = reduction_of(plan)
    arch = microarch(plan, dp.latency)
    if reduction:
        # The accumulator's input FIFO is the pipeline's sink (credit-based issue); the
        # output FIFO only ever holds the one result.
        arch = replace(arch, sink_fifo_depth=max(16, _pow2_at_least(dp.latency + 8)),
                       out_fifo_depth=2)
    iface = interface(plan)
    env = environment()
    kernel = plan.kernel
    texts: dict[str, str] = {}
    operators = list(dp.modules)
    if reduction:
        acc = reduce.accumulator(reduction.op, plan.dtype.name)
        texts[acc.file_name] = reduce.render(acc)
        operators += acc.operators
        if reduction.finish:
            operators += [reduction.finish.module, reduction.finish.convert]

    # A reduction of the bare input (sum(x)) has nothing to compute per element: the
    # accumulator takes the input stream itself, with no pipeline module in between.
    bare = reduction is not None and not dp.instances
    dp_name = f"{plan.top}_datapath"
    bcast = broadcast_of(plan)
    if bcast is not None:
        operators += [m for m in bcast.pipeline.modules if m not in operators]
        texts[f"{bcast.module}.sv"] = _render_datapath(
            plan, bcast.module, bcast.pipeline, 1,
            f"{bcast.module}: the channel pipeline of {plan.top}, once per channel",
            "; ".join(f"{t} = {_text_of(kernel, plan, t)}" for t in bcast.tables))
    if not bare:
        expression = kernel.expression.strip()
        if plan.dtype.is_complex:
            expression += (", lowered to float32 operations on the real and imaginary parts "
                           "(fpgakern/ir/complex_lowering.py)")
        texts[f"{dp_name}.sv"] = _render_datapath(
            plan, dp_name, dp, plan.arch.lanes, f"{dp_name}: the compute pipeline of {plan.top}",
            expression)

    if kernel.streams:  # stream ports in place of engines (stream.py)
        texts[f"{plan.top}.sv"] = stream.render_top(plan, iface, arch, dp_name, dp.latency)
        return _Design(texts, operators, dp.latency)
    out_w = plan.arch.pointer_bits(kernel.output)
    texts[f"{plan.top}.sv"] = env.get_template(arch.template).render(
        header=file_header(plan, "Vitis RTL kernel", plan.rung.rtl_summary),
        top=plan.top,
        ctrl=control_words(iface),
        bundles=plan.arch.bundles,
        bundle_w={b: plan.arch.bundle_bits(b) for b in plan.arch.bundles},
        data_w=plan.arch.port_bits,
        # The output's words where narrower than the inputs' (complex64 -> float32), on a
        # bundle of its own from rung 2 on, packed two to a 64-bit beat before.
        out_w=out_w,
        out_elem_bytes=plan.arch.pointer_dtype(kernel.output).bytes,
        col=port_column(plan.arch.port_bits),
        lanes=plan.arch.lanes,
        elem_bytes=plan.dtype.bytes,
        arch=arch,
        inputs=_pointers(plan, bcast),
        output=_Pointer(kernel.output, plan.arch.bundle(kernel.output)),
        scalars=[s.name for s in kernel.scalars],
        size_arg=SIZE_ARG,
        datapath=None if bare else dp_name,
        latency=dp.latency,
        reduction=reduction,
        bcast=bcast,
        table_reads=(table_reads_of(plan, bcast) if bcast is not None and plan.rung.dataflow
                     else None),
    )
    return _Design(texts, operators, dp.latency)


def _pointers(plan: Plan, bcast: Broadcast | None) -> list[_Pointer]:
    """The input pointers as the top templates take them; a broadcast kernel's full
    inputs first (the sequential template reads them per chunk, as its first ``sel``
    values, and the per-channel inputs once, after them)."""
    kernel = plan.kernel
    pointers = [_Pointer(x, plan.arch.bundle(x), bcast is not None and x in bcast.channel_inputs)
                for x in kernel.inputs]
    return sorted(pointers, key=lambda x: x.per_channel)


@dataclass(frozen=True)
class _Lanes:
    """How a datapath module's ports hold its lanes: ``elem_w`` bits per lane and port,
    each ``lane_inputs`` signal (in_<signal>) sliced from a port at a bit offset within
    the lane, and ``packed`` the (part, signal) results concatenated into one element of
    ``y``, low part first (None: each output is a port of its own, or ``y``)."""

    ports: tuple[str, ...]
    elem_w: int
    lane_inputs: tuple[tuple[str, str, int], ...]  # (signal, port, bit offset)
    packed: tuple[tuple[str, str], ...] | None = None
    unused_ports: tuple[str, ...] = ()
    out_w: int = 0  # bits per lane of the result, where not elem_w (complex64 -> float32)


def _lanes_of(plan: Plan, dp: Datapath) -> _Lanes:
    """Lanes of 32-bit elements, one signal per used input; a complex64 kernel's lanes of
    64 bits, re in [31:0] and im in [63:32] (its lowered inputs are the components, its
    outputs re and im, packed)."""
    used = dp.used_inputs
    if not plan.dtype.is_complex:
        return _Lanes(dp.inputs, 32, tuple((x, x, 0) for x in dp.inputs if x in used),
                      unused_ports=tuple(x for x in dp.inputs if x not in used))
    parts = complex_lowering.PARTS
    ports = plan.kernel.inputs
    slices = tuple((complex_lowering.component(x, part), x, 32 * i)
                   for x in ports for i, part in enumerate(parts))
    # A port is unused where any of its components is (a partly used port's bits are all
    # listed as unused, which lint accepts).
    out_w = plan.arch.pointer_dtype(plan.kernel.output).bits
    return _Lanes(ports, plan.dtype.bits, tuple(s for s in slices if s[0] in used),
                  tuple(dp.outputs) or None,
                  tuple(dict.fromkeys(port for x, port, _ in slices if x not in used)),
                  out_w if out_w != plan.dtype.bits else 0)


def _render_datapath(plan: Plan, name: str, dp: Datapath, lanes: int, title: str,
                     expression: str) -> str:
    lay = _lanes_of(plan, dp)
    unused = [f"x_{x}" for x in lay.unused_ports]
    unused += [f"sc_{s}" for s in dp.scalars if s not in dp.used_scalars]
    return environment().get_template("datapath.sv.j2").render(
        header=file_header(plan, "Compute pipeline of the Vitis RTL kernel",
                           plan.rung.rtl_summary, title=title),
        name=name,
        expression=expression,
        dp=dp,
        ports=lay.ports,
        elem_w=lay.elem_w,
        lane_inputs=lay.lane_inputs,
        packed=lay.packed,
        out_w=lay.out_w or lay.elem_w,
        lanes=lanes,
        unused=unused,
    )


def _text_of(kernel: Kernel, plan: Plan, table: str) -> str:
    """What a table holds, as the spec would write it (for the generated comment)."""
    staged = kernel.staged(plan.dtype.name)
    assert staged is not None
    node = next((h.node for h in staged.channel_values if h.name == table), None)
    return table if node is None else expr.to_text(node)


def render(plan: Plan) -> dict[str, str]:
    """The files generated for ``plan`` (file name -> text), without touching disk, in
    compile order: a reduction's accumulator (from the op table), the datapath (none for
    a bare reduction) and the top."""
    return _design(plan).texts


def generate(plan: Plan, out_dir: Path) -> RtlSources:
    """Write the files :func:`render` makes for ``plan`` into ``out_dir``.

    Returns every source file the kernel needs, in compile order. Raises NoRtlOperator
    (a ToolError) when an op of the kernel has no RTL module yet, and UsageError for kernels
    the backend does not support.
    """
    design = _design(plan)
    written = write(design.texts, out_dir)
    if plan.kernel.kind == "transform":
        support = (fft_stream.fft_stream_files() if plan.rung.dataflow
                   else fft_sequential.fft_sequential_files())
        files = [*support, *written]
    else:
        files = [*sources.library_files(),
                 *(sources.contraction_files() if plan.kernel.contraction is not None else ()),
                 *sources.operator_files(design.operators),
                 *written]
    return RtlSources(plan.top, files, interface(plan), design.latency, plan.arch.lanes)


def _transform_design(plan: Plan) -> _Design:
    """A transform kernel (docs/spectral.md): the sequential top at rungs 0-1, the
    streaming one at the dataflow rungs. Their support files are listed by the renderers'
    modules (fft_sequential_files, fft_stream_files): the FFT library files only ever go
    into transform kernels. The latency is the engine's, not a fixed pipeline's: 0."""
    if plan.rung.dataflow:
        return _Design(fft_stream.render_fft_stream(plan), [], 0)
    assert plan.kernel.transform is not None
    texts = fft_sequential.render_fft_sequential(plan.top, plan.kernel.transform,
                                                 plan.rung.index)
    return _Design(texts, [], 0)


@dataclass(frozen=True)
class _ReadBundle:
    """A bundle's read engine and the pointers it reads in turn (segments)."""

    name: str
    segments: tuple[str, ...]


def _row_design(plan: Plan) -> _Design:
    """A row kernel (rows.py): its accumulators, stage pipes and top (top_rows.sv.j2)."""
    d = rows.design(plan)
    env = environment()
    kernel = plan.kernel
    texts: dict[str, str] = {}
    for acc in rows.accumulators(plan):
        texts[acc.file_name] = reduce.render(acc)
    for module, (text, dp, lanes) in d.modules.items():
        texts[f"{module}.sv"] = env.get_template("datapath.sv.j2").render(
            header=file_header(plan, "Row-kernel pipeline of the Vitis RTL kernel",
                               plan.rung.rtl_summary,
                               title=f"{module}: a pipeline of {plan.top}"),
            name=module, expression=text, dp=dp, ports=dp.inputs, elem_w=32,
            lane_inputs=[(x, x, 0) for x in dp.inputs], packed=None, out_w=32, lanes=lanes,
            unused=[])
    # Tables first, then the full inputs, on each bundle (one shared gmem before rung 2).
    order = [*d.tables, *d.full]
    reads = [_ReadBundle(b, tuple(p for p in order if plan.arch.bundle(p) == b))
             for b in dict.fromkeys(plan.arch.bundle(p) for p in order)]
    segment_of = {p: rb.segments.index(p) for rb in reads for p in rb.segments}
    arch = microarch(plan, d.latency)
    body = d.stages[-1]
    in_fifo_depth = (max(arch.max_burst, 64) if not plan.rung.dataflow
                     else arch.in_fifo_depth)
    # Several full inputs on one bundle (the sequential rungs) are read in chunks of
    # `chunk` beats (every burst the engine may have in flight), each input's in turn; the
    # engine holds credits for a chunk of each, and each input's FIFO is that deep (it
    # never holds more than the engine reserved).
    shared = [rb.name for rb in reads if sum(p in d.full for p in rb.segments) > 1]
    chunk = max(in_fifo_depth, arch.max_burst * arch.read_outstanding)
    if shared:
        in_fifo_depth = chunk * len(d.full)
    texts[f"{plan.top}.sv"] = env.get_template("top_rows.sv.j2").render(
        header=file_header(plan, "Vitis RTL kernel", plan.rung.rtl_summary),
        top=plan.top, ctrl=control_words(interface(plan)), bundles=plan.arch.bundles,
        data_w=plan.arch.port_bits, col=port_column(plan.arch.port_bits),
        lanes=plan.arch.lanes, arch=arch,
        in_fifo_depth=in_fifo_depth, chunk=chunk, shared=shared,
        out_fifo_depth=_pow2_at_least(2 * arch.max_write_burst + d.latency + 8),
        max_row_beats=rows.max_row_beats(plan), max_row=rows.shapes.MAX_ROW,
        rowq_depth=rows.row_fifo_depth(plan), rec_depth=rows.REC_DEPTH,
        beat_w=max(1, (rows.max_row_beats(plan) - 1).bit_length()),
        in_flight=rows.rows_in_flight(plan), d=d, body=body, cols_f=rows.COLS_F,
        prefix_name=rows.PREFIX,
        record_index={name: i for i, name in enumerate(d.record)},
        scalars=[s.name for s in kernel.scalars], reads=reads,
        read_bundles={rb.name for rb in reads}, write_bundles={plan.arch.bundle(kernel.output)},
        table_bundle={t: plan.arch.bundle(t) for t in d.tables}, segment_of=segment_of,
        x_bundle=plan.arch.bundle(d.x), full_bundle={f: plan.arch.bundle(f) for f in d.full},
        output=_Pointer(kernel.output, plan.arch.bundle(kernel.output)),
    )
    return _Design(texts, d.operators, d.latency)



def _register_design(plan: Plan) -> _Design:
    """A register kernel (registers.py): its pipeline and its top (top_registers.sv.j2)."""
    dp = registers.datapath(plan)
    dp_name = f"{plan.top}_datapath"
    texts = {f"{dp_name}.sv": _render_datapath(plan, dp_name, dp, 1,
                                               f"{dp_name}: the results of {plan.top}",
                                               plan.kernel.definition)}
    texts[f"{plan.top}.sv"] = environment().get_template("top_registers.sv.j2").render(
        header=file_header(plan, "Vitis RTL kernel", "scalars in, results out, with the "
                           "auto-restart counter and the mailbox"),
        top=plan.top, ctrl=control_words(interface(plan)), col=port_column(32),
        datapath=dp_name, latency=dp.latency, scalars=[s.name for s in plan.kernel.scalars])
    return _Design(texts, list(dp.modules), dp.latency)


def _contraction_design(plan: Plan) -> _Design:
    """A contraction kernel (contraction.py): its epilogue and its top, the PE array."""
    kernel = plan.kernel
    dp = contraction.epilogue(plan)
    name = f"{plan.top}_epilogue"
    texts = {f"{name}.sv": _render_datapath(plan, name, dp, 1,
                                            f"{name}: the epilogue of {plan.top}",
                                            kernel.expression)}
    a, b = kernel.inputs[:2]
    extras = list(kernel.epilogue_inputs)
    bundle_of = {p: plan.arch.bundle(p) for p in (*kernel.inputs, kernel.output)}
    readers = {bnd: [*(["operands"] if bnd in (bundle_of[a], bundle_of[b]) else []),
                     *(e for e in extras if bundle_of[e] == bnd)]
               for bnd in plan.arch.bundles}
    select = {bnd: ("1'b1" if bundle_of[a] == bundle_of[b] == bnd else
                    "!l_b" if bundle_of[a] == bnd else "l_b" if bundle_of[b] == bnd else "")
              for bnd in plan.arch.bundles}
    ready = (f"g_{bundle_of[a]}_req_ready" if bundle_of[a] == bundle_of[b] else
             f"(l_b ? g_{bundle_of[b]}_req_ready : g_{bundle_of[a]}_req_ready)")
    shape = contraction.shape(plan)
    texts[f"{plan.top}.sv"] = environment().get_template("top_contraction.sv.j2").render(
        header=file_header(plan, "Vitis RTL kernel", plan.rung.rtl_summary),
        top=plan.top, definition=kernel.definition, ctrl=control_words(interface(plan)),
        col=port_column(plan.arch.port_bits), bundles=plan.arch.bundles,
        data_w=plan.arch.port_bits, s=shape, partials=PARTIALS,
        pe=contraction.pe_parameters(plan), multi_cu=plan.rung.multi_cu,
        a=a, b=b, extras=extras, out=kernel.output, out_bundle=bundle_of[kernel.output],
        pointers=[*kernel.inputs, kernel.output], strides=contraction.strides(plan),
        bundle_of=bundle_of, readers=readers, operand_select=select, operand_ready=ready,
        extras_ready=" && ".join(f"x_fifo_valid_{i}" for i in range(len(extras))) or "1'b1",
        epilogue_name=name, epilogue_latency=dp.latency, acc=ACC,
        scalars=[sc.name for sc in kernel.scalars])
    operators = [*dp.modules, *(m for m in (OPS["mul"].rtl[plan.dtype.name].module,
                                             OPS["add"].rtl[plan.dtype.name].module)
                                if m not in dp.modules)]
    return _Design(texts, operators, dp.latency)
