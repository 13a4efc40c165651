"""Commands with sources and a destination: both ends of ``mv``, the destination of ``cp``
(``-r``: source directories mirrored into it), ``install`` and ``ln``."""

from __future__ import annotations

import os

from rewind.quicksave.options import any_of, first_of, split_options
from rewind.quicksave.words import is_dynamic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.quicksave.analysis import Analysis
    from rewind.quicksave.shell import Shell

_COPY_VALUES = ("--target-directory", "--suffix")


def mv(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    options, operands = split_options(arguments, "tS", _COPY_VALUES)
    _transfer(analysis, options, operands, shell, "mv", move=True, recursive=True)


def cp(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    options, operands = split_options(arguments, "tS", _COPY_VALUES)
    recursive = any_of(options, "-r", "-R", "--recursive", "-a", "--archive")
    _transfer(analysis, options, operands, shell, "cp", move=False, recursive=recursive)


def install(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    values = ("--target-directory", "--suffix", "--mode", "--owner", "--group", "--strip-program")
    options, operands = split_options(arguments, "tSmog", values)
    if not any_of(options, "-d", "--directory"):
        _transfer(analysis, options, operands, shell, "install", move=False, recursive=False)


def _transfer(
    analysis: Analysis,
    options: dict[str, str],
    operands: list[str],
    shell: Shell,
    context: str,
    move: bool,
    recursive: bool,
) -> None:
    """Both ends of ``mv``, the destination of ``cp``/``install``: ``SRC... DEST``,
    ``-t DIR SRC...``, ``-T SRC DEST``; into ``DEST`` when it is a directory."""
    target_option = first_of(options, "-t", "--target-directory")
    if target_option is not None:
        target_word, sources = target_option, operands
    elif len(operands) >= 2:
        target_word, sources = operands[-1], operands[:-1]
    else:
        return
    target = analysis.resolve(target_word, shell, context)
    if target is None:
        return
    into = not any_of(options, "-T", "--no-target-directory") and (
        target_option is not None or os.path.isdir(target)
    )
    for word in sources:
        # A source that does not exist yet may be made earlier on the line (jq ... > tmp &&
        # mv tmp config): its destination is at risk all the same.
        for source in analysis.operand_paths(word, shell, context):
            destination = os.path.join(target, os.path.basename(source)) if into else target
            if os.path.isdir(source) and not os.path.islink(source):
                if recursive:
                    analysis.record_tree(source, (destination,), include_files=move)
                continue
            if move:
                analysis.add(source)
                analysis.moves[os.path.normpath(destination)] = os.path.normpath(source)
            analysis.add(destination)


def ln(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    """The link paths ``ln`` creates or replaces."""
    options, operands = split_options(arguments, "tS", _COPY_VALUES)
    directory = first_of(options, "-t", "--target-directory")
    targets = operands
    if directory is None:
        if len(operands) == 1:
            directory = "."
        elif len(operands) >= 2:
            if not _links_into_directory(analysis, options, operands[-1], shell):
                analysis.record_created(operands[-1], shell, "ln")
                return
            directory, targets = operands[-1], operands[:-1]
        else:
            return
    for target in targets:
        if not is_dynamic(target):
            name = os.path.basename(target.rstrip("/"))
            analysis.record_created(os.path.join(directory, name), shell, "ln")


def _links_into_directory(
    analysis: Analysis, options: dict[str, str], last: str, shell: Shell
) -> bool:
    """Whether ``ln ... TARGET LAST`` makes its links inside ``LAST`` (an existing directory;
    with ``-n``, not a symlink to one)."""
    path = analysis.resolve(last, shell, "ln")
    if path is None or any_of(options, "-T", "--no-target-directory") or not os.path.isdir(path):
        return False
    return not (any_of(options, "-n", "--no-dereference") and os.path.islink(path))
