"""Commands that write files the command line does not name: ``tar x``, ``unzip``, ``xargs``
(the names come from its input), ``rsync``. Nothing is recorded; a warning says so."""

from __future__ import annotations

import os

from rewind.quicksave.file_commands import FILE_COMMANDS
from rewind.quicksave.options import after_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.quicksave.analysis import Analysis
    from rewind.quicksave.shell import Shell

# Commands whose every run gets the warning.
UNKNOWN_EFFECT = {
    "rsync": "the files it writes were not recorded",
}


def tar(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    old_style = bool(arguments) and not arguments[0].startswith("-") and "x" in arguments[0]
    extracts = old_style or any(
        argument in ("--extract", "--get")
        or (argument.startswith("-") and not argument.startswith("--") and "x" in argument)
        for argument in arguments
    )
    if extracts:
        analysis.warn("tar x: the files it extracts are not known and were not recorded")


def unzip(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    listing = any(argument in ("-l", "-t", "-v", "-Z", "-p", "-z") for argument in arguments)
    if not listing:
        analysis.warn("unzip: the files it extracts are not known and were not recorded")


def xargs(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    """The file names come from standard input: not known; say so for commands that write."""
    command = after_options(arguments, "adEILnPs")
    name = os.path.basename(command[0]) if command else ""
    if name in FILE_COMMANDS:
        analysis.warn(f"xargs {name}: the files come from standard input and were not recorded")
