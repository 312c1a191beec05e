"""Generated C++ host code on XRT's native API: per-variant wrappers and per-category entries.

``render_variant(plan)`` makes (and ``generate(plan, out_dir)`` writes), for one kernel
variant:

* ``fpgakern_host.hpp``     shared support (Status, word-sized buffers, combine ops, CU opening)
* ``<top>_host.hpp``        the wrapper class ``fpgakern::<category>::<top>_host``
* ``<top>_host_main.cpp``   a command-line host (the testbench's case-file format)

``render_category`` (``generate_category`` writes it) makes ``fpga_kernel_<category>.hpp``,
the generic entry over every kernel of a category (missing ones answer
``Status::missing_kernel`` at run time). Templates: ``hls_templates/<kind>/host*.j2`` for
a variant's files (its kernel's kind, never its category), falling back to ``default/``;
the category-wide files span kinds and use ``default/``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from fpgakern.backends.hls import matrix
from fpgakern.backends.hls.generator import templates_dir
from fpgakern.backends.templates import render, write
from fpgakern.interface import interface
from fpgakern.ir import fft, shapes
from fpgakern.ir.dtypes import DTYPES
from fpgakern.ir.kernel import SHAPED_KINDS, Kernel
from fpgakern.ladder import Plan

COMMON_HEADER = "fpgakern_host.hpp"


@dataclass(frozen=True)
class HostSources:
    header: Path  # <top>_host.hpp
    main: Path  # <top>_host_main.cpp
    common: Path  # fpgakern_host.hpp

    @property
    def files(self) -> tuple[Path, ...]:
        return (self.common, self.header, self.main)


@dataclass(frozen=True)
class _Scalar:
    name: str
    default: str


@dataclass(frozen=True)
class _VariantView:
    """What the templates need of one variant."""

    plan: Plan

    @property
    def kernel(self) -> Kernel:
        return self.plan.kernel

    @property
    def top(self) -> str:
        return self.plan.top

    @property
    def T(self) -> str:  # noqa: N802 - the element type, as in the C++ templates
        return self.plan.dtype.host_ctype  # complex64: std::complex<float>, same layout

    @property
    def S(self) -> str:  # noqa: N802 - the scalars' type (complex64: real float)
        return DTYPES[self.plan.dtype.scalar_dtype].host_ctype

    @property
    def R(self) -> str:  # noqa: N802 - the output's element type (complex64 abs: float)
        return self.plan.arch.pointer_dtype(self.kernel.output).host_ctype

    @property
    def inputs(self) -> tuple[str, ...]:
        return self.kernel.inputs

    @property
    def shaped(self) -> bool:
        """A kernel whose wrapper takes its tensors' shapes (host_shaped.hpp.j2)."""
        return self.kernel.kind in SHAPED_KINDS

    @property
    def transform(self) -> bool:
        """A spectral kernel: its wrapper takes rows, n and a norm (transform/host.hpp.j2)."""
        return self.kernel.kind == "transform"

    @property
    def contraction(self) -> bool:
        """A contraction: its wrapper takes batch, m, n, k (contraction/host.hpp.j2)."""
        return self.kernel.contraction is not None

    @property
    def scalars(self) -> list[_Scalar]:
        is_float = DTYPES[self.plan.dtype.scalar_dtype].is_float
        return [_Scalar(s.name, host_literal(s.default, is_float)) for s in self.kernel.scalars]


def host_literal(value: float | int, is_float: bool) -> str:
    """A C++ literal for a host-side value (no fpgakern_ops.h names: the host does not
    include the kernel's headers)."""
    if not is_float:
        value = int(value)
        if value == -(2**31):
            return "std::numeric_limits<int32_t>::min()"
        if value == 2**31 - 1:
            return "std::numeric_limits<int32_t>::max()"
        return str(value)
    value = float(value)
    if math.isinf(value):
        return ("-" if value < 0 else "") + "std::numeric_limits<float>::infinity()"
    if value == 0:
        return "-0.0f" if math.copysign(1.0, value) < 0 else "0.0f"
    return f"{value!r}f" if "e" in repr(value) or "." in repr(value) else f"{value!r}.0f"


def _call_arg(kernel: Kernel, name: str) -> str:
    """What a CU's run passes for argument ``name`` (host.hpp.j2's locals)."""
    if name in kernel.inputs:
        return f"{name}_bo"
    if name == kernel.output:
        return "out_bo"
    return "static_cast<int>(elements)" if name in kernel.size_args else name


