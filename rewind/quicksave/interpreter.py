"""The parsed command line read in imitation of the shell: each command's substitutions,
redirections (and the standard input they give it) and subshells, loops over ``for`` words,
prefixes (``env``, ``sudo``, ``time`` ...) and keywords, ``bash -c``/``eval`` strings, and the
handler the command's name calls."""

from __future__ import annotations

import os

from rewind.quicksave.file_commands import FILE_COMMANDS
from rewind.quicksave.find import find
from rewind.quicksave.options import OptionSyntax, any_of, first_of, read_option
from rewind.quicksave.parser import WRITING_REDIRECTIONS, parse
from rewind.quicksave.patch_commands import apply_patch, patch
from rewind.quicksave.prepass import unread_warning
from rewind.quicksave.shell import StandardInput, directory_named
from rewind.quicksave.shell_builtins import cd, declare, for_loop, popd, pushd, unset
from rewind.quicksave.unknown_writes import UNKNOWN_EFFECT, tar, unzip, xargs
from rewind.quicksave.words import DYNAMIC, is_assignment, is_dynamic, mentions, names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.quicksave.analysis import Analysis
    from rewind.quicksave.file_commands import Handler
    from rewind.quicksave.parser import Command
    from rewind.quicksave.shell import Shell

_MAX_LOOP_RUNS = 500


def run_sequence(analysis: Analysis, sequence: list[Command], shell: Shell) -> None:
    for command in sequence:
        _run_command(analysis, command, shell)


def _run_command(analysis: Analysis, command: Command, shell: Shell) -> None:
    if not analysis.read_command():
        return
    looped = [name for name in shell.loops if _uses(command, name)]
    if looped:
        _run_loop(analysis, command, shell, looped)
        return
    for substitution in command.substitutions:
        run_sequence(analysis, substitution, shell.copy())
    for operator, target in command.redirections:
        _redirect(analysis, operator, target, shell)
    outer_input = shell.stdin
    shell.stdin = _standard_input(command, shell) or outer_input
    try:
        if command.subshell is not None:
            run_sequence(analysis, command.subshell, shell.copy())
            return
        words = [word for raw in command.words for word in shell.expand(raw)]
        _remember_written(analysis, command, words, shell)
        _run_words(analysis, words, shell)
    finally:
        shell.stdin = outer_input


def _uses(command: Command, name: str) -> bool:
    words = [*command.words, *(target for _, target in command.redirections)]
    return any(mentions(word, name) for word in words)


def _run_loop(analysis: Analysis, command: Command, shell: Shell, loop_names: list[str]) -> None:
    """A command that uses ``for`` loop variables, read once per combination of values."""
    runs: list[dict[str, str]] = [{}]
    for name in loop_names:
        runs = _combinations(runs, name, shell.loops[name])
    if len(runs) > _MAX_LOOP_RUNS:
        analysis.warn(f"a loop runs more than {_MAX_LOOP_RUNS} times: read the first ones")
        runs = runs[:_MAX_LOOP_RUNS]
    for run in runs:
        iteration = shell.copy()
        for name, value in run.items():
            iteration.set_variable(name, value)
        _run_command(analysis, command, iteration)


def _combinations(runs: list[dict[str, str]], name: str, values: list[str]) -> list[dict[str, str]]:
    """Each run with each value of ``name``: no more than one past the limit."""
    combined: list[dict[str, str]] = []
    for run in runs:
        for value in values:
            combined.append({**run, name: value})
            if len(combined) > _MAX_LOOP_RUNS:
                return combined
    return combined


def _redirect(analysis: Analysis, operator: str, target: str, shell: Shell) -> None:
    if operator not in WRITING_REDIRECTIONS:
        return
    for word in shell.expand(target):
        if operator == ">&" and (word.isdigit() or word == "-"):
            continue  # 2>&1, >&- : a file descriptor, not a file
        path = analysis.resolve(word, shell, f"{operator} {target}")
        if path is not None:
            analysis.add(path)


def _standard_input(command: Command, shell: Shell) -> StandardInput | None:
    """What the command's own redirections give it on standard input (the last one counts):
    a here-document's body, a here-string's word, a file; None when they give nothing."""
    for operator, target in reversed(command.redirections):
        if operator == "<<":
            return StandardInput(text=target)
        if operator == "<<<":
            return StandardInput(text=None if is_dynamic(target) else target + "\n")
        if operator == "<":
            return StandardInput(path=_named_path(target, shell))
    return None


def _named_path(target: str, shell: Shell) -> str | None:
    """The absolute path a redirection's target names; None when only the shell knows it."""
    words = shell.expand(target)
    return directory_named(words[0], shell.cwd) if len(words) == 1 else None


def _remember_written(analysis: Analysis, command: Command, words: list[str], shell: Shell) -> None:
    """``cat > FILE <<EOF``: the text FILE holds for the rest of the line (a patch applied
    from it later on the line is read from there)."""
    given = shell.stdin
    if words not in (["cat"], ["cat", "-"]) or given is None or given.text is None:
        return
    for operator, target in command.redirections:
        if operator in (">", ">|"):
            path = _named_path(target, shell)
            if path is not None:
                analysis.written[path] = given.text


