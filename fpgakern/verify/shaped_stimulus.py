"""Test cases with real shapes for the shaped kinds (fpgakern.ir.shapes): broadcast and
the row kinds.

A shaped kernel is judged on whole tensors of their shapes (the main tensor's, a
per-channel operand's (C)), against reference.shaped_expected: several shapes (inner 1,
odd sizes, 1 and 17 channels; rows of 1, 5, 33 and 1024 columns, rows of none, no rows),
random values and the special values (NaN, +-inf, +-0, subnormals, a row of one value:
zero variance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fpgakern.ir import shapes
from fpgakern.ir.dtypes import DType
from fpgakern.ir.kernel import Kernel
from fpgakern.verify import stimulus

SEED = 15


@dataclass(frozen=True)
class ShapedCase:
    """Whole tensors by name (the kernel's inputs in order, the main tensor first), the
    scalars, and a label."""

    label: str
    tensors: dict[str, np.ndarray]
    scalars: dict[str, float | int]

    @property
    def main_shape(self) -> tuple[int, ...]:
        return next(iter(self.tensors.values())).shape

    @property
    def size(self) -> int:
        return next(iter(self.tensors.values())).size


def main_shape(layout: shapes.Layout, extents: dict[str, int], star: tuple[int, ...]) -> \
        tuple[int, ...]:
    """The main tensor's shape with named dimensions from ``extents`` (1 where not given)
    and ``star`` standing for ``*``."""
    out: list[int] = []
    for dim in layout.main:
        out += list(star) if dim == shapes.ANY else [extents.get(dim, 1)]
    return tuple(out)


def _row_specials(cols: int) -> np.ndarray:
    """Rows of special values whose float64 result float32 hardware can reach (no
    overflow that float64 would not have): NaN, +-inf, one value repeated (zero
    variance), subnormals and zeros, large exponents' arguments, and -inf throughout."""
    normal = np.linspace(-1.5, 2.0, cols, dtype=np.float32)
    tiny = np.array([1.4e-45, -1.4e-45, 0.0, -0.0, 1.1754942e-38, 1e-40, -3.5e-39,
                     1.1754944e-38, -1.1754944e-38], dtype=np.float32)
    large = np.array([88.0, -88.0, 89.0, -104.0, 20.0, -20.0, 1.0000001, 0.99999994, 1.5],
                     dtype=np.float32)
    rows = []
    for first in (np.nan, np.inf, -np.inf):
        row = normal.copy()
        row[0] = first
        rows.append(row)
    rows.append(np.full(cols, 2.5, dtype=np.float32))
    rows.append(np.resize(tiny, cols))
    rows.append(np.resize(large, cols))
    rows.append(np.full(cols, -np.inf, dtype=np.float32))
    rows.append(np.resize(np.array([0.0, -0.0], dtype=np.float32), cols))
    return np.stack(rows)


def cases(kernel: Kernel, dtype: DType) -> list[ShapedCase]:
    """The C-simulation cases of a shaped kernel (every case fits the testbench's
    Microarchitecture.max_test_elements, 4096 elements with each row padded to 16)."""
    layout = kernel.layout
    staged = kernel.staged(dtype.name)
    assert layout is not None and staged is not None
    rng = np.random.default_rng(SEED)
    defaults = {s.name: s.default for s in kernel.scalars}

    def make(label: str, shape: tuple[int, ...], fill: str,
             scalars: dict[str, float | int] | None = None) -> ShapedCase:
        tensors = {}
        for name in kernel.inputs:
            want = shapes.operand_shape(name, layout, shape)
            size = int(np.prod(want))
            if fill == "specials":
                data = np.resize(stimulus.specials(dtype), size)
                rng.shuffle(data)
            elif fill == "normal":
                data = (rng.standard_normal(size) * 3).astype(dtype.numpy)
            else:  # wide: random magnitudes 2^-30 .. 2^30
                data = stimulus.random_values(dtype, size, rng)
                if name in layout.channel_inputs:
                    data = np.abs(data)  # as variances and scales are
            tensors[name] = data.reshape(want)
        return ShapedCase(label, tensors, dict(scalars or defaults))

    out: list[ShapedCase] = []
    if staged.kind == "broadcast":
        channel = layout.channel_dim
        assert channel is not None
        others = [d for d in layout.main if d not in (channel, shapes.ANY)]

        def shape(c: int, other: int, star: tuple[int, ...]) -> tuple[int, ...]:
            return main_shape(layout, {channel: c, **{d: other for d in others}}, star)

        out += [make("random_c3_inner4", shape(3, 2, (4,)), "wide"),
                make("random_c17_inner1", shape(17, 3, ()), "wide"),
                make("random_c1", shape(1, 2, (5,)), "wide"),
                make("random_c17_odd", shape(17, 1, (3, 5)), "wide"),
                make("specials", shape(5, 2, (7,)), "specials"),
                make("empty", shape(3, 0, (4,)), "wide")]
        if kernel.scalars:
            out.append(make("scalars", shape(6, 2, (3,)), "wide",
                            {s.name: 0.5 for s in kernel.scalars}))
        return out

    last = layout.last_dim
    row_dims = [d for d in layout.main[:-1] if d != shapes.ANY]

    def row_shape(rows: tuple[int, ...], cols: int) -> tuple[int, ...]:
        if shapes.ANY in layout.main:
            return main_shape(layout, {last: cols}, rows)
        return main_shape(layout, {last: cols, row_dims[0]: int(np.prod(rows))}, ())

    for rows, cols in (((7,), 1), ((6,), 5), ((5,), 33), ((3,), 1024), ((2, 3), 7),
                       ((2,), 0), ((0,), 5)):
        out.append(make(f"rows{'x'.join(map(str, rows))}_cols{cols}", row_shape(rows, cols),
                        "normal"))
    special = make("specials", row_shape((8,), 9), "normal")
    special.tensors[kernel.inputs[0]][...] = _row_specials(9)
    out.append(special)
    if kernel.scalars:
        out.append(make("scalars", row_shape((4,), 33), "normal",
                        {s.name: 0.5 for s in kernel.scalars}))
    return out
