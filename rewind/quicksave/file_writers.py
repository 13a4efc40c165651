"""Commands that create or change the files they name: ``tee``, ``truncate``, ``touch``,
``dd of=``, ``chmod`` (``-R``: the files inside directories; a symlink: its target)."""

from __future__ import annotations

import os

from rewind.quicksave.options import any_of, split_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.quicksave.analysis import Analysis
    from rewind.quicksave.shell import Shell


def tee(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    _, operands = split_options(arguments)
    for operand in operands:
        analysis.record_created(operand, shell, "tee")


def truncate(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    options, operands = split_options(arguments, "sr", ("--size", "--reference"))
    no_create = any_of(options, "-c", "--no-create")
    for operand in operands:
        if no_create:
            analysis.record_changed(operand, shell, "truncate")
        else:
            analysis.record_created(operand, shell, "truncate")


def touch(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    """The operands that do not exist yet (touching an existing file changes only its times)."""
    options, operands = split_options(arguments, "dtrA", ("--date", "--reference", "--time"))
    if any_of(options, "-c", "--no-create"):
        return
    for operand in operands:
        for path in analysis.operand_paths(operand, shell, "touch"):
            if not os.path.lexists(path):
                analysis.add(path)


def dd(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    for argument in arguments:
        if argument.startswith("of="):
            path = analysis.resolve(argument[3:], shell, "dd")
            if path is not None:
                analysis.add(path)


_CHMOD_FLAGS = frozenset(
    {"-c", "-f", "-v", "--changes", "--silent", "--quiet", "--verbose", "--preserve-root"}
    | {"--no-preserve-root"}
)
_MODE_CHARS = frozenset("rwxXstugoa+-=,01234567")


def chmod(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    """``chmod [-R] MODE FILES`` (a mode may look like an option: ``chmod -x f``)."""
    recursive = False
    mode_seen = any(argument.startswith("--reference") for argument in arguments)
    files: list[str] = []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        if argument == "--":
            files.extend(arguments[index:] if mode_seen else arguments[index + 1 :])
            break
        if argument in ("-R", "--recursive"):
            recursive = True
        elif argument == "--reference":
            index += 1
        elif argument in _CHMOD_FLAGS or argument.startswith("--reference="):
            pass
        elif argument.startswith("-") and all(char in "Rcfv" for char in argument[1:]):
            recursive = recursive or "R" in argument
        elif not mode_seen and (
            not argument.startswith("-") or all(char in _MODE_CHARS for char in argument[1:])
        ):
            mode_seen = True
        else:
            files.append(argument)
    for word in files:
        for path in analysis.operand_paths(word, shell, "chmod"):
            _change_mode(analysis, path, recursive)


def _change_mode(analysis: Analysis, path: str, recursive: bool) -> None:
    if os.path.islink(path):
        target = os.path.realpath(path)  # chmod changes what a named symlink points to
        if os.path.isfile(target):
            analysis.add(target)
    elif os.path.isdir(path):
        if recursive:
            analysis.record_tree(path)
    else:
        analysis.add_existing(path)
