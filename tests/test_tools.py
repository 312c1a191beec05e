"""The tools floor: Verilator's runtime is compiled once per distinct compile command and
reused, products are built once per key, and a failure (a tool missing, failing or hanging)
is a clear one-line ToolError."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fpgakern.errors import ToolError
from fpgakern.tools import gxx, verilator
from fpgakern.tools.cache import cached_build, generated_file
from fpgakern.tools.verilator_build import runtime_plan, verilate
from fpgakern.verify import opsim

COUNTER = """module counter (input logic clk, output logic [7:0] count);
  initial count = 8'd0;
  always_ff @(posedge clk) count <= count + 8'd1;
endmodule
"""

MAIN = """#include "Vcounter.h"
#include "verilated.h"
#include "main_config.h"
#include <cstdio>
int main() {
  Vcounter top;
  for (int i = 0; i < 2 * STEPS; i++) { top.clk = i & 1; top.eval(); }
  std::printf("%d\\n", int(top.count));
  return 0;
}
"""

needs_verilator = pytest.mark.skipif(verilator.missing() is not None,
                                reason="Verilator is not installed")


def _sources(work: Path) -> list[str]:
    (work / "counter.sv").write_text(COUNTER)
    (work / "main.cpp").write_text(MAIN)
    return ["--top-module", "counter", "-o", str(work / "sim"), str(work / "counter.sv"),
            str(work / "main.cpp")]


def _build(work: Path, steps: int) -> str:
    # opsim's flags: the runtime these need is the one the operator tests use anyway.
    return verilate(work, ["--exe", *opsim.VERILATOR_FLAGS, *_sources(work)],
                    prefix="Vcounter",
                    files={"main_config.h": f"#define STEPS {steps}\n"})


def _runtime_compiles(log: str) -> int:
    return sum(1 for line in log.splitlines()
               if line.rstrip().endswith("verilated.cpp") and " -c " in line)


@needs_verilator
def test_runtime_objects_are_compiled_once_and_reused(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    _build(first, 5)
    # Another model with the same compile command takes the stored runtime ...
    assert _runtime_compiles(_build(second, 7)) == 0
    # ... and each computes what its own sources say.
    for folder, steps in ((first, 5), (second, 7)):
        out = subprocess.run([str(folder / "sim")], capture_output=True, text=True, check=True)
        assert out.stdout.strip() == str(steps)


@needs_verilator
def test_a_model_split_into_files_compiles_as_one_unit(tmp_path):
    """--output-split 1 splits even this counter into several files, as Verilator does for
    16-lane kernels on its own (VM_PARALLEL_BUILDS = 1); fpgakern compiles them as one
    translation unit all the same (__ALL.cpp), which parses verilated.h once instead of
    once a file, and the model computes what its sources say."""
    log = verilate(tmp_path, ["--exe", *opsim.VERILATOR_FLAGS, "--output-split", "1",
                              *_sources(tmp_path)],
                   prefix="Vcounter", files={"main_config.h": "#define STEPS 6\n"})
    assert "VM_PARALLEL_BUILDS = 1" in (tmp_path / "obj" / "Vcounter_classes.mk").read_text()
    assert "Vcounter__ALL.cpp" in log
    assert not re.search(r"-c -o Vcounter___024root\S*\.o", log)  # no file compiled alone
    out = subprocess.run([str(tmp_path / "sim")], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "6"


def _runtime_key(work: Path, cflags: str) -> tuple[list[str], str]:
    work.mkdir()
    subprocess.run(verilator.command("--cc", "--exe", "--prefix", "Vcounter", "-Mdir",
                                     str(work / "obj"), "-CFLAGS", cflags, *_sources(work)),
                   check=True, capture_output=True, env=verilator.environment())
    return runtime_plan(work / "obj", "Vcounter")


@needs_verilator
def test_the_runtime_key_covers_its_compile_command(tmp_path):
    names, key = _runtime_key(tmp_path / "a", "-O0")
    assert "verilated.o" in names
    assert _runtime_key(tmp_path / "b", "-O0") == (names, key)
    # Any flag that changes how the runtime compiles gives it another key.
    assert _runtime_key(tmp_path / "c", "-O0 -DFK_EXTRA=1")[1] != key
    assert _runtime_key(tmp_path / "d", "-O2")[1] != key


def test_cached_build_builds_once_and_keeps_only_the_product(tmp_path, monkeypatch):
    monkeypatch.setenv("FPGAKERN_CACHE_DIR", str(tmp_path))
    calls = []

    def build(work: Path) -> None:
        calls.append(work)
        (work / "sim").write_text("model")
        (work / "obj").mkdir()
        (work / "obj" / "big.o").write_text("x")

    folder = cached_build("kind", "name", "k1", "sim", build)
    again = cached_build("kind", "name", "k1", "sim", build)
    assert folder == again and len(calls) == 1
    assert sorted(p.name for p in folder.iterdir()) == ["sim"]


def test_generated_file_is_written_once_under_a_key_of_its_generator(tmp_path, monkeypatch):
    monkeypatch.setenv("FPGAKERN_CACHE_DIR", str(tmp_path / "cache"))
    generator = tmp_path / "gen.py"
    generator.write_text("VALUE = 1\n")
    calls = []

    def render() -> str:
        calls.append(1)
        return f"table {len(calls)}\n"

    first = generated_file("table.hex", render, generator, "input a")
    assert first.is_relative_to(tmp_path / "cache" / "generated")
    assert first.name == "table.hex" and first.read_text() == "table 1\n"
    assert generated_file("table.hex", render, generator, "input a") == first
    assert len(calls) == 1
    # Another input, or an edit to the generator, is another file: never the old one.
    other_input = generated_file("table.hex", render, generator, "input b")
    generator.write_text("VALUE = 2\n")
    edited = generated_file("table.hex", render, generator, "input a")
    assert len({first, other_input, edited}) == 3 and len(calls) == 3
    assert first.read_text() == "table 1\n" and edited.read_text() == "table 3\n"


@needs_verilator
def test_failed_build_is_a_tool_error_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("FPGAKERN_CACHE_DIR", str(tmp_path / "cache"))
    work = tmp_path / "w"
    work.mkdir()
    (work / "bad.sv").write_text("module bad(; endmodule\n")
    with pytest.raises(ToolError, match="verilator build failed"):
        verilate(work, ["--top-module", "bad", str(work / "bad.sv")], prefix="Vbad")

    def build(staging: Path) -> None:
        raise ToolError("no")

    with pytest.raises(ToolError):
        cached_build("kind", "name", "k2", "sim", build)
    assert not [p for p in (tmp_path / "cache" / "kind").iterdir() if not p.name.endswith(".lock")]


needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


def _one_line(err: pytest.ExceptionInfo[ToolError]) -> str:
    message = str(err.value)
    assert "\n" not in message and "Traceback" not in message, message
    return message


@needs_gxx
def test_gxx_compiles_and_a_compile_error_is_one_line(tmp_path, monkeypatch):
    monkeypatch.delenv("CXX", raising=False)
    good, bad = tmp_path / "good.cpp", tmp_path / "bad.cpp"
    good.write_text("int main() { return 0; }\n")
    gxx.run([*gxx.FLAGS, str(good), "-o", str(tmp_path / "good")], "good.cpp")
    assert subprocess.run([str(tmp_path / "good")], check=False).returncode == 0
    # Two errors and a warning-as-error: the message quotes the first error and counts
    # the rest.
    bad.write_text("int f() { int unused; return 0; }\nint g() { return nope; }\n"
                   "int h() { return nope2; }\n")
    with pytest.raises(ToolError) as err:
        gxx.run([*gxx.FLAGS, "-c", str(bad), "-o", str(tmp_path / "bad.o")], "bad.cpp")
    message = _one_line(err)
    assert message.startswith("g++ failed on bad.cpp: ") and "bad.cpp:1:" in message, message
    assert "unused" in message and "more error lines)" in message, message


def test_missing_gxx_is_one_line(tmp_path, monkeypatch):
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no g++ on PATH
    with pytest.raises(ToolError) as err:
        gxx.run(["--version"], "nothing")
    assert _one_line(err).startswith("g++ not found"), str(err.value)
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-compiler"))
    with pytest.raises(ToolError) as err:
        gxx.identity()
    assert "no-such-compiler was not found" in _one_line(err)
    assert gxx.finds_header("cstdio") is False  # a probe without a compiler finds nothing


def test_hung_gxx_is_one_line(tmp_path, monkeypatch):
    slow = tmp_path / "slow-cxx"
    slow.write_text("#!/bin/sh\nexec sleep 30\n")
    slow.chmod(0o755)
    monkeypatch.setenv("CXX", str(slow))
    with pytest.raises(ToolError) as err:
        gxx.run(["x.cpp"], "x.cpp", timeout=0.5)
    assert _one_line(err) == "g++ timed out after 0.5 s on x.cpp"


def test_the_precompiled_prelude_is_used_and_changes_no_bit(tmp_path, monkeypatch):
    """The prelude is built on its second request (a compile command used once is
    cheaper without one); g++ reads its .gch (``-H`` marks a used one with "!", an
    unusable one with "x"), and the program it compiles is the one compiled without it."""
    from fpgakern.verify import csim

    monkeypatch.setenv("FPGAKERN_CACHE_DIR", str(tmp_path / "cache"))
    assert gxx.prelude(csim.STANDARD_HEADERS, csim.CXXFLAGS) == []
    assert not list((tmp_path / "cache").rglob("*.gch"))

    source = tmp_path / "main.cpp"
    source.write_text("#include <cmath>\n#include <vector>\n#include <cstdio>\n"
                      "int main() { std::vector<float> v{1.5f, 2.25f};\n"
                      "  std::printf(\"%.9g\\n\", std::sqrt(v[0] * v[1])); }\n")
    flags = list(csim.CXXFLAGS)
    with_prelude = gxx.run([*flags, *gxx.prelude(csim.STANDARD_HEADERS, flags), "-H",
                            str(source), "-o", str(tmp_path / "a")], "main.cpp")
    used = [line for line in with_prelude.splitlines() if line.endswith(f"{gxx.PRELUDE}.gch")]
    assert used and used[0].startswith("!"), with_prelude[:400]
    gxx.run([*flags, str(source), "-o", str(tmp_path / "b")], "main.cpp")
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()


def test_the_prelude_holds_every_standard_header_the_generated_code_includes():
    """csim.STANDARD_HEADERS is what the templates and C simulation headers include (a
    header it lacks would only be parsed again, unseen: this keeps the list whole)."""
    from fpgakern import paths
    from fpgakern.verify import csim

    included = {m.group(1) for path in paths.data_dir("hls_templates").rglob("*")
                if path.is_file() and path.suffix in (".h", ".j2")
                for m in re.finditer(r"#include <([^>]+)>", path.read_text())}
    assert included and included <= set(csim.STANDARD_HEADERS), \
        sorted(included - set(csim.STANDARD_HEADERS))


class _Captured(Exception):
    pass


# Flags that change what the preprocessor or the code generator sees: a precompiled
# header built without one its compile has is invalid, and g++ silently parses every
# header again (slower than no precompiled header at all).
_PCH_RELEVANT = re.compile(r"^(-D|-U|-std|-O|-f|-m|-pthread$|-W(?!l,))")


@pytest.mark.parametrize("build", ["csim", "sw_emu", "hw_emu", "host"])
def test_every_prelude_is_built_with_its_compiles_flags(build, tmp_path, monkeypatch):
    """Each compile that starts from a precompiled prelude asks for one built with every
    flag of its own that matters to it (a host's -pthread once made both the host's and
    the hw_emu harness's header invalid: -H marked it "x")."""
    from fpgakern import paths
    from fpgakern.backends import hls
    from fpgakern.ladder import plan
    from fpgakern.runtime import emu, models
    from fpgakern.spec.library import Library
    from fpgakern.verify import csim

    asked: list[list[str]] = []

    def prelude(headers, flags, *versions):
        asked.append(list(flags))
        return ["-include", str(tmp_path / "prelude.h")]

    def run(arguments, what, **kwargs):
        if "-include" in arguments:
            raise _Captured(list(arguments))
        return ""

    monkeypatch.setenv("FPGAKERN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(gxx, "prelude", prelude)
    monkeypatch.setattr(gxx, "run", run)
    monkeypatch.setattr(models, "verilate", lambda staging, *a, **k: (staging / "obj").mkdir())
    monkeypatch.setattr(emu, "library_object", lambda: tmp_path / "xrt_emu.o")
    p = plan(Library(paths.specs_dir()).get("binary_ops/add"), 2, "float32")
    sources = hls.generate(p, tmp_path / "hls")
    with pytest.raises(_Captured) as captured:
        if build == "csim":
            csim.compile_testbench(sources)
        elif build == "sw_emu":
            models.sw_model(p, tmp_path / "hls")
        elif build == "hw_emu":
            models.hw_model(p)
        else:
            emu.compile_host(sources.kernel, tmp_path / "host")
    compile_flags = {f for f in captured.value.args[0] if _PCH_RELEVANT.match(f)}
    [flags] = asked
    assert compile_flags <= set(flags), sorted(compile_flags - set(flags))


def test_a_models_testbench_sources_compile_at_its_level():
    """verilated.mk puts OPT_FAST after the -CFLAGS for the testbench sources (and before
    them for the model): OPT_FAST takes the level -CFLAGS asks for, so both compile at it
    and one precompiled verilated.h fits both (-Os after -O0 made g++ refuse it)."""
    from fpgakern.tools.verilator_build import OPT_FAST, _optimization

    assert _optimization(["--cc", "-CFLAGS", "-O0 -fPIC", "x.sv"]) == "-O0"
    assert _optimization(["-CFLAGS", "-O2", "-CFLAGS", "-I/some/where"]) == "-O2"
    assert _optimization(["-CFLAGS", "-O2", "-CFLAGS", "-O0"]) == "-O0"
    assert _optimization(["--cc", "x.sv"]) == OPT_FAST == "-Os"
