"""Fixtures and checks shared by the RTL operator library tests (vectors: fpgakern.verify.opsim)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from fpgakern.errors import ToolError
from fpgakern.tools import verilator
from fpgakern.verify.opsim import check_against_reference

# Ops whose RTL creates NaNs (rather than passing an operand's bits through): they must
# produce the canonical quiet NaN, as docs/operators.md promises.
CANONICAL_NAN_OPS = {"add", "sub", "mul", "fma", "maximum", "minimum", "trunc", "floor", "ceil",
                     "round", "reciprocal", "clamp"}
CANONICAL_NAN_OPS |= {"fmod", "remainder"}  # issue 14, remainders


def check_op(op_name: str, dtype: str, operands: Sequence[np.ndarray]) -> int:
    """Fail the test unless the op's RTL matches the reference bit for bit."""
    result = check_against_reference(op_name, dtype, operands)
    if not result.passed:
        pytest.fail(f"{result.module}: {result.mismatch_count} of {result.compared} differ: "
                    + "; ".join(result.mismatches))
    if op_name in CANONICAL_NAN_OPS:
        assert result.noncanonical_nans == 0, f"{result.module}: non-canonical NaN output"
    return result.compared


@pytest.fixture(name="check_op")
def _check_op_fixture() -> object:
    """check_op as a fixture, so test modules need no import path to this conftest."""
    return check_op


@pytest.fixture(scope="session", autouse=True)
def _verilator_available() -> None:
    try:
        verilator.bin_dir()
    except ToolError as err:
        pytest.skip(str(err))


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A generator seeded from the test's id: stable across runs, different per test."""
    return np.random.default_rng(list(request.node.nodeid.encode()))


@pytest.fixture(name="table_generator")
def _table_generator_fixture() -> object:
    """``table_generator("gen_log_table")``: a table generator script of the operator
    library, loaded as a module (the scripts are not part of the package)."""
    import importlib.util

    from fpgakern.verify import opsim

    def load(name: str) -> object:
        spec = importlib.util.spec_from_file_location(name, opsim.OPLIB_DIR / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load