def context(plan: Plan) -> dict[str, object]:
    view = _VariantView(plan)
    kernel = plan.kernel
    ctx: dict[str, object] = {
        "plan": plan, "kernel": kernel, "dtype": plan.dtype, "top": plan.top, "T": view.T,
        "S": view.S,
        "lanes": plan.arch.lanes, "cus": plan.placement.compute_units,
        "word_bytes": plan.arch.port_bits // 8,
        "inputs": kernel.inputs, "output": kernel.output, "scalars": view.scalars,
        "spec_path": f"kernel_specs/{kernel.category}/{kernel.source.name}",
        "picks": None, "R": view.R, "out_dtype": plan.arch.pointer_dtype(kernel.output),
        # The C order (the spec's args): each argument's index, and a run's arguments.
        "arg_id": {a.name: a.id for a in interface(plan).args},
        "call_args": [_call_arg(kernel, a.name) for a in interface(plan).args],
    }
    ctx.update(_share_limit(plan))
    if kernel.kind in SHAPED_KINDS:
        ctx.update(_shaped_context(kernel))
    if kernel.transform is not None:
        ctx.update(_transform_context(plan))
    if kernel.contraction is not None:
        ctx.update(_contraction_context(plan))
    reduction = kernel.reduction
    if reduction is not None:
        # The partial results of the compute units merge by the op table's combine op;
        # host_common.hpp.j2 defines it under the op's name (tests/runtime check that it
        # matches fpgakern_ops.h, which the host cannot include: it needs hls_math.h).
        assert reduction.combine is not None
        ctx["combine"] = reduction.combine
        # An index reduction's CUs each return an index into their share (int64): the
        # host picks among the elements they name (host::beats, Op.picks) and offsets it.
        ctx["picks"] = reduction.picks
        ctx["identity"] = host_literal(reduction.identity[plan.dtype.name], plan.dtype.is_float)
        # A finish the kernel leaves to the host (mean at multi-CU rungs: arch.finish) is
        # applied once to the combined value, over all n; div is the one finish so far.
        # With no element no CU runs, so the host finishes the identity whatever the rung
        # (mean: -0 / 0, NaN, as torch.mean of nothing).
        assert reduction.finish in (None, "div"), f"no host spelling of {reduction.finish}"
        ctx["host_finish"] = reduction.finish if plan.arch.finish is None else None
        ctx["empty_finish"] = reduction.finish
    return ctx


def _share_limit(plan: Plan) -> dict[str, object]:
    """The most elements one CU's share may hold (``Placement.share_limit``), and its
    bank for the message; None where the plan gives no limit."""
    limit = plan.placement.share_limit
    if limit is None:
        return {"share_limit": None}
    elements, size, tag = limit
    return {"share_limit": elements, "share_bank": f"{tag}, {size >> 20} MiB"}


def _shaped_context(kernel: Kernel) -> dict[str, object]:
    """What the shaped wrapper needs of the layout: how many named dimensions the main
    shape has (and whether ``*`` stands for more), the C++ expression of the channel
    axis in a ``shape`` vector, and the operands' shapes for the comments."""
    lay = kernel.layout
    assert lay is not None
    main = lay.main
    named = len(main) - (shapes.ANY in main)
    axis = "0"
    if lay.channel_dim is not None and not lay.channel_is_column:
        index = main.index(lay.channel_dim)
        before_any = shapes.ANY not in main or index < main.index(shapes.ANY)
        axis = str(index) if before_any else f"shape.size() - {len(main) - index}"
    return {
        "main_shape": shapes.show(main), "named_dims": named, "has_any": shapes.ANY in main,
        "channel_axis": axis, "channel_inputs": lay.channel_inputs,
        "operand_shapes": [(x, shapes.show(lay.shape(x))) for x in kernel.inputs[1:]],
        "out_shape": shapes.show(lay.shape(kernel.output)),
        "max_table": shapes.MAX_CHANNELS if kernel.kind == "broadcast" else shapes.MAX_ROW,
    }


def _transform_context(plan: Plan) -> dict[str, object]:
    """What the transform wrapper needs: each pointer's type and lanes, row lengths."""
    kernel = plan.kernel
    assert kernel.transform is not None
    x, out = kernel.inputs[0], kernel.output
    return {
        "I": kernel.pointer_dtype(x, plan.dtype.name).host_ctype,
        "O": kernel.pointer_dtype(out, plan.dtype.name).host_ctype,
        "in_lanes": plan.arch.pointer_lanes(x), "out_lanes": plan.arch.pointer_lanes(out),
        "in_len": "n/2 + 1" if kernel.transform == "irfft" else "n",
        "out_len": "n/2 + 1" if kernel.transform == "rfft" else "n",
        "min_n": fft.MIN_FFT, "max_n": fft.MAX_FFT, "inverse": fft.is_inverse(kernel.transform),
    }


