"""Commands that delete the files they name: ``rm`` (``-r``: the files inside directories),
``unlink``, ``shred``."""

from __future__ import annotations

import os

from rewind.quicksave.options import any_of, split_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.quicksave.analysis import Analysis
    from rewind.quicksave.shell import Shell


def rm(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    options, operands = split_options(arguments)
    recursive = any_of(options, "-r", "-R", "--recursive")
    for operand in operands:
        for path in analysis.operand_paths(operand, shell, "rm"):
            _remove(analysis, path, recursive, through_link=operand.endswith("/"))


def _remove(analysis: Analysis, path: str, recursive: bool, through_link: bool) -> None:
    """``rm`` of one path: a directory only with ``-r`` (``dir/`` goes through a symlink)."""
    if os.path.isdir(path) and (through_link or not os.path.islink(path)):
        if recursive:
            analysis.record_tree(path)
        return
    analysis.add_existing(path)


def unlink(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    _, operands = split_options(arguments)
    for operand in operands:
        analysis.record_changed(operand, shell, "unlink")


def shred(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    _, operands = split_options(arguments, "ns", ("--iterations", "--size", "--random-source"))
    for operand in operands:
        analysis.record_changed(operand, shell, "shred")
