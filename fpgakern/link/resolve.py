"""What the command line names -> what to link.

A kernel is named ``CAT/KERNEL[@optN][:dtype]`` (or by a bare name when unique) or by the
path of an ``.xo``. Defaults: the highest rung the kernel declares (normally opt4, the
fastest single-CU variant) and float32 when the kernel has it, else its first dtype.

When ``fpgakern build`` has written the variant's ``.xo``, the kernel description comes
from that file (what is linked is what was built) and a ``link.cfg`` beside it (rung 3's
``nk=``) is merged in; otherwise it comes from the plan, so the open flow can link
before anything is built. ``--library`` links every ``.xo`` under the build tree instead:
per kernel and dtype the highest rung built (never rung 5, which is built on request and
takes the card's memory for one kernel); variants whose .xo is missing or unreadable
(failed builds) are left out and reported.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from fpgakern import paths
from fpgakern.errors import FpgakernError, UsageError, display_path
from fpgakern.ladder import RUNGS, plan
from fpgakern.link import config, kernel_xml, xo
from fpgakern.link.linker import LinkInput
from fpgakern.spec.library import Library

LINK_CFG = "link.cfg"  # the HLS generator's per-variant v++ config (rung 3)
DEFAULT_DTYPE = "float32"
_REF = re.compile(r"^(?P<name>[A-Za-z0-9_./*-]+?)(?:@opt(?P<rung>\d+))?(?::(?P<dtype>\w+))?$")


@dataclass(frozen=True)
class KernelRef:
    name: str
    rung: int | None
    dtype: str | None


def ref_text(qualname: str, rung: int, dtype: str) -> str:
    """A variant as the command line names it and link records show it,
    ``CAT/KERNEL@optN:dtype`` (what :func:`parse_ref` reads)."""
    return f"{qualname}@opt{rung}:{dtype}"


def parse_ref(text: str) -> KernelRef:
    m = _REF.match(text)
    if not m:
        raise UsageError(f"{text!r}: name a kernel as CATEGORY/KERNEL[@optN][:dtype] "
                         "or give an .xo path")
    return KernelRef(m["name"], int(m["rung"]) if m["rung"] else None, m["dtype"])


def _build_config(folder: Path) -> config.LinkConfig:
    cfg = folder / LINK_CFG
    return config.load(cfg) if cfg.is_file() else config.LinkConfig()


def from_xo(path: Path, compute_units: int = 1, origin: str | None = None) -> LinkInput:
    contents = xo.read_xo(path)
    return LinkInput(contents.kernel, compute_units, _build_config(path.parent),
                     origin or display_path(path), str(path))


def resolve(refs: list[str], library: Library, build_root: Path) -> list[LinkInput]:
    """LinkInputs for command-line kernel references; ``build_root`` holds built .xo files."""
    inputs = []
    for text in refs:
        if text.endswith(".xo") or Path(text).is_file():
            path = Path(text)
            if not path.is_file():
                raise UsageError(f"{text}: no such .xo file")
            inputs.append(from_xo(path))
            continue
        ref = parse_ref(text)
        kernel = library.get(ref.name)
        rung = ref.rung if ref.rung is not None else max(kernel.rungs)
        dtype = ref.dtype or (DEFAULT_DTYPE if DEFAULT_DTYPE in kernel.dtypes
                              else kernel.dtypes[0])
        p = plan(kernel, rung, dtype)
        origin = ref_text(kernel.qualname, rung, dtype)
        built = build_root / xo.relative_path(p)
        if built.is_file():
            inputs.append(replace(from_xo(built, p.placement.compute_units, origin), plan=p))
        else:
            inputs.append(LinkInput(kernel_xml.from_plan(p), p.placement.compute_units,
                                    _build_config(built.parent), origin, plan=p))
    return inputs


def _built_top(folder: Path, default: str) -> str:
    """The top the variant folder's latest build made (its manifest's ``top``), else
    ``default``: a spec whose ``top:`` changed leaves the old top's files beside it."""
    try:
        top = json.loads((folder / "manifest.json").read_text()).get("top")
    except (OSError, ValueError, AttributeError):
        return default
    return top if isinstance(top, str) else default


def library_inputs(build_root: Path) -> tuple[list[LinkInput], list[str]]:
    """Every built variant's .xo under ``build_root``, highest rung per kernel x dtype.
    Returns the inputs and one line per variant left out."""
    chosen: dict[tuple[str, str, str], tuple[int, Path]] = {}
    for path in sorted(build_root.glob(paths.variant_glob("*.xo"))):
        variant = paths.variant_of(path.parent)
        if variant is None:
            continue
        category, kernel, rung, dtype = variant
        if rung >= len(RUNGS) or RUNGS[rung].sized_by_platform:
            continue  # rung 5 takes the card's memory for one kernel: never in a library
        if path.stem != _built_top(path.parent, path.stem):
            continue  # left by a build before the spec's top: changed
        key = (category, kernel, dtype)
        if key not in chosen or rung > chosen[key][0]:
            chosen[key] = (rung, path)
    inputs, skipped = [], []
    for (category, kernel, dtype), (rung, path) in sorted(chosen.items()):
        origin = ref_text(f"{category}/{kernel}", rung, dtype)
        try:
            inputs.append(from_xo(path, origin=origin))
        except FpgakernError as err:
            skipped.append(f"{origin}: left out ({err})")
    if not inputs:
        raise UsageError(f"{display_path(build_root)}: no built .xo to link "
                         "(run fpgakern build first)")
    return inputs, skipped
