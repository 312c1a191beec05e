"""The rule that picks the default tier's variants (tests/variant_selection.py) keeps its
promise: every kernel kind, every rung and every dtype is simulated in RTL at least once
by default, every operator in every dtype is compiled in C simulation, and nothing is left
out of ``-m slow``."""

from __future__ import annotations

from pathlib import Path

import pytest
from variant_selection import (
    RTL_PROVEN_ELSEWHERE,
    all_variants,
    representative_variants,
    variant_params,
)

from fpgakern.ir.kernel import KINDS, NO_RTL_KINDS
from fpgakern.ladder import RUNGS
from fpgakern.paths import specs_dir
from fpgakern.spec.library import Library

LIBRARY = Library(specs_dir())


def _kind(variant: tuple[str, int, str]) -> str:
    return str(LIBRARY.get(variant[0]).kind)


def test_every_kernel_kind_has_a_default_rtl_simulation():
    """A kind added to the IR without a kernel in the library, or one the rule leaves out,
    has no RTL simulation in the default run: this fails, naming it. The one exemption is
    fpgakern.ir.kernel.NO_RTL_KINDS (a kind with no RTL generator, and its reason); a kind
    no bundled kernel has is simulated by the test file RTL_PROVEN_ELSEWHERE names."""
    chosen = representative_variants(LIBRARY, operators=False)
    missing = (set(KINDS) - set(NO_RTL_KINDS) - set(RTL_PROVEN_ELSEWHERE)
               - {_kind(v) for v in chosen})
    assert not missing, f"kinds without a default-tier RTL simulation: {sorted(missing)}"


def test_kinds_proven_elsewhere_are_simulated_there_by_default():
    """Each RTL_PROVEN_ELSEWHERE file exists, simulates its kind, and is not slow-only."""
    root = Path(__file__).parents[1]
    for kind, test_file in RTL_PROVEN_ELSEWHERE.items():
        text = (root / test_file).read_text()
        assert f'"{kind}"' in text and "simulate_registers" in text, (kind, test_file)
        assert "pytestmark = pytest.mark.slow" not in text, test_file


def test_every_rung_and_dtype_is_simulated_in_rtl_by_default():
    chosen = representative_variants(LIBRARY, operators=False)
    declared_rungs = {r for k in LIBRARY.kernels for r in k.rungs}
    declared_dtypes = {d for k in LIBRARY.kernels for d in k.dtypes}
    assert {v[1] for v in chosen} >= declared_rungs - {3, 5}  # N CUs of rung 2's and 4's
    assert {v[2] for v in chosen} == declared_dtypes
    for kind in set(KINDS) - set(NO_RTL_KINDS):
        rungs = {v[1] for v in chosen if _kind(v) == kind}
        declared = {r for k in LIBRARY.kernels if k.kind == kind for r in k.rungs}
        assert rungs | {3, 5} >= declared, (kind, sorted(declared - rungs))


def test_the_rtl_exemption_is_only_for_kinds_without_an_rtl_generator():
    """NO_RTL_KINDS exempts named kinds only, each with its reason; every other kind
    stays under the rule above."""
    assert set(NO_RTL_KINDS) <= set(KINDS)
    assert set(NO_RTL_KINDS) == set()  # every kind has its RTL generator now
    assert all("no RTL generator" in reason for reason in NO_RTL_KINDS.values())


def test_every_operator_in_every_dtype_is_compiled_in_c_simulation():
    chosen = set(representative_variants(LIBRARY))
    expressions = [k for k in LIBRARY.kernels if k.transform is None]
    wanted = {(op.name, d) for k in expressions for d in k.dtypes for op in k.ops_used(d)
              if not op.picks}
    got = {(op.name, d) for name, _, d in chosen if LIBRARY.get(name).transform is None
           for op in LIBRARY.get(name).ops_used(d)}
    assert wanted <= got, sorted(wanted - got)


def test_a_users_kernel_is_picked_without_touching_any_test(write_spec, tmp_path):
    """The rule works from what each variant proves, not from a list of names: a kernel
    of any name in a library of its own has each of its rungs simulated by default."""
    write_spec(tmp_path, "mine/_category.yaml", "doc: A user's kernels.\n")
    write_spec(tmp_path, "mine/twice.yaml", "kernel: twice\ndoc: Twice x.\ninputs: [x]\n"
               "outputs: [out]\ndtypes: [float32]\nexpression: x * 2\n")
    library = Library(tmp_path / "kernel_specs")
    kernel = library.get("mine/twice")
    chosen = representative_variants(library, operators=False)
    assert {v[0] for v in chosen} == {"mine/twice"}
    assert {v[1] for v in chosen} == set(kernel.rungs)


@pytest.mark.parametrize("operators", [True, False])
def test_slow_holds_every_variant_the_default_leaves_out(operators):
    params = variant_params(LIBRARY, operators=operators)
    assert [tuple(p.values) for p in params] == all_variants(LIBRARY)
    fast = [tuple(p.values) for p in params if not p.marks]
    assert sorted(fast) == representative_variants(LIBRARY, operators=operators)
    assert all(m.name == "slow" for p in params for m in p.marks)
    assert len(fast) < len(params) / 4  # the point of the rule: a small default tier


def test_rtl_selection_stays_small():
    """Each RTL variant is a Verilator model (a minute cold for an FFT); the rule's picks
    grow with the kinds and the features they prove, not with the library's size."""
    assert len(representative_variants(LIBRARY, operators=False)) <= 40
    assert len(RUNGS) == 6


def test_ties_go_to_the_shallower_datapath():
    """Of two variants proving the same, the one with the shallower datapath is picked:
    a broadcast kernel's rung 4 in RTL is bias_add's (one add) rather than batch_norm's
    (a subtract, a multiply by a reciprocal square root, a multiply-add)."""
    chosen = representative_variants(LIBRARY, operators=False)
    broadcast4 = [v for v in chosen
                  if v[1] == 4 and LIBRARY.get(v[0]).kind == "broadcast"]
    assert broadcast4 == [("nn_ops/bias_add", 4, "float32")], broadcast4
