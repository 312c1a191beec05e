"""``fpgakern link``: kernels (by name or .xo) + platform + config -> one .xclbin."""

from __future__ import annotations

import shlex
import uuid as uuid_mod
from pathlib import Path

import click
from rich.text import Text

from fpgakern import paths
from fpgakern.cli._common import console, err_console, load_library, specs_option
from fpgakern.errors import UsageError, display_path
from fpgakern.link import config, linker, platforms, repro, resolve, vitis, xclbin
from fpgakern.runtime import emu, models
from fpgakern.tools import vitis as tools_vitis
from fpgakern.util.files import write_bytes_atomic
from fpgakern.util.text import plural

EPILOG = """\b
Kernels: CATEGORY/KERNEL[@optN][:dtype] (default: highest rung, float32) or .xo paths.
Examples:
  fpgakern link binary_ops/add@opt3 unary_ops/exp reduce_ops/sum --platform u250 -o lib.xclbin
  fpgakern link --library --platform u55c -o torch.xclbin
  fpgakern link binary_ops/add --platform u250 --toolchain vitis --dry-run -o add.xclbin
"""


@click.command("link", epilog=EPILOG)
@click.argument("kernels", nargs=-1)
@click.option("--platform", "-p", "platform_name", required=True,
              help=f"Platform name ({', '.join(platforms.available())}) or a platform .yaml.")
@click.option("--config", "configs", multiple=True,
              type=click.Path(path_type=Path, dir_okay=False),
              help="v++-style link config ([connectivity] nk= sp= slr= stream_connect=); "
                   "repeatable, later files win.")
@click.option("--target", "-t", type=click.Choice(linker.TARGETS), default="hw",
              show_default=True)
@click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False),
              required=True, help="The .xclbin to write.")
@click.option("--library", is_flag=True,
              help="Link every built kernel (highest rung per kernel and dtype).")
@click.option("--toolchain", type=click.Choice(["open", "vitis"]), default="open",
              show_default=True, help="open: fpgakern writes the xclbin (metadata only, "
                                      "no bitstream); vitis: run v++ -l.")
@click.option("--dry-run", is_flag=True, help="Show what would be written or run.")
@click.option("--timestamp", default=None,
              help="Seconds since 1970 or 'now' for the header (default: SOURCE_DATE_EPOCH, "
                   "else fpgakern's release date, so that builds are reproducible).")
@click.option("--uuid", "uuid_text", default=None,
              help="xclbin UUID (default: derived from the content).")
@click.option("--build-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Build tree holding .xo files (default: build/ of the project).")
@specs_option
def command(kernels: tuple[str, ...], platform_name: str, configs: tuple[Path, ...],
            target: str, output: Path, library: bool, toolchain: str, dry_run: bool,
            timestamp: str | None, uuid_text: str | None, build_dir: Path | None,
            specs: Path | None) -> None:
    """Link kernels into one .xclbin for a platform, the way v++ -l does."""
    platform = platforms.load(platform_name)
    build_root = build_dir or paths.build_dir(specs.parent if specs else None)
    if library == bool(kernels):
        raise UsageError("name kernels to link or use --library, not both or neither")
    if library:
        inputs, skipped = resolve.library_inputs(build_root)
        for line in skipped:
            err_console.print(Text.assemble(("warning:", "yellow"), f" {line}"), soft_wrap=True)
    else:
        inputs = resolve.resolve(list(kernels), load_library(specs), build_root)
    user_config = config.LinkConfig()
    for path in configs:
        user_config = user_config.merged(config.load(path))
    design = linker.link(inputs, platform, user_config, target)
    for note in design.notes:
        err_console.print(Text.assemble(("note:", "yellow"), f" {note}"), soft_wrap=True)

    if toolchain == "vitis":
        invocation = vitis.link_invocation(design, output)
        if dry_run:
            click.echo(invocation.describe(), nl=False)
            return
        vitis.execute(invocation)
        console.print(f"wrote {display_path(output)} with v++", soft_wrap=True)
        return

    options = shlex.join(["fpgakern", "link", *kernels, *(["--library"] if library else []),
                          "--platform", platform.name, "--target", target])
    try:
        uuid = uuid_mod.UUID(uuid_text) if uuid_text else None
    except ValueError:
        raise UsageError(f"--uuid {uuid_text!r} is not a UUID") from None
    data = xclbin.to_xclbin(design, project=output.stem, options=options,
                            timestamp=repro.build_time(timestamp), uuid=uuid)
    _print_design(design)
    if dry_run:
        console.print(f"dry run: would write {display_path(output)} ({len(data)} bytes)",
                      soft_wrap=True)
        return
    write_bytes_atomic(output, data)
    flow = "v++ not on PATH: " if tools_vitis.find_vpp() is None else ""
    console.print(f"wrote {display_path(output)} ({len(data)} bytes): "
                  f"{plural(len(design.cus), 'CU')} of {plural(len(design.kernels), 'kernel')} "
                  f"on {platform.name}, {target}. "
                  f"{flow}open flow, metadata only (no bitstream; --toolchain vitis runs v++)",
                  soft_wrap=True)  # one line in a log, whatever the console's width
    if target in models.TARGETS:
        _write_emulation_files(output, target, platform, specs, build_root)


def _write_emulation_files(xclbin_path: Path, target: str, platform: platforms.Platform,
                           specs: Path | None, build_root: Path) -> None:
    """What a host needs beside an emulation link, written from this link (never left
    from an earlier one with the same name): fpgakern_emu.cfg (the models, stamped with
    the new xclbin's UUID) and emconfig.json (emconfigutil's, for the platform)."""
    config_path = emu.prepare(xclbin_path, (target,), specs=specs, build_root=build_root)
    emconfig = emu.write_emconfig(xclbin_path.parent, platform.vbnv)
    console.print(f"wrote {display_path(config_path)} ({target} models) and "
                  f"{display_path(emconfig)} ({platform.vbnv}, 1 device)", soft_wrap=True)


def _print_design(design: linker.Design) -> None:
    for cu in design.cus:
        banks = sorted({b.tag for _, bs in cu.port_banks for b in bs})
        control = (f"base 0x{cu.base:08x}  irq {cu.interrupt_id:<3}" if cu.kernel.has_control
                   else "free-running (no control port)")
        console.print(f"  {cu.ip_name:<28} {control} memory {', '.join(banks) or '-'}",
                      soft_wrap=True)
    for s in design.streams:
        console.print(f"  stream {s.src_cu}.{s.src_port} -> {s.dst_cu}.{s.dst_port}",
                      soft_wrap=True)