def _run_words(analysis: Analysis, words: list[str], shell: Shell) -> None:
    """A simple command, after expansion."""
    start = 0
    while start < len(words) and is_assignment(words[start]):
        start += 1
    if start == len(words):
        for word in words:  # NAME=value alone: the shell keeps it
            shell.assign(word)
        return
    words = words[start:]
    name = os.path.basename(words[0])
    if name in _KEYWORDS:
        _run_words(analysis, words[1:], shell)
    elif name in _PREFIXES:
        _unwrap(analysis, name, words[1:], shell)
    elif name in _HANDLERS:
        _HANDLERS[name](analysis, words[1:], shell)
    elif name in UNKNOWN_EFFECT:
        analysis.warn(f"{name}: {UNKNOWN_EFFECT[name]}")


def _unwrap(analysis: Analysis, name: str, arguments: list[str], shell: Shell) -> None:
    """``sudo -u x rm f``: the options of the prefix, then the command it runs."""
    syntax = _PREFIXES[name]
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        if name == "env" and is_assignment(argument):
            index += 1
            continue
        if argument == "--":
            index += 1
            break
        if name in _NO_OPTIONS or not argument.startswith("-") or argument == "-":
            break
        options: dict[str, str] = {}
        index = read_option(argument, arguments, index + 1, syntax, options)
        if name == "command" and any_of(options, "-v", "-V"):
            return  # command -v NAME only looks a name up
        directory = first_of(options, *_DIRECTORY_OPTIONS.get(name, ()))
        if directory:
            shell = shell.copy()
            cd(analysis, [directory], shell)
    rest = arguments[index:]
    if name == "timeout":
        rest = rest[1:]  # the duration
    _run_words(analysis, rest, shell)


def _shell_string(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    """``bash -c STRING``: the string is read as a command line of its own."""
    for index, argument in enumerate(arguments):
        if argument == "-c" or (
            argument.startswith("-") and not argument.startswith("--") and "c" in argument
        ):
            if index + 1 < len(arguments):
                _run_text(analysis, arguments[index + 1], shell.copy(), "bash -c")
            return
        if not argument.startswith(("-", "+")):
            return  # bash script.sh: not read


def _eval(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    _run_text(analysis, " ".join(arguments), shell, "eval")


def _run_text(analysis: Analysis, text: str, shell: Shell, context: str) -> None:
    """A command line given as a string; what the outer shell could not expand (``$f``) is
    read as written, as the inner shell would see it if it knows more."""
    text = text.replace(DYNAMIC, "")
    try:
        parsed = parse(text)
    except ValueError as error:
        analysis.warn(f"{context}: the command could not be parsed ({error})")
        return
    if parsed.unread:
        analysis.warn(f"{context}: {unread_warning(parsed.unread)}")
    run_sequence(analysis, parsed.commands, shell)


_HANDLERS: dict[str, Handler] = {
    **FILE_COMMANDS,
    "find": find,
    "tar": tar,
    "unzip": unzip,
    "xargs": xargs,
    "apply_patch": apply_patch,
    "applypatch": apply_patch,
    "patch": patch,
    "cd": cd,
    "pushd": pushd,
    "popd": popd,
    "export": declare,
    "declare": declare,
    "typeset": declare,
    "local": declare,
    "readonly": declare,
    "unset": unset,
    "for": for_loop,
    "bash": _shell_string,
    "sh": _shell_string,
    "zsh": _shell_string,
    "dash": _shell_string,
    "ksh": _shell_string,
    "eval": _eval,
}
_KEYWORDS = names("if then else elif fi do done while until ! { }")
# Prefix commands, and which of their options take a value.
_PREFIXES: dict[str, OptionSyntax] = {
    "env": OptionSyntax("uCS", ("--unset", "--chdir", "--split-string")),
    "sudo": OptionSyntax("ugCDhprtUT", ("--user", "--group", "--chdir", "--host", "--prompt")),
    "doas": OptionSyntax("uC"),
    "command": OptionSyntax(),
    "builtin": OptionSyntax(),
    "exec": OptionSyntax("a"),
    "nohup": OptionSyntax(),
    "time": OptionSyntax("fo", ("--format", "--output")),
    "nice": OptionSyntax("n", ("--adjustment",)),
    "timeout": OptionSyntax("sk", ("--signal", "--kill-after")),
    "stdbuf": OptionSyntax("ioe", ("--input", "--output", "--error")),
    "ionice": OptionSyntax("cnp", ("--class", "--classdata", "--pid")),
}
_NO_OPTIONS = frozenset({"nohup", "builtin"})
_DIRECTORY_OPTIONS: dict[str, tuple[str, ...]] = {
    "env": ("-C", "--chdir"),
    "sudo": ("-D", "--chdir"),
}
