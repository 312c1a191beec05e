"""The fused specs on disk, built through the normal pipeline, and opened on a device.

The cache folder holds ``kernel_specs/compiled/`` (the specs, as a user's project would)
and ``build/`` (the build tree, with its reports). Every task is cached by content, so a
model compiled before, in any process, builds nothing; a changed model builds only its
new kernels. ``fpgakern build --specs <cache>/kernel_specs 'compiled/*'`` rebuilds them by
hand, and ``fpgakern report --out <cache>/build`` shows the last build.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from fpgakern import paths
from fpgakern.backends.rtl.generate import render as render_rtl
from fpgakern.compiler.specs import CATEGORY, FusedSpec, category_text
from fpgakern.errors import FpgakernError, UsageError
from fpgakern.ir.kernel import Kernel
from fpgakern.ladder import plan
from fpgakern.orchestrate.build import run_build
from fpgakern.orchestrate.executors import make_executor
from fpgakern.orchestrate.task import BLOCKED, CACHED, FAILED, SKIPPED, BuildResult
from fpgakern.report.record import BuildReport, recorder
from fpgakern.runtime.device import Device
from fpgakern.runtime.program import MANIFEST, Program, from_build_tree
from fpgakern.spec import schema, validate, yamlpos
from fpgakern.spec.library import Library
from fpgakern.util.files import write_text_atomic

CACHE_FOLDER = ".fpgakern/compile"  # below the project's root, by default
# The pipeline's steps per target (with the steps they need): what the target runs must
# have been verified, the HLS C++ in C simulation, the RTL in its cocotb simulation.
UNTIL = {"sw_emu": ("csim",), "hw_emu": ("csim", "sim")}
COMMAND = "torch.compile(backend='fpgakern')"


def default_cache(start: Path | None = None) -> Path:
    return paths.project_root(start) / CACHE_FOLDER


@dataclass
class Built:
    """What the build did, and the device that runs its kernels."""

    report: BuildReport
    device: Device
    problems: dict[str, str]  # kernel name -> why it cannot run (its build failed)

    @property
    def result(self) -> BuildResult:
        return self.report.result

    @property
    def tasks_run(self) -> int:
        return sum(t.status not in (CACHED, SKIPPED) for t in self.result.tasks)

    @property
    def tasks_cached(self) -> int:
        return self.result.count(CACHED)


class Validator:
    """Checks a candidate spec the way a user's spec is loaded (spec.validate), in a
    scratch folder (the file name must be the kernel's); for a target that runs the RTL
    (hw_emu, hw), also that the RTL backend builds it at ``rung``, so that no kernel is
    planned that would only fail to build."""

    def __init__(self, target: str = "sw_emu", rung: int = 4) -> None:
        self.rtl = target != "sw_emu"
        self.rung = rung
        self._scratch = tempfile.TemporaryDirectory(prefix="fpgakern-fuse-")
        self.folder = Path(self._scratch.name) / CATEGORY
        self.folder.mkdir()
        category = self.folder / "_category.yaml"
        category.write_text(category_text())
        self.category_doc = yamlpos.load(category)
        _, self.defaults = schema.load_category(self.category_doc)

    def load(self, spec: FusedSpec, folder: Path | None = None) -> Kernel:
        path = (folder or self.folder) / f"{spec.name}.yaml"
        if folder is None:
            path.write_text(spec.text)
        return validate.validate(yamlpos.load(path), CATEGORY, self.defaults,
                               self.category_doc)

    def __call__(self, spec: FusedSpec) -> str | None:
        if spec.problem is not None:
            return spec.problem
        try:
            kernel = self.load(spec)
        except FpgakernError as err:
            return f"no kernel can say it: {err}"
        if kernel.kind != spec.kind:
            return f"it would be a {kernel.kind} kernel, not the {spec.kind} it needs"
        if self.rtl:
            try:
                render_rtl(plan(kernel, self.rung, "float32"))
            except FpgakernError as err:
                return f"no RTL: {err}"
        return None

    def close(self) -> None:
        self._scratch.cleanup()


def spec_folder(cache: Path) -> Path:
    """Where the fused specs live: ``cache``/kernel_specs/compiled/."""
    return cache / paths.SPECS / CATEGORY


def write_specs(specs: list[FusedSpec], cache: Path) -> Path:
    """The specs in ``cache``/kernel_specs/compiled/ (a file is rewritten only when its
    text changed); returns the kernel_specs folder."""
    folder = spec_folder(cache)
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in [("_category.yaml", category_text()),
                       *((f"{s.name}.yaml", s.text) for s in specs)]:
        path = folder / name
        if not path.is_file() or path.read_text() != text:
            write_text_atomic(path, text)
    return folder.parent


def build(specs: list[FusedSpec], cache: Path, target: str, rung: int,
          validator: Validator, jobs: int | None = None) -> Built:
    """Build ``specs`` at ``rung`` as far as ``target`` needs, and open them on it."""
    if target not in UNTIL:
        raise UsageError(f"unknown target {target!r} (targets: {', '.join(UNTIL)})")
    spec_root = write_specs(specs, cache)
    kernels = [validator.load(s, spec_folder(cache)) for s in specs]
    plans = [plan(k, rung, "float32") for k in kernels]
    root = cache / "build"
    executor = make_executor("local", jobs)
    try:
        report = run_build(plans, root, executor, record=recorder(COMMAND),
                           until=UNTIL[target])
    finally:
        executor.close()
    problems: dict[str, str] = {}
    for task in report.result.tasks:
        name = task.plan.kernel.name
        if task.status in (FAILED, BLOCKED) and name not in problems:
            detail = task.outcome.detail if task.outcome is not None else task.reason
            problems[name] = f"its {task.step.name} step failed: {detail}"
    program = Program(str(root))
    library = Library(spec_root)
    for p in plans:
        variant_dir = paths.variant_dir(root, CATEGORY, p.kernel.name, rung, "float32")
        if (variant_dir / MANIFEST).is_file():
            for variant in from_build_tree(variant_dir, library).variants.values():
                program.add(variant)
    return Built(report, Device(program, library, target), problems)
