"""Editors that rewrite files in place: ``sed -i``/``--in-place`` (and its backup files),
``perl -i``, ``gawk -i inplace``."""

from __future__ import annotations

import os

from rewind.quicksave.options import any_of, first_of, last_given, split_options
from rewind.quicksave.words import is_assignment

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.quicksave.analysis import Analysis
    from rewind.quicksave.shell import Shell


def sed(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    """``sed -i[SUFFIX]``/``--in-place[=SUFFIX]``: the file operands, and their backups."""
    values = ("--expression", "--file", "--line-length")
    options, operands = split_options(arguments, "efl", values, optional_value="i")
    in_place = last_given(options, "-i", "--in-place")  # the backup suffix
    if in_place is None:
        return
    script_given = any_of(options, "-e", "-f", "--expression", "--file")
    files = operands if script_given else operands[1:]
    follow_links = "--follow-symlinks" in options
    _edit_in_place(analysis, files, shell, "sed -i", in_place, follow_links)


def perl(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    """``perl -i[EXT] -pe CODE FILES`` (``-pi``, ``-i.bak``): the files."""
    in_place: str | None = None
    code_given = False
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        if argument == "--":
            index += 1
            break
        if not argument.startswith("-") or argument == "-":
            break
        index += 1
        for position in range(1, len(argument)):
            letter = argument[position]
            rest = argument[position + 1 :]
            if letter == "i":
                in_place = rest
                break
            if letter in "eE":
                code_given = True
            if letter in "eEIMmFCdDlx0":
                if not rest and letter in "eEI":
                    index += 1
                break
    if in_place is None:
        return
    files = arguments[index:] if code_given else arguments[index + 1 :]
    _edit_in_place(analysis, files, shell, "perl -i", in_place)


def awk(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    """``gawk -i inplace PROGRAM FILES``: the files (``VAR=value`` operands are not files)."""
    values = ("--file", "--assign", "--field-separator", "--include", "--load", "--source")
    options, operands = split_options(arguments, "fvFilEe", values)
    if first_of(options, "-i", "--include") not in ("inplace", "inplace.awk"):
        return
    program_given = any_of(options, "-f", "--file", "-e", "--source", "-E", "--exec")
    files = operands if program_given else operands[1:]
    files = [word for word in files if not is_assignment(word)]
    _edit_in_place(analysis, files, shell, "awk -i inplace", "")


def _edit_in_place(
    analysis: Analysis,
    files: list[str],
    shell: Shell,
    context: str,
    backup_suffix: str,
    follow_links: bool = False,
) -> None:
    """Files rewritten in place: each one, its backup (``SUFFIX``, ``*`` standing for the
    name), and with ``follow_links`` the file a symlink points to."""
    for word in files:
        for path in analysis.operand_paths(word, shell, context):
            if not os.path.isfile(path):
                continue
            analysis.add(path)
            if follow_links and os.path.islink(path):
                analysis.add(os.path.realpath(path))
            if backup_suffix:
                analysis.add(os.path.join(os.path.dirname(path), _backup_name(path, backup_suffix)))


def _backup_name(path: str, suffix: str) -> str:
    name = os.path.basename(path)
    return suffix.replace("*", name) if "*" in suffix else name + suffix
