"""``fpgakern vitis`` judges Vitis C simulation as Vitis computes it: torch's reference,
except that the ops whose HLS spelling calls hls::sqrt (sqrt, rsqrt, and the kernels built
on them: batch_norm, layer_norm, rms_norm) flush subnormals, as the Floating-Point
Operator core's C model Vitis' csim links does (fpgakern.verify.flush.csim_apply).
Co-simulation keeps the flushing reference of the hardware. docs/vitis.md, "Vitis C
simulation".
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from click.testing import CliRunner

from fpgakern.backends.hls import generate
from fpgakern.cli import main
from fpgakern.ir.ops import OPS
from fpgakern.ladder import plan
from fpgakern.verify import csim, flush, reference
from fpgakern.verify.shaped_stimulus import ShapedCase
from fpgakern.verify.stimulus import Case

TINY = np.float32(1e-40)  # subnormal
F32 = np.float32


def _bits(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def test_the_ops_vitis_csim_flushes_are_those_that_call_hls_sqrt(library):
    assert sorted(flush.CSIM_FPO_OPS) == ["rsqrt", "sqrt"]
    want = {"unary_ops/sqrt": ["sqrt"], "unary_ops/rsqrt": ["rsqrt"],
            "nn_ops/batch_norm": ["sqrt"], "nn_ops/layer_norm": ["rsqrt"],
            "nn_ops/rms_norm": ["rsqrt"], "unary_ops/exp": [], "binary_ops/add": []}
    for name, ops in want.items():
        assert flush.csim_fpo_ops(library.get(name), "float32") == ops, name
    # complex64 abs calls hls::sqrt inside fk::abs, on a scaled sum of squares that is
    # never subnormal (docs/vitis.md): no op of it flushes in the model.
    assert flush.csim_fpo_ops(library.get("unary_ops/abs"), "complex64") == []


def test_csim_apply_flushes_sqrt_and_nothing_else():
    x = np.array([TINY, -TINY, 4.0, -0.0, 2.0**-126], dtype=F32)
    out = flush.csim_apply(OPS["sqrt"], [x])
    assert list(_bits(out)) == [0, 0x8000_0000, _bits(F32(2.0))[()], 0x8000_0000,
                                _bits(F32(2.0**-63))[()]]
    assert np.isnan(OPS["sqrt"].reference(x)[1])  # IEEE: sqrt of a negative subnormal
    assert np.isinf(flush.csim_apply(OPS["rsqrt"], [x])[0])
    # An add of subnormals stays subnormal in Vitis C simulation (x86), where the
    # hardware's reference flushes it.
    a, b = np.array([TINY], F32), np.array([TINY], F32)
    assert flush.csim_apply(OPS["add"], [a, b])[0] == TINY + TINY != 0
    assert flush.apply(OPS["add"], [a, b])[0] == 0
    # A row kernel's float64 evaluation: below float32's smallest normal is zero.
    wide = flush.csim_apply(OPS["rsqrt"], [np.array([1e-39, 1e-30])])
    assert np.isinf(wide[0]) and wide[1] == pytest.approx(1e15)


def _case_expected(path, n_inputs: int, n: int) -> np.ndarray:
    data = np.fromfile(path, dtype=np.uint8)
    start = 4 + 4 * n * n_inputs  # int32 n, then the inputs (no scalars)
    return data[start:start + 4 * n].view(np.float32)


@pytest.mark.parametrize("name", ["unary_ops/sqrt", "unary_ops/rsqrt"])
def test_a_testbench_that_flushes_sqrt_matches_the_vitis_csim_cases_only(library, tmp_path,
                                                                          name):
    """The flushing build of the stand-in hls_math.h computes hls::sqrt as the FPO model
    does (operand flushed; no sqrt or 1/sqrt result is subnormal): it passes the cases
    fpgakern vitis writes for csim and fails torch's on the subnormal inputs."""
    p = plan(library.get(name), 2, "float32")
    sources = generate(p, tmp_path / "src")
    x = np.array([TINY, -TINY, 2.0**-149, 4.0, 0.25, -0.0, 3e38, 2.0**-126], dtype=F32)
    case = Case("subnormals", {"x": x}, {})
    binary = csim.compile_testbench(sources, flush_subnormals=True)
    verdicts = {}
    for model in ("vitis_csim", "torch"):
        path = tmp_path / f"{model}.bin"
        csim.write_case(case, p, path, vitis_csim=model == "vitis_csim")
        done = subprocess.run([str(binary), str(path), str(tmp_path / f"{model}_out.bin")],
                              capture_output=True, text=True, check=False)
        verdicts[model] = done.returncode
    assert verdicts == {"vitis_csim": csim.TB_MATCH, "torch": csim.TB_MISMATCH}
    expected = _case_expected(tmp_path / "vitis_csim.bin", 1, x.size)
    entry = OPS[name.split("/")[1]]
    assert np.array_equal(_bits(expected), _bits(entry.reference(flush.flush(x))))


