"""What a device holds: the kernel variants found in a build tree or an .xclbin.

A build tree (``build/`` or any folder under it, down to one variant folder) is read
through its ``manifest.json`` files: each names the kernel, rung and dtype, and says whether
C simulation passed; a variant whose build failed is listed as unavailable, with the
reason, so that callers can fall back. When several rungs of one kernel and dtype are
built, the highest is used unless ``opt`` picks one (as ``fpgakern link --library`` does).

An .xclbin is read through its EMBEDDED_METADATA (kernel names, arguments, CU instances)
like XRT does. Kernel names are fpgakern top names (``add_f32``, or a spec's ``top:``),
which name the library kernel and dtype. The xclbin does not record the rung; the
interface narrows it down (512-bit ports: rung 4; one shared ``gmem`` bundle: rung 0 or
1; else 2 or 3) and the rung built in the build tree, else the highest such rung,
decides. The number of CUs is the xclbin's, whatever the rung.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from fpgakern import paths
from fpgakern.errors import FpgakernError, UsageError, display_path
from fpgakern.interface import interface
from fpgakern.ir.kernel import Kernel
from fpgakern.ladder import RUNGS, Plan, Variant, builds, plan
from fpgakern.spec.library import Library

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class ProgramVariant:
    """One kernel variant a device can run (or says why it cannot): its plan (whose
    ``variant`` names it) and the compute units the build tree or .xclbin gives it."""

    plan: Plan
    compute_units: int
    cu_names: tuple[str, ...]
    hls_dir: Path | None = None  # the build's variant folder (its HLS C++ is the sw model)
    problem: str | None = None  # why it cannot run (failed build), None when it can

    @property
    def top(self) -> str:
        return self.plan.top


@dataclass
class Program:
    """The variants of one build tree or xclbin, by top name."""

    source: str
    variants: dict[str, ProgramVariant] = field(default_factory=dict)
    xclbin: Path | None = None
    notes: list[str] = field(default_factory=list)

    def add(self, variant: ProgramVariant) -> None:
        self.variants[variant.top] = variant


def default_cu_names(top: str, count: int) -> tuple[str, ...]:
    return tuple(f"{top}_{i}" for i in range(1, count + 1))


def from_plans(plans: list[Plan], source: str = "library") -> Program:
    """Variants straight from plans: generated on the fly, nothing built beforehand."""
    program = Program(source)
    for p in plans:
        cus = p.placement.compute_units
        program.add(ProgramVariant(p, cus, default_cu_names(p.top, cus)))
    return program


def from_build_tree(root: Path, library: Library, opt: int | None = None) -> Program:
    # Variant folders are used long after opening (models are built on first call, by
    # tools running in other folders): keep them absolute, whatever the cwd becomes.
    root = root.resolve()
    manifests = [root / MANIFEST] if (root / MANIFEST).is_file() else sorted(
        root.glob(paths.variant_glob(MANIFEST, below=True)))
    program = Program(display_path(root))
    chosen: dict[str, tuple[int, ProgramVariant]] = {}
    for path in manifests:
        try:
            doc = json.loads(path.read_text())
            identity = Variant.from_json(doc)
            p = Plan(library.get(identity.kernel), identity)
        except (OSError, ValueError, KeyError, TypeError, FpgakernError) as err:
            program.notes.append(f"{display_path(path)}: skipped ({err})")
            continue
        if opt is not None and p.rung.index != opt:
            continue
        csim = doc.get("csim") or {}
        problem = None
        if not csim:
            problem = ("its build has not run C simulation (build it with --until csim "
                       "or further)")
        elif not csim.get("passed", False):
            detail = csim.get("detail") or "no csim verdict"
            problem = f"its build failed C simulation ({detail})"
        cus = p.placement.compute_units
        variant = ProgramVariant(p, cus, default_cu_names(p.top, cus), path.parent, problem)
        best = chosen.get(p.top)
        # Prefer a working variant, then the highest rung.
        rank = (problem is None, p.rung.index)
        if best is None or rank > (best[1].problem is None, best[0]):
            chosen[p.top] = (p.rung.index, variant)
    for _, variant in chosen.values():
        program.add(variant)
    return program


def _kernel_for_top(library: Library, top: str) -> tuple[str, str] | None:
    for kernel in library.kernels:
        for dtype in kernel.dtypes:
            if kernel.top_name(dtype) == top:
                return kernel.qualname, dtype
    return None


def _rungs_with_ports(widths: set[int], bundles: set[str], cus: int = 1) -> list[int]:
    """The rungs whose kernels have m_axi ports of these data widths and bundle names (a
    vector rung's width, else one shared bundle before dataflow or one per pointer, the
    tables sharing one), those whose ``multi_cu`` flag matches the xclbin's ``cus`` first,
    each group highest first: one 512-bit CU is rung 4, ten are rung 5; one one-word CU
    is rung 2, four are rung 3.
    The xclbin does not say more, so a build tree decides between them."""
    vector = [r for r in reversed(RUNGS) if r.vector_bits in widths]
    if not vector:
        shared = bundles == {"m_axi_gmem"}
        vector = [r for r in reversed(RUNGS) if not r.vector_bits and r.dataflow != shared]
    return [r.index for r in sorted(vector, key=lambda r: r.multi_cu != (cus > 1))]


def _arg_names(kernel: Kernel, rung: int, dtype: str) -> tuple[str, ...]:
    return tuple(a.name for a in interface(plan(kernel, rung, dtype)).args)


def from_xclbin(path: Path, library: Library, build_root: Path | None = None) -> Program:
    from fpgakern.link import axlf, metadata

    path = path.resolve()  # read again by the hw target and the emulation config
    build_root = build_root.resolve() if build_root is not None else None
    try:
        image = axlf.read(path.read_bytes())
    except OSError as err:
        raise UsageError(f"{display_path(path)}: cannot read ({err.strerror})") from None
    section = image.find(axlf.SECTION_IDS["EMBEDDED_METADATA"])
    if section is None:
        raise UsageError(f"{display_path(path)}: no EMBEDDED_METADATA section, so no kernel "
                         "can be opened (XRT needs it too)")
    meta = metadata.parse_embedded_metadata(section.payload)
    program = Program(display_path(path), xclbin=path)
    for k in meta.kernels:
        found = _kernel_for_top(library, k.desc.name)
        if found is None:
            program.notes.append(f"{k.desc.name}: not a kernel of this library; ignored")
            continue
        qualname, dtype = found
        kernel = library.get(qualname)
        widths = {p.data_width for p in k.desc.masters}
        bundles = {p.name.lower() for p in k.desc.masters}
        cu_names = tuple(name for name, _ in k.instances) or (f"{k.desc.name}_1",)
        # The arguments tell apart rungs whose ports agree (a contraction's multi-CU rung
        # has unit and units): a model of another interface would run on wrong registers.
        arg_names = tuple(a.name for a in k.desc.args)
        candidates = [r for r in _rungs_with_ports(widths, bundles, len(cu_names))
                      if builds(kernel, r) and _arg_names(kernel, r, dtype) == arg_names]
        if not candidates and kernel.auto_restart:  # no memory port to tell: rung 0 only
            candidates = sorted(kernel.rungs, reverse=True)
        if not candidates:
            program.notes.append(f"{k.desc.name}: its interface matches no rung of "
                                 f"{qualname}; ignored")
            continue
        rung = candidates[0]
        hls_dir = None
        if build_root is not None:
            for r in candidates:
                folder = paths.variant_dir(build_root, kernel.category, kernel.name, r, dtype)
                if (folder / f"{k.desc.name}.cpp").is_file():
                    rung, hls_dir = r, folder
                    break
        program.add(ProgramVariant(plan(kernel, rung, dtype), len(cu_names), cu_names, hls_dir))
    return program
