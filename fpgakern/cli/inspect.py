"""``fpgakern inspect``: read an .xclbin or .xo back, like ``xclbinutil --info``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from fpgakern.cli._common import json_option, print_json
from fpgakern.errors import FpgakernError, UsageError, display_path
from fpgakern.link.inspect import dump_section, format_report, inspect_path
from fpgakern.util.files import write_bytes_atomic
from fpgakern.util.text import plural


@click.command("inspect")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@json_option
@click.option("--dump-section", "dump", default=None, metavar="NAME[:RAW|JSON]",
              help="Write one section's payload (e.g. IP_LAYOUT:JSON, EMBEDDED_METADATA).")
@click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="File for --dump-section (default: standard output).")
def command(file: Path, as_json: bool, dump: str | None, output: Path | None) -> None:
    """Report kernels, CUs, arguments, memories and clocks of an .xclbin or .xo.

    Exits 1 when the file's sections contradict each other (the report still prints).
    """
    if output is not None and dump is None:
        raise UsageError("--output goes with --dump-section")
    if dump is not None:
        try:
            data = dump_section(file.read_bytes(), dump)
        except OSError as err:
            raise FpgakernError(f"{display_path(file)}: cannot read ({err.strerror})") \
                from None
        if output is None:
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        else:
            write_bytes_atomic(output, data)
        return
    report = inspect_path(file)
    if as_json:
        print_json(report)
    else:
        click.echo(format_report(report), nl=False)
    if report["errors"]:
        count = plural(len(report["errors"]), "inconsistency", "inconsistencies")
        raise FpgakernError(f"{report['file']}: {count} between sections "
                            f"(first: {report['errors'][0]})")