def test_kernels_without_a_flushing_op_get_torch_s_cases_bit_for_bit(library, tmp_path):
    p = plan(library.get("binary_ops/add"), 2, "float32")
    case = Case("subnormals", {"a": np.array([TINY, 1.0], F32), "b": np.array([TINY, 2.0], F32)},
                {"alpha": 1.0})
    csim.write_case(case, p, tmp_path / "ieee.bin")
    csim.write_case(case, p, tmp_path / "csim.bin", vitis_csim=True)
    assert (tmp_path / "ieee.bin").read_bytes() == (tmp_path / "csim.bin").read_bytes()


def test_batch_norm_csim_cases_take_the_flushed_sqrt(library, tmp_path):
    """A channel whose running_var + eps is subnormal (eps = 0): Vitis csim's sqrt sees
    0, so invstd = 1/0 = inf, shift = fma(-0, inf, 0) is NaN and so is every result of the
    channel, where torch's are finite."""
    kernel = library.get("nn_ops/batch_norm")
    p = plan(kernel, 2, "float32")
    x = np.array([[[1.0, -2.0], [0.5, 3.0]]], dtype=F32)  # (N=1, C=2, 2)
    tensors = {"x": x, "running_mean": np.zeros(2, F32),
               "running_var": np.array([TINY, 4.0], F32),
               "weight": np.ones(2, F32), "bias": np.zeros(2, F32)}
    case = ShapedCase("subnormal variance", tensors, {"eps": 0.0})
    ieee = reference.shaped_expected(kernel, "float32", tensors, case.scalars)
    vitis = reference.shaped_expected(kernel, "float32", tensors, case.scalars,
                                      apply=flush.csim_apply)
    assert np.isfinite(ieee).all()
    assert np.isnan(vitis[0, 0]).all()
    assert np.array_equal(vitis[0, 1], ieee[0, 1])
    csim.write_shaped_case(case, p, tmp_path / "ieee.bin")
    csim.write_shaped_case(case, p, tmp_path / "csim.bin", vitis_csim=True)
    assert (tmp_path / "ieee.bin").read_bytes() != (tmp_path / "csim.bin").read_bytes()


def test_the_dry_run_says_what_csim_and_cosim_are_judged_against(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["vitis", "unary_ops/sqrt", "nn_ops/batch_norm",
                                     "unary_ops/exp", "--opt", "2", "--dtype", "float32",
                                     "--dry-run"])
    assert done.exit_code == 0, done.output
    blocks = done.output.split("run_hls.tcl\n")
    said = dict(zip(("sqrt", "batch_norm", "exp"), blocks[1:], strict=True))
    flushed = "csim judged against torch's reference with sqrt flushing subnormals"
    assert flushed in said["sqrt"] and flushed in said["batch_norm"]
    assert "csim judged against torch's reference\n" in said["exp"]
    assert "cosim judged against the flushing reference" in said["sqrt"]
