"""The Python runtime's API: bad inputs give one clear UsageError, missing and failed
kernels are KernelUnavailable, and devices open from a build tree or an .xclbin."""

from __future__ import annotations

import json

import numpy as np
import pytest
from runtime_support import LIBRARY, device_for, fake_build, variant

import fpgakern.runtime as rt
from fpgakern.errors import UsageError
from fpgakern.link import linker, platforms, resolve, xclbin
from fpgakern.runtime import KernelUnavailable


@pytest.fixture(scope="module")
def add():
    return device_for("binary_ops/add", 4, "float32", "sw_emu").kernel("binary_ops/add")


def test_wrong_dtype(add):
    a = np.ones(4)
    with pytest.raises(UsageError, match=r"dtype float64 is not supported.*astype"):
        add(a, a)


def test_two_dimensional(add):
    a = np.ones((2, 3), dtype=np.float32)
    with pytest.raises(UsageError, match=r"shape \(2, 3\).*1-D.*ravel"):
        add(a, a)


def test_non_contiguous(add):
    a = np.ones(10, dtype=np.float32)[::2]
    with pytest.raises(UsageError, match="not contiguous.*ascontiguousarray"):
        add(a, a)


def test_mismatched_inputs(add):
    a = np.ones(4, dtype=np.float32)
    with pytest.raises(UsageError, match="different lengths"):
        add(a, np.ones(5, dtype=np.float32))
    with pytest.raises(UsageError, match="different dtypes"):
        add(a, np.ones(4, dtype=np.int32))
    with pytest.raises(UsageError, match=r"takes 2 array\(s\)"):
        add(a)
    with pytest.raises(UsageError, match="must be a numpy array"):
        add(a, [1.0, 2.0, 3.0, 4.0])


def test_bad_scalars(add):
    a = np.ones(4, dtype=np.float32)
    with pytest.raises(UsageError, match="unknown scalar.*beta"):
        add(a, a, beta=2)
    with pytest.raises(UsageError, match="must be a number"):
        add(a, a, alpha="two")
    add_i32 = device_for("binary_ops/add", 4, "int32", "sw_emu").kernel("binary_ops/add")
    x = np.ones(4, dtype=np.int32)
    with pytest.raises(UsageError, match="not an integer"):
        add_i32(x, x, alpha=2.5)
    np.testing.assert_array_equal(add_i32(x, x, alpha=3.0), np.full(4, 4, np.int32))


def test_any_length_is_padded_inside(add):
    for n in (1, 15, 16, 17, 33):
        a = np.arange(n, dtype=np.float32)
        np.testing.assert_array_equal(add(a, a), 2 * a)
    assert add(np.zeros(0, np.float32), np.zeros(0, np.float32)).shape == (0,)


def test_missing_kernel_and_dtype():
    dev = rt.open_plans([variant("binary_ops/add", 2, "float32")], "sw_emu")
    with pytest.raises(KernelUnavailable, match="unary_ops/exp is not on this device"):
        dev.kernel("unary_ops/exp")
    with pytest.raises(KernelUnavailable, match="no int32 variant"):
        dev.kernel("binary_ops/add")(np.ones(2, np.int32), np.ones(2, np.int32))
    with pytest.raises(UsageError, match="unknown kernel"):
        dev.kernel("binary_ops/nope")


def test_build_tree_highest_rung_and_failed_builds(tmp_path):
    fake_build(tmp_path, "unary_ops/neg", 1, "float32", True)
    fake_build(tmp_path, "unary_ops/neg", 2, "float32", True)
    fake_build(tmp_path, "unary_ops/relu", 2, "float32", False)
    dev = rt.open(tmp_path, "sw_emu")
    neg = dev.kernel("unary_ops/neg")
    assert neg.variant("float32").plan.rung.index == 2
    x = np.array([1.5, -0.0], dtype=np.float32)
    np.testing.assert_array_equal(neg(x), -x)
    with pytest.raises(KernelUnavailable, match="failed C simulation"):
        dev.kernel("unary_ops/relu")(x)
    # A build that stopped before csim (--until hls or host) has no verdict: it did not
    # fail, it was not run, and the error says how to get one.
    fake_build(tmp_path, "unary_ops/abs", 2, "float32", True)
    manifest = tmp_path / "unary_ops" / "abs" / "opt2" / "float32" / "manifest.json"
    doc = json.loads(manifest.read_text())
    del doc["csim"]
    manifest.write_text(json.dumps(doc))
    with pytest.raises(KernelUnavailable, match=r"has not run C simulation \(build it with "
                                                 r"--until csim or further\)"):
        rt.open(tmp_path, "sw_emu").kernel("unary_ops/abs")(x)
    assert rt.open(tmp_path, "sw_emu", opt=1).kernel("neg_f32").variant("float32") \
        .plan.rung.index == 1
    with pytest.raises(UsageError, match="no such build folder"):
        rt.open(tmp_path / "missing")
    with pytest.raises(UsageError, match="unknown target"):
        rt.open(tmp_path, "fpga")


