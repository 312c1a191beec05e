"""``python -m fpgakern``: the same as the ``fpgakern`` command."""

from fpgakern.cli import main

main()
