"""Each rung's HLS C++ carries the constructs that make it that rung."""

from __future__ import annotations

import re

import pytest

from fpgakern.backends.hls.cexpr import literal
from fpgakern.backends.hls.generator import generate, render_kernel, render_link_config
from fpgakern.ir.ops import OPS
from fpgakern.ladder import plan, platform_plan
from fpgakern.link import config, platforms
from fpgakern.paths import SOURCE_ROOT as REPO
from fpgakern.spec.library import Library


def code(library, name, rung, dtype="float32"):
    return render_kernel(plan(library.get(name), rung, dtype))


def test_rung0_is_naive_single_bundle(library):
    text = code(library, "binary_ops/add", 0)
    assert text.count("bundle=gmem ") + text.count("bundle=gmem\n") == 3
    assert "PIPELINE off" in text
    assert 'extern "C" void add_f32(' in text
    assert "hls::stream" not in text


def test_rung1_has_local_buffers_and_bursts(library):
    text = code(library, "binary_ops/add", 1)
    assert "float a_buf[CHUNK];" in text and "float b_buf[CHUNK];" in text
    assert "max_read_burst_length=256" in text
    assert re.search(r"read_a:\s+for .*\n#pragma HLS PIPELINE II=1", text)
    assert "DATAFLOW" not in text


def test_rung2_is_dataflow_with_streams_and_one_bundle_per_pointer(library):
    text = code(library, "binary_ops/add", 2)
    assert "#pragma HLS DATAFLOW" in text
    assert text.count("PIPELINE II=1") >= 3
    assert "hls::stream<float> a_stream" in text
    for i, port in enumerate(("a", "b", "out")):
        assert f"port={port} offset=slave bundle=gmem{i}" in text


def _body(text: str) -> str:
    """A kernel's C++ after its header comment (which names the rung)."""
    return text.split("edit the spec, not this file.\n", 1)[1]


def test_rung3_is_the_dataflow_kernel_plus_nk_link_config(library, tmp_path):
    rung3, rung2 = (code(library, "binary_ops/add", r) for r in (3, 2))
    assert "rung 3 (multi_cu)" in rung3 and _body(rung3) == _body(rung2)
    add = library.get("binary_ops/add")
    p = platform_plan(add, 3, "float32", platforms.load("u55c").memory_system())
    sources = generate(p, tmp_path)
    config = sources.link_config.read_text()
    assert "[connectivity]" in config and "nk=add_f32:4" in config
    # HBM: CU 4's out is the 12th data-moving port, on the 12th pseudo-channel.
    assert "sp=add_f32_4.out:HBM[11]" in config
    assert generate(plan(add, 3, "float32"), tmp_path / "none").link_config is None


@pytest.mark.parametrize("platform_name", ["u55c", "u280", "u250"])
def test_rung3_link_config_names_banks_of_its_platform(library, platform_name):
    """Every sp= line of every rung-3 link.cfg names a bank the platform file lists, and
    the file says which platform it is for. On HBM every data-moving port of every CU has
    a pseudo-channel of its own; on DDR each CU keeps its ports on one bank, CUs apart,
    each CU in the SLR of its bank (slr=)."""
    platform = platforms.load(platform_name)
    memory = platform.memory_system()
    tags = {b.tag for b in platform.banks}
    slr_of = {b.tag: b.slr for b in platform.banks}
    checked = 0
    for kernel in library.kernels:
        if 3 not in kernel.rungs:
            continue
        for dtype in kernel.dtypes:
            p = platform_plan(kernel, 3, dtype, memory)
            text = render_link_config(p)
            assert f"# Platform: {platform_name} ({platform.vitis_platform})" in text
            parsed = config.parse(text, "link.cfg")
            assert len(parsed.sp) == p.placement.compute_units * len(p.arch.pointers)
            banks: dict[str, set[str]] = {}
            moving: list[str] = []
            for sp in parsed.sp:
                assert sp.memory in tags, f"{p.top} on {platform_name}: {sp}"
                assert platform.resolve_banks(sp.memory)[0].tag == sp.memory
                banks.setdefault(sp.cu, set()).add(sp.memory)
                if sp.port in p.arch.traffic_pointers:
                    moving.append(sp.memory)
            if memory.shares_one_slr:
                assert len(set(moving)) == len(moving), p.top  # a pseudo-channel each
            else:
                assert all(len(b) == 1 for b in banks.values())  # one bank per CU
                assert len(set().union(*banks.values())) == p.placement.compute_units
                assert {s.cu: s.slr for s in parsed.slr} == {
                    cu: slr_of[next(iter(b))] for cu, b in banks.items()}
            checked += 1
    assert checked >= 10


