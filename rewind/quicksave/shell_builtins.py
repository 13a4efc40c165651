"""The builtins that change what the shell knows: ``cd``, ``pushd``, ``popd``; ``export`` (and
``declare``, ``local`` ...), ``unset``; ``for NAME in WORDS``."""

from __future__ import annotations

from rewind.quicksave.shell import directory_named
from rewind.quicksave.words import expands_as_glob, is_assignment, is_dynamic, is_identifier

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.quicksave.analysis import Analysis
    from rewind.quicksave.shell import Shell


def cd(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    operands = [argument for argument in arguments if argument not in ("-L", "-P", "-e", "--")]
    if not operands:
        target = shell.variable("HOME")
    elif operands[0] == "-":
        target = shell.previous
    else:
        target = operands[0]
    previous = shell.cwd
    shell.cwd = None if target is None else directory_named(target, shell.cwd)
    if shell.cwd is None:
        analysis.warn(
            "cd: to a directory only the running shell knows; relative paths after it "
            "were not recorded"
        )
    shell.previous = previous


def pushd(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    shell.stack.append(shell.cwd)
    cd(analysis, arguments, shell)


def popd(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    if shell.stack:
        shell.previous, shell.cwd = shell.cwd, shell.stack.pop()


def declare(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    """``export NAME=value`` (and declare, local ...): the shell keeps the value."""
    for argument in arguments:
        if is_assignment(argument):
            shell.assign(argument)


def unset(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    for name in arguments:
        if is_identifier(name):
            shell.set_variable(name, "")


def for_loop(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    """``for NAME in WORDS``: later commands that use ``$NAME`` are read once per word."""
    if len(arguments) < 2 or arguments[1] != "in" or not is_identifier(arguments[0]):
        if arguments and is_identifier(arguments[0]):
            shell.set_variable(arguments[0], None)
        return
    values: list[str] = []
    for word in arguments[2:]:
        if is_dynamic(word):
            shell.set_variable(arguments[0], None)
            return
        if expands_as_glob(word) and shell.cwd is not None:
            values.extend(shell.glob(word, recursive=False) or [word])
        else:
            values.append(word)
    shell.variables.pop(arguments[0], None)
    shell.loops[arguments[0]] = values
