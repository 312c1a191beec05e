"""The table's reductions (sum, max, min, prod, mean, argmax, argmin)."""

from __future__ import annotations

import numpy as np

from fpgakern.ir.ops.elementwise import _COMPARE
from fpgakern.ir.ops.model import BOTH, EXACT, FLOAT, Accuracy, Op, RtlImpl, _fp_core
from fpgakern.ir.ops.references import (
    _INT32_MIN,
    _argmax,
    _argmin,
    _mean,
    _prod,
    _reduce_max,
    _reduce_min,
    _sum,
)

_REDUCTIONS: tuple[Op, ...] = (
    Op("sum", 1, "reduce", BOTH, _sum, "({0} + {1})", "sum of all elements",
       accuracy={"float32": Accuracy("reduction"), "int32": EXACT},
       combine="add", identity={"float32": -0.0, "int32": 0},
       rtl={"float32": RtlImpl("fk_reduce_fp32_sum", 34),
            "int32": RtlImpl("fk_reduce_int32_sum", 3)},
       vitis=_fp_core("fadd")),
    Op("max", 1, "reduce", BOTH, _reduce_max, "fk::maximum({0}, {1})",
       "largest element; NaN propagates",
       combine="maximum", identity={"float32": float("-inf"), "int32": int(_INT32_MIN)},
       rtl={"float32": RtlImpl("fk_reduce_fp32_max", 3),
            "int32": RtlImpl("fk_reduce_int32_max", 3)},
       vitis=_COMPARE),
    Op("min", 1, "reduce", BOTH, _reduce_min, "fk::minimum({0}, {1})",
       "smallest element; NaN propagates",
       combine="minimum", identity={"float32": float("inf"), "int32": int(np.iinfo(np.int32).max)},
       rtl={"float32": RtlImpl("fk_reduce_fp32_min", 3),
            "int32": RtlImpl("fk_reduce_int32_min", 3)},
       vitis=_COMPARE),
    Op("prod", 1, "reduce", BOTH, _prod, "({0} * {1})",
       "product of all elements (int32 multiplies with wrap-around)",
       accuracy={"float32": Accuracy("reduction", bound="product"), "int32": EXACT},
       combine="mul", identity={"float32": 1.0, "int32": 1},
       rtl={"float32": RtlImpl("fk_reduce_fp32_prod", 34),
            "int32": RtlImpl("fk_reduce_int32_prod", 14)},
       vitis=_fp_core("fmul")),
    # sum's accumulator, then fk_fp32_div by float(n): 34 + 18 cycles of drain.
    Op("mean", 1, "reduce", FLOAT, _mean, "({0} + {1})",
       "arithmetic mean of all elements: their sum divided by n; NaN for no element",
       accuracy=Accuracy("reduction", bound="mean"),
       combine="add", identity={"float32": -0.0}, finish="div", accumulates="sum",
       rtl={"float32": RtlImpl("fk_reduce_fp32_sum", 52)},
       vitis=_fp_core("fadd")),
    Op("argmax", 1, "reduce", BOTH, _argmax, "fk::pick<true>({0}, {1})",
       "index of the first largest element (the first NaN if any; -0 == +0)",
       result_dtype="int64", picks="larger", combine="maximum",
       identity={"float32": float("-inf"), "int32": int(_INT32_MIN)},
       rtl={"float32": RtlImpl("fk_reduce_fp32_argmax", 3),
            "int32": RtlImpl("fk_reduce_int32_argmax", 3)},
       vitis=_COMPARE),
    Op("argmin", 1, "reduce", BOTH, _argmin, "fk::pick<false>({0}, {1})",
       "index of the first smallest element (the first NaN if any; -0 == +0)",
       result_dtype="int64", picks="smaller", combine="minimum",
       identity={"float32": float("inf"), "int32": int(np.iinfo(np.int32).max)},
       rtl={"float32": RtlImpl("fk_reduce_fp32_argmin", 3),
            "int32": RtlImpl("fk_reduce_int32_argmin", 3)},
       vitis=_COMPARE),
)
