"""Rung 5 in simulation (issue 13, item 5): the rung-4 kernel as many compute units as
the platform's banks feed, each port on a pseudo-channel of its own, the host splitting
the work. Its model verilates one CU as a hierarchical block, so that ten CUs build as
fast as one. The ladder benchmark (benchmarks/ladder.py --platform) measures every
kernel on both cards; this is its smallest check that can fail."""

from __future__ import annotations

from fpgakern import paths
from fpgakern.ladder import plan
from fpgakern.link import platforms
from fpgakern.spec.library import Library
from fpgakern.verify import rtlsim

LIBRARY = Library(paths.specs_dir())


def test_rung5_add_on_u55c_reaches_90_percent_of_the_roofline(tmp_path):
    hbm = platforms.load("u55c").memory_system()
    result = rtlsim.simulate(plan(LIBRARY.get("binary_ops/add"), 5, "float32", memory=hbm),
                             size=1 << 20, labels=["random"], build_speed="quick", run_dir=tmp_path)
    assert result.passed, result.message
    assert result.compute_units == 10 and result.platform == "u55c"
    assert result.ideal_elements_per_cycle < result.roofline_elements_per_cycle
    assert result.percent_of_roofline >= 90.0, result.to_json()
    assert result.percent_of_ideal <= 100.0  # the bank limit holds


def test_the_rung5_model_verilates_one_cu():
    """Built as the test above built it (cached): one hierarchical CU block."""
    p = plan(LIBRARY.get("binary_ops/add"), 5, "float32",
             memory=platforms.load("u55c").memory_system())
    model = rtlsim.build_model(p, "fast", speed="quick")
    log = (model.folder / "build.log").read_text()
    assert "--hierarchical" in log and "fk_sim_cu" in log
    wrapper = (model.folder / "src" / "fk_sim_top.sv").read_text()
    assert wrapper.count("module fk_sim_cu (") == 1 and wrapper.count("    fk_sim_cu cu") == 10