@dataclass(frozen=True)
class _Tensor:
    """A contraction's tensor as its wrapper lays it out: row-major in its indices, each
    index's extent a C++ size variable (batch, m, n, k), and where A's free index m is
    (a compute unit's rows are a slab along it; None: every CU takes the whole tensor)."""

    name: str
    indices: str
    extents: tuple[str, ...]
    m_axis: int | None

    @property
    def outer(self) -> str:
        """The product of the extents before m (1 when none)."""
        assert self.m_axis is not None
        return " * ".join(self.extents[:self.m_axis]) or "1"

    @property
    def inner(self) -> str:
        """The product of the extents after m (1 when none)."""
        assert self.m_axis is not None
        return " * ".join(self.extents[self.m_axis + 1:]) or "1"

    @property
    def elements(self) -> str:
        return " * ".join(self.extents) or "1"


# A contraction's size registers, by the role of their index (Contraction's words).
_SIZE_OF_ROLE = {"batch": "batch", "free_a": "m", "free_b": "n", "summed": "k"}


def _contraction_context(plan: Plan) -> dict[str, object]:
    """What the contraction wrapper needs: each tensor's layout over the sizes, and each
    run argument (a CU takes a slab of the output's rows: m is its slab's, unit 0 of 1)."""
    kernel = plan.kernel
    c = kernel.contraction
    assert c is not None
    size = {getattr(c, role): var for role, var in _SIZE_OF_ROLE.items()
            if getattr(c, role) is not None}
    layouts = {kernel.inputs[0]: c.a, kernel.inputs[1]: c.b, **dict(kernel.indices),
               kernel.output: c.out}
    rows = c.free_a  # the index a CU's slab is cut along (None: no split)
    tensors = {name: _Tensor(name, indices, tuple(size[i] for i in indices),
                             indices.index(rows) if rows is not None and rows in indices
                             else None)
               for name, indices in layouts.items()}
    run_args = []
    for arg in interface(plan).args:
        if arg.kind == "pointer":
            run_args.append(f"{arg.name}_bo")
        elif arg.name in kernel.size_args:
            run_args.append("static_cast<int>(rows)" if arg.name == "m"
                            else f"static_cast<int>({arg.name})")
        elif arg.name in ("unit", "units"):  # each CU has its own slab: unit 0 of 1
            run_args.append("0" if arg.name == "unit" else "1")
        else:
            run_args.append(arg.name)
    return {"tensors": tensors, "has_m": c.free_a is not None, "run_args": run_args,
            "extras": kernel.inputs[2:], "definition": kernel.definition,
            # A CU's rows are a multiple of the HLS rungs' output tile (TM, a multiple of
            # the RTL's blocks), so no tile straddles two CUs.
            "tile_rows": matrix.TM}


def _common() -> str:
    # Shared by every variant of a library folder, whatever its kind: one text for all.
    return render(templates_dir(), None, "host_common.hpp.j2")


def render_variant(plan: Plan) -> dict[str, str]:
    """The host files of ``plan`` (file name -> text), without touching disk: the shared
    header, the wrapper and the command-line host."""
    kind = plan.kernel.kind
    ctx = context(plan)
    # The shaped kinds share one wrapper (tensors with their shapes); its body branches on
    # the kind where broadcast and the row kinds differ.
    shaped = "_shaped" if kind in SHAPED_KINDS else ""
    return {COMMON_HEADER: _common(),
            f"{plan.top}_host.hpp": render(templates_dir(), kind, f"host{shaped}.hpp.j2", **ctx),
            f"{plan.top}_host_main.cpp": render(templates_dir(), kind,
                                                f"host{shaped}_main.cpp.j2", **ctx)}


def generate(plan: Plan, out_dir: Path) -> HostSources:
    """Write the host wrapper of ``plan`` (and the shared header) into ``out_dir``."""
    common, header, main = write(render_variant(plan), out_dir)
    return HostSources(header, main, common)


def render_category(category: str, doc: str, kernels: list[Kernel],
                    plans: list[Plan]) -> dict[str, str]:
    """``fpga_kernel_<category>.hpp`` over ``kernels`` (every kernel of the category) with
    wrappers for ``plans`` (the variants built, at most one per kernel and dtype), and the
    shared header, without touching disk."""
    variants = [_VariantView(p) for p in plans]
    tops = [v.top for v in variants]
    if len(set(tops)) != len(tops):
        raise ValueError(f"one variant per kernel and dtype, got {tops}")
    entry = render(templates_dir(), None, "host_entry.hpp.j2", category_name=category,
                   category_doc=doc, kernels=kernels, variants=variants)
    return {COMMON_HEADER: _common(), f"fpga_kernel_{category}.hpp": entry}


def generate_category(category: str, doc: str, kernels: list[Kernel], plans: list[Plan],
                      out_dir: Path) -> Path:
    """Write :func:`render_category`'s files into ``out_dir``, where the variants' own
    files must be generated too (``generate``); the entry header's path."""
    return write(render_category(category, doc, kernels, plans), out_dir)[-1]
