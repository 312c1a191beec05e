"""The v++-style link config parser: good files, bad lines with file:line, merging."""

from __future__ import annotations

import pytest

from fpgakern.link import config
from fpgakern.link.config import ConfigError

GOOD = """\
# a comment
platform=xilinx_u250_gen3x16_xdma_4_1_202210_1
[connectivity]
nk=add_f32:4:add_f32_1.add_f32_2.add_f32_3.add_f32_4
nk=exp_f32:2:e1,e2      # the current separator
sp=add_f32_1.a:DDR[0]
sp = add_f32_2.m_axi_gmem0 : HBM[0:3]
slr=add_f32_1:slr1
stream_connect=p_1.out:c_1.in:64
sc=p_1.o2:c_1.i2
[vivado]
prop=run.impl_1.strategy=Performance_Explore
"""


def test_good_config():
    c = config.parse(GOOD, "link.cfg")
    assert c.nk_for("add_f32").cu_names == tuple(f"add_f32_{i}" for i in range(1, 5))
    assert c.nk_for("exp_f32").cu_names == ("e1", "e2")
    assert [(s.cu, s.port, s.memory) for s in c.sp] == [
        ("add_f32_1", "a", "DDR[0]"), ("add_f32_2", "m_axi_gmem0", "HBM[0:3]")]
    assert c.sp[1].where == "link.cfg:7"
    assert c.slr[0].slr == "SLR1"
    assert [(s.src_cu, s.dst_port, s.depth) for s in c.stream_connect] == \
        [("p_1", "in", 64), ("p_1", "i2", None)]
    assert ("vivado", "prop", "run.impl_1.strategy=Performance_Explore") in c.other
    assert ("", "platform", "xilinx_u250_gen3x16_xdma_4_1_202210_1") in c.other


def test_default_names_and_round_trip_text():
    c = config.parse(GOOD, "link.cfg")
    text = c.to_text()
    assert text.startswith("platform=")  # top-level keys precede the first section
    again = config.parse(text, "again.cfg")
    strip = lambda cfg: [(n.kernel, n.count, n.names) for n in cfg.nk]  # noqa: E731
    assert strip(again) == strip(c) and len(again.sp) == 2 and again.other == c.other
    assert config.parse("[connectivity]\nnk=k:3\n").nk[0].cu_names == ("k_1", "k_2", "k_3")


@pytest.mark.parametrize(("text", "line", "message"), [
    ("[connectivity]\nnk=add:0", 2, "positive integer"),
    ("[connectivity]\nnk=add:two", 2, "positive integer"),
    ("[connectivity]\nnk=add:2:a", 2, "2 CUs but 1 names"),
    ("[connectivity]\nnk=add:2:a.a", 2, "repeat"),
    ("[connectivity]\nnk=add:1:9bad", 2, "not a valid CU name"),
    ("[connectivity]\nnk=add", 2, "expected <kernel>:<count>"),
    ("[connectivity]\n\nnk=add:1\nnk=add:2", 4, "repeats"),
    ("[connectivity]\nsp=add_1:DDR[0]", 2, "expected <cu>.<port>"),
    ("[connectivity]\nsp=add_1.a", 2, "<memory>"),
    ("[connectivity]\nslr=add_1:X", 2, "SLR<n>"),
    ("[connectivity]\nstream_connect=a.b", 2, "expected <cu>.<port>:<cu>.<port>"),
    ("[connectivity]\nsc=a.b:c.d:deep", 2, "depth"),
    ("[connectivity]\nfrobnicate=1", 2, r"unknown \[connectivity\] key"),
    ("[connectivity]\nnk=", 2, "no value"),
    ("[connectivity\nnk=a:1", 1, "malformed section"),
    ("[connectivity]\njust words", 2, "expected key=value"),
])
def test_bad_lines_name_file_and_line(text, line, message):
    with pytest.raises(ConfigError, match=message) as info:
        config.parse(text, "bad.cfg")
    assert str(info.value).startswith(f"bad.cfg:{line}: ")


def test_merge_later_wins_per_kernel_and_port():
    build = config.parse("[connectivity]\nnk=add_f32:4\nsp=add_f32_1.a:DDR[0]\n", "build")
    user = config.parse("[connectivity]\nnk=add_f32:2\nsp=add_f32_1.A:DDR[3]\n", "user")
    merged = build.merged(user)
    assert merged.nk_for("add_f32").count == 2
    assert [s.memory for s in merged.sp] == ["DDR[3]"]


def test_load_missing_file(tmp_path):
    with pytest.raises(config.UsageError, match="cannot read link config"):
        config.load(tmp_path / "nope.cfg")