def test_rung4_has_512_bit_ports_with_16_float_lanes(library):
    text = code(library, "binary_ops/add", 4)
    assert "constexpr int LANES = 16;  // 512-bit words" in text
    assert "typedef hls::vector<float, LANES> word_t;" in text
    assert "const word_t* a" in text and "word_t* out" in text
    assert "#pragma HLS UNROLL" in text
    assert "(n + LANES - 1) / LANES" in text


def test_rung4_int32_also_has_16_lanes(library):
    assert "hls::vector<int32_t, LANES>" in code(library, "binary_ops/add", 4, "int32")


def test_reductions_interleave_partials(library):
    text = code(library, "reduce_ops/sum", 2)
    assert "partial[ACC]" in text and "ARRAY_PARTITION variable=partial" in text
    assert "combine_tree(partial)" in text
    text4 = code(library, "reduce_ops/sum", 4)
    assert "combine_tree(lane)" in text4 and "i * LANES + l < n" in text4
    naive = code(library, "reduce_ops/max", 0)
    assert "fk::maximum(acc" in naive and "-fk::kFloatInf" in naive


@pytest.mark.parametrize("rung", [0, 1, 2, 4])
def test_a_bare_reduction_accumulates_its_input_without_an_element_function(library, rung):
    """sum(x) computes nothing per element, so no function returning its argument stands
    between the input and the accumulator; sum(a * b) keeps its element function."""
    text = code(library, "reduce_ops/sum", rung)
    assert "element(" not in text and "One result from one element" not in text
    dot = render_kernel(plan(Library(USER_SPECS).get("my_ops/dot"), rung, "float32"))
    assert "static float element(float a, float b)" in dot and "element(a" in dot


@pytest.mark.parametrize(("value", "dtype", "text"), [
    (1, "float32", "1.0f"), (2.5, "float32", "2.5f"), (-0.0, "float32", "-0.0f"),
    (0.1, "float32", "0.1f"), (1e-40, "float32", "1.0e-40f"),
    (float("-inf"), "float32", "-fk::kFloatInf"), (-(2**31), "int32", "fk::kInt32Min"),
    (7, "int32", "7"),
])
def test_literals(value, dtype, text):
    assert literal(value, dtype) == text


def test_generated_code_names_its_spec(library):
    text = code(library, "unary_ops/exp", 2)
    assert "Generated by fpgakern" in text and "kernel_specs/unary_ops/exp.yaml" in text


USER_SPECS = REPO / "tests" / "data" / "user_project" / "kernel_specs"
_DEPENDENCE = re.compile(r"^#pragma HLS DEPENDENCE\b(.*)$", re.MULTILINE)


def _every_variant(library):
    """Every bundled kernel x rung x dtype, and the user-style reductions."""
    for lib in (library, Library(USER_SPECS)):
        for kernel in lib.kernels:
            for rung in kernel.rungs:
                for dtype in kernel.dtypes:
                    yield plan(kernel, rung, dtype)