def test_xclbin_gives_kernels_rungs_and_cus(tmp_path):
    refs = ["binary_ops/add@opt3:float32", "reduce_ops/max@opt4:int32"]
    design = linker.link(resolve.resolve(refs, LIBRARY, tmp_path / "build"),
                         platforms.load("u250"), None, "hw_emu")
    path = tmp_path / "lib.xclbin"
    path.write_bytes(xclbin.to_xclbin(design))
    dev = rt.open(path, "sw_emu")
    assert set(dev.variants) == {"add_f32", "max_i32"}
    add = dev.variants["add_f32"]
    assert add.plan.rung.index == 3 and add.compute_units == 4
    assert add.cu_names == ("add_f32_1", "add_f32_2", "add_f32_3", "add_f32_4")
    assert dev.variants["max_i32"].plan.rung.index == 4
    x = np.array([3, -7, 2**31 - 1, 5], dtype=np.int32)
    assert int(dev.kernel("reduce_ops/max")(x)) == 2**31 - 1


def test_hw_target_needs_pyxrt_or_says_so():
    dev = rt.open_plans([variant("unary_ops/neg", 2, "float32")], "hw")
    try:
        import pyxrt  # noqa: F401
    except ImportError:
        with pytest.raises(Exception, match="pyxrt"):
            dev.kernel("unary_ops/neg")(np.ones(2, np.float32))
    else:  # pragma: no cover - a machine with XRT
        pytest.skip("pyxrt present: the hw target needs a card and an xclbin")


def test_relative_build_tree_with_a_cold_model_cache(tmp_path, monkeypatch):
    """``rt.open("build")`` as the README shows it, before any model is cached: the sw_emu
    model is compiled on the first call, in a staging folder and after the caller changed
    directory, so every path must have been made absolute when the device opened."""
    torch = pytest.importorskip("torch")
    import fpgakern.runtime.torch_ops as fk_torch

    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    fake_build(project / "build", "unary_ops/neg", 2, "float32", True)
    elsewhere.mkdir()
    cache = tmp_path / "cold-cache"
    monkeypatch.setenv("FPGAKERN_CACHE_DIR", str(cache))
    monkeypatch.chdir(project)
    dev = rt.open("build", target="sw_emu")
    variant_dir = dev.variants["neg_f32"].hls_dir
    assert variant_dir is not None and variant_dir.is_absolute()
    monkeypatch.chdir(elsewhere)
    x = np.array([1.5, -0.0, np.inf, 3e-41], dtype=np.float32)
    np.testing.assert_array_equal(dev.kernel("unary_ops/neg")(x), -x)  # compiles here
    assert list(cache.rglob("libfkemu_neg_f32_sw_emu.so"))
    # The torch op runs that kernel (strict: a fallback would raise instead of warning).
    fk_torch.use(rt.open("../project/build", "sw_emu"), strict=True)
    try:
        t = torch.from_numpy(x)
        assert torch.equal(torch.ops.fpgakern.neg(t), torch.neg(t))
    finally:
        fk_torch.use(None)


def test_relative_cache_dir_and_xclbin(tmp_path, monkeypatch):
    """A relative $FPGAKERN_CACHE_DIR (read from the staging folder it would name another
    place) and a relative .xclbin path."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FPGAKERN_CACHE_DIR", "cache")
    dev = rt.open_plans([variant("unary_ops/relu", 2, "int32")], "sw_emu")
    x = np.array([-(2**31), -1, 0, 7, 2**31 - 1], dtype=np.int32)
    np.testing.assert_array_equal(dev.kernel("unary_ops/relu")(x), np.maximum(x, 0))
    assert list((tmp_path / "cache").rglob("libfkemu_relu_i32_sw_emu.so"))
    design = linker.link(resolve.resolve(["unary_ops/relu@opt2:int32"], LIBRARY,
                                         tmp_path / "build"), platforms.load("u250"), None,
                         "hw_emu")
    (tmp_path / "lib.xclbin").write_bytes(xclbin.to_xclbin(design))
    dev = rt.open("lib.xclbin", "sw_emu")
    monkeypatch.setenv("FPGAKERN_CACHE_DIR", str(tmp_path / "cache"))  # relative to here
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert dev.xclbin == tmp_path / "lib.xclbin"
    np.testing.assert_array_equal(dev.kernel("unary_ops/relu")(x), np.maximum(x, 0))


def test_hw_emu_runs_the_rtl_the_build_wrote(tmp_path, monkeypatch):
    """Opened from a build tree, hw_emu verilates the build's rtl/ (what the build linted,
    simulated and packaged), never a fresh generation."""
    from click.testing import CliRunner

    import fpgakern.runtime.models as models
    from fpgakern.cli import main

    for until in ("csim", "lint"):  # lint brings the rtl step; csim's verdict is kept
        done = CliRunner().invoke(main, ["build", "unary_ops/neg", "--opt", "2", "--dtype",
                                         "float32", "--until", until, "--out",
                                         str(tmp_path / "build")])
        assert done.exit_code == 0, done.output

    def no_generation(*args, **kwargs):
        raise AssertionError("hw_emu generated RTL instead of using the build's")

    monkeypatch.setattr(models, "generate_rtl", no_generation)
    device = rt.open(tmp_path / "build", "hw_emu", opt=2)
    x = np.linspace(-3, 3, 41, dtype=np.float32)
    np.testing.assert_array_equal(device.kernel("unary_ops/neg")(x), -x)
