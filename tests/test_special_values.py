"""One vocabulary of special values (fpgakern.ir.special) for kernels and RTL operators:
one name per value, both selections drawn from it, each covering every kind of value."""

from __future__ import annotations

import numpy as np

from fpgakern.ir import special
from fpgakern.ladder import Microarchitecture
from fpgakern.verify import opsim, stimulus

# Every kind of value both kernels and operators must be tested on.
CORE_FLOAT32 = {"qnan", "+inf", "-inf", "+0", "-0", "+1", "-1", "+min_subnormal",
                "-min_subnormal", "+max_subnormal", "+min_normal", "-min_normal",
                "+max_normal", "-max_normal", "1+ulp", "1-ulp/2", "2^24"}
CORE_INT32 = {"0", "1", "-1", "max", "min", "max-1", "-max", "0x55555555"}


def test_one_name_per_value():
    for table in (special.FLOAT32, special.INT32):
        values = list(table.values())
        assert len(set(values)) == len(values), "two names for one value"


def test_names_say_what_the_values_are():
    f32 = {name: special.float32([name])[0] for name in special.FLOAT32}
    for name, value in f32.items():
        nan, subnormal = np.isnan(value), value != 0 and abs(value) < np.finfo(np.float32).tiny
        assert nan == ("nan" in name), name
        if "subnormal" in name or name.startswith("min_normal/2"):
            assert subnormal, name
        elif "normal" in name:
            assert not subnormal and not nan and np.isfinite(value), name
        if not nan and name.lstrip("+-").replace(".", "").isdigit():
            assert value == float(name), name  # a plain decimal name is that number
    assert f32["+max_normal"] == np.finfo(np.float32).max
    assert f32["+min_normal"] == np.finfo(np.float32).tiny
    assert f32["+min_subnormal"] == np.finfo(np.float32).smallest_subnormal
    assert special.INT32["max"] == np.iinfo(np.int32).max
    assert special.INT32["min"] == np.iinfo(np.int32).min


def test_kernels_and_operators_draw_from_it():
    for selection, table in ((special.KERNEL_FLOAT32, special.FLOAT32),
                             (special.OPERATOR_FLOAT32, special.FLOAT32),
                             (special.KERNEL_INT32, special.INT32),
                             (special.OPERATOR_INT32, special.INT32)):
        assert len(set(selection)) == len(selection) and set(selection) <= set(table)
    for selection in (special.KERNEL_FLOAT32, special.OPERATOR_FLOAT32):
        assert set(selection) >= CORE_FLOAT32
    for selection in (special.KERNEL_INT32, special.OPERATOR_INT32):
        assert set(selection) >= CORE_INT32
    # The modules that test kernels and operators use the selections.
    assert stimulus.FLOAT_SPECIALS.tobytes() == special.float32(special.KERNEL_FLOAT32).tobytes()
    assert np.array_equal(stimulus.INT_SPECIALS, special.int32(special.KERNEL_INT32))
    assert np.array_equal(opsim.fp32_named(), special.float32_bits(special.OPERATOR_FLOAT32))
    assert set(opsim.INT32_SPECIALS.view(np.int32)) == set(special.int32(special.OPERATOR_INT32))


def test_a_binary_kernels_special_pairs_fit_one_testbench_case():
    pairs = len(special.KERNEL_FLOAT32) ** 2
    assert pairs <= Microarchitecture.max_test_elements