def test_no_generated_kernel_asserts_a_false_dependence(library):
    """A reduction's accumulate loop reads, at iteration i + ACC, the partial iteration i
    wrote: the kernel states that dependence (UG1399's distance form) and never claims
    the loop has none, and ACC covers the combine op's latency in Vitis HLS."""
    reductions = 0
    for p in _every_variant(library):
        text = render_kernel(p)
        pragmas = _DEPENDENCE.findall(text)
        if p.kernel.transform is not None:
            # A delay line (rungs 2-4) is read at i and written back for i + h: a true
            # dependence at distance h. Rung 1's stage loop may say false: each element
            # is read and written by one butterfly of the stage only, and stages do not
            # overlap (LOOP_FLATTEN off).
            for args in pragmas:
                assert "dependent=true distance=" in args or (
                    p.rung.index == 1 and "LOOP_FLATTEN off" in text), (p.top, args)
            continue
        assert not any(re.search(r"\bfalse\b|\binter\s*$", args) for args in pragmas), \
            f"{p.top} rung {p.rung.index}: {pragmas}"
        if p.kernel.kind == "contraction":
            # Rungs 2-4 interleave independent outputs: an output's next sum reads its
            # last one that many iterations later, past the adder's latency.
            assert len(pragmas) == (1 if p.rung.index >= 2 else 0), (p.top, pragmas)
            for args in pragmas:
                distance = int(args.rsplit("distance=", 1)[1])
                assert "dependent=true" in args
                assert distance >= OPS["add"].hls_latency[p.dtype.name], (p.top, args)
            continue
        assert not any(re.search(r"\bfalse\b|\binter\s*$", args) for args in pragmas), \
            f"{p.top} rung {p.rung.index}: {pragmas}"
        staged = p.kernel.staged(p.dtype.name)
        if staged is not None and staged.kind != "broadcast" and p.rung.index > 0:
            # Each row statistic's pass over the row buffer keeps its own partials.
            reductions += 1
            stats = [*staged.stats, *([] if staged.final is None else [staged.final])]
            assert len(pragmas) == len(stats), p.top
            for args, stat in zip(pragmas, stats, strict=True):
                op = stat if staged.final is stat else stat.op
                acc = op.hls_partials(p.dtype.name)
                assert args.endswith(f"dependent=true distance={acc}"), (p.top, args)
                assert acc >= OPS[op.combine].hls_latency[p.dtype.name]
            continue
        reduction = p.kernel.reduction
        if reduction is None or not (p.rung.buffered or p.rung.dataflow):
            assert not pragmas, f"{p.top} rung {p.rung.index}"
            continue
        reductions += 1
        acc = p.arch.hls_acc_interleave
        assert pragmas == [" variable=partial type=inter direction=RAW dependent=true "
                           f"distance={acc}"], p.top
        assert f"constexpr int ACC = {acc};" in text
        assert acc >= OPS[reduction.combine].hls_latency[p.dtype.name]
    assert reductions > 20


def test_hls_interleave_follows_vitis_not_the_rtl(library):
    """float max: Vitis' compare takes more than the RTL's one cycle, so the HLS C++
    keeps more partials than the RTL; float sum keeps the RTL's order (bit-exact)."""
    peak = plan(library.get("reduce_ops/max"), 2, "float32")
    assert peak.arch.acc_interleave == 1 and peak.arch.hls_acc_interleave == 4
    total = plan(library.get("reduce_ops/sum"), 2, "float32")
    assert total.arch.hls_acc_interleave == total.arch.acc_interleave == 8


@pytest.mark.parametrize(("name", "rung", "dtype"), [("binary_ops/add", 3, "float32"),
                                                     ("reduce_ops/sum", 4, "int32")])
def test_render_is_what_generate_writes(name, rung, dtype, tmp_path):
    """Each backend's render(plan) makes the files its generate writes, byte for byte, and
    nothing else; render itself writes nothing."""
    from fpgakern.backends import host
    from fpgakern.backends.hls import generator as hls
    from fpgakern.backends.rtl import generate as rtl_generate

    p = platform_plan(Library(REPO / "kernel_specs").get(name), rung, dtype,
                      platforms.load(platforms.DEFAULT).memory_system())
    for folder, rendered, write in (
            ("hls", hls.render(p), lambda d: hls.generate(p, d)),
            ("host", host.render_variant(p), lambda d: host.generate(p, d)),
            ("rtl", rtl_generate.render(p), lambda d: rtl_generate.generate(p, d))):
        assert not (tmp_path / folder).exists()
        write(tmp_path / folder)
        written = {f.name: f.read_text() for f in (tmp_path / folder).iterdir()}
        assert written == rendered, folder
    assert "link.cfg" in hls.render(p)  # from rung 2: a port per pointer, placed
    assert "link.cfg" not in hls.render(plan(p.kernel, 1, dtype))
