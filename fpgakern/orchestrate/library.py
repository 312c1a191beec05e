"""The library link: every kernel that built cleanly, in one ``.xclbin`` (like torch.xclbin).

Per kernel and dtype the highest rung that passed every task is linked; variants with a
failed or blocked task are left out (and said so), so one broken kernel never costs the
library. Each kernel's compute unit gets its own memory bank, in turn, so that no bank
runs out of AXI ports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fpgakern.ir.kernel import Kernel
from fpgakern.ladder import Plan
from fpgakern.link import platforms
from fpgakern.orchestrate.step import sources
from fpgakern.orchestrate.task import GOOD, SKIPPED, BuildResult
from fpgakern.util.files import sha256_file, sha256_text, write_bytes_atomic, write_text_atomic

DEFAULT_PLATFORM = platforms.DEFAULT
LIBRARY_DIR = "library"


@dataclass
class LibraryLink:
    path: Path | None
    included: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    error: str | None = None
    host_entries: list[Path] = field(default_factory=list)


Choice = dict[tuple[str, str], tuple[int, Path, Plan]]


def _chosen(result: BuildResult) -> tuple[Choice, list[str]]:
    best: Choice = {}
    left_out = []
    for variant, tasks in result.variants.items():
        by_step = {t.step.name: t for t in tasks}
        xo_task = by_step.get("xo")
        good = all(t.status in GOOD or t.status == SKIPPED for t in tasks)
        if xo_task is None or xo_task.status not in GOOD or not good:
            left_out.append(f"{variant}: left out (build did not pass)")
            continue
        rtl = by_step.get("rtl")
        if rtl is not None and rtl.status == SKIPPED:
            # The library is a hardware link: a kernel with no RTL (an op without one)
            # would be a CPU model with nothing to run on the card.
            left_out.append(f"{variant}: left out (no RTL: {rtl.reason})")
            continue
        path = xo_task.folder / xo_task.outcome.files[0] if xo_task.outcome else None
        key = (variant.kernel, variant.dtype)
        if tasks[0].plan.rung.sized_by_platform:
            continue  # rung 5 takes the card's memory for one kernel: never in a library
        if path and (key not in best or variant.rung > best[key][0]):
            best[key] = (variant.rung, path, tasks[0].plan)
    return best, left_out


def link_library(result: BuildResult, platform_name: str = DEFAULT_PLATFORM) -> LibraryLink:
    # The linker is imported here so that builds which do not link never load it.
    from fpgakern.link import config, linker, repro, resolve, xclbin

    chosen, left_out = _chosen(result)
    if not chosen:
        return LibraryLink(None, [], left_out, "no kernel built cleanly: nothing to link")
    platform = platforms.load(platform_name)
    folder = result.root / LIBRARY_DIR
    target = folder / f"library_{platform.name}.xclbin"
    origins = [resolve.ref_text(kernel, rung, dtype)
               for (kernel, dtype), (rung, _, _) in sorted(chosen.items())]
    # The linker's and host generator's code and data, found from this module's imports
    # as a step's are (the linker is imported in this function, and is found all the same).
    code = sources((__name__,), ("hls_templates", "!hls_templates/csim")).digest
    # The category host entries name every kernel of the build, linked or not (a missing
    # one answers "missing" at run time): each kernel as loaded (spec and category
    # defaults) is an input too.
    built = list(dict.fromkeys(tasks[0].plan.kernel for tasks in result.variants.values()))
    key = sha256_text(platform.name, code, f"time={repro.build_time(None)}",
                      *(f"{origin} {sha256_file(path)}" for origin, (_, path, _) in
                        zip(origins, (chosen[k] for k in sorted(chosen)), strict=True)),
                      *sorted(repr(k) for k in built))
    key_file = folder / f".library_{platform.name}.key"
    if target.is_file() and key_file.is_file() and key_file.read_text() == key:
        entries = sorted((folder / "host").glob("fpga_kernel_*.hpp"))
        return LibraryLink(target, origins, left_out, None, entries)  # nothing changed
    banks = [b.tag for b in platform.banks if b.family in ("DDR", "HBM")] or \
        [b.tag for b in platform.default_banks]
    inputs, lines = [], ["[connectivity]"]
    for i, ((kernel, dtype), (rung, path, _)) in enumerate(sorted(chosen.items())):
        item = resolve.from_xo(path, origin=resolve.ref_text(kernel, rung, dtype))
        inputs.append(item)
        bank = banks[i % len(banks)]
        lines += [f"sp={item.kernel.name}_1.{arg.name}:{bank}" for arg in item.kernel.memory_args]
    text = "\n".join(lines) + "\n"
    try:
        design = linker.link(inputs, platform, config.parse(text, "library.cfg"), "hw")
        data = xclbin.to_xclbin(design, project="library", options="fpgakern build",
                                timestamp=repro.build_time(None))
    except Exception as err:  # a fit or format problem: report it, keep the variants
        return LibraryLink(None, [i.origin for i in inputs], left_out, str(err))
    write_text_atomic(folder / "library.cfg", text)
    write_bytes_atomic(target, data)
    entries = _host_entries(chosen, built, folder / "host")
    write_text_atomic(key_file, key)  # last: the library is complete
    return LibraryLink(target, [i.origin for i in inputs], left_out, None, entries)


def _host_entries(chosen: Choice, built: list[Kernel], out_dir: Path) -> list[Path]:
    """Per category, the generic fpga_kernel entry over the linked variants' wrappers; a
    kernel of the category that is not in the library answers "missing" at run time. A
    category none of whose kernels linked still gets its entry, so host code that uses it
    compiles and falls back."""
    from fpgakern.backends import host

    by_category: dict[str, list[Plan]] = {k.category: [] for k in built}
    for _, _, plan in chosen.values():
        by_category.setdefault(plan.kernel.category, []).append(plan)
    entries = []
    for category, plans in sorted(by_category.items()):
        for plan in plans:
            host.generate(plan, out_dir)
        kernels = list(dict.fromkeys(k for k in built if k.category == category))
        entries.append(host.generate_category(category, category, kernels, plans, out_dir))
    return entries
