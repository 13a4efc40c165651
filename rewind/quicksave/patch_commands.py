"""Commands that apply a patch: Codex's ``apply_patch`` (also ``applypatch``), GNU ``patch`` and
``git apply``. The patch is read where the command reads it: an operand (``apply_patch PATCH``),
its standard input when the command line holds it (a here-document, a here-string, ``< FILE``),
or a file it names (``patch -i FILE``, ``git apply FILE``); a file written earlier on the same
line by ``cat > FILE <<EOF`` is read from the line. Every file the patch adds, changes, deletes
or moves is recorded (rewind.patches reads the names), relative to where the command applies it.
"""

from __future__ import annotations

import os
import stat  # loaded by os already

from rewind.patches import diff_paths, patch_moves, patch_paths
from rewind.quicksave.options import any_of, last_given, split_options
from rewind.quicksave.shell_builtins import cd
from rewind.quicksave.words import is_dynamic
from rewind.store.input_limits import PATCH_FILE_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.quicksave.analysis import Analysis
    from rewind.quicksave.shell import Shell

# The largest patch file read from disk is rewind.store.input_limits.PATCH_FILE_BYTES (a patch on
# the command line is read whatever its size). The most files one patch may name that are
# recorded (each costs the hook some work).
MAX_PATCH_FILES = 10_000

_PATCH_VALUES = "BDdFgioprVYz"
_PATCH_LONG_VALUES = (
    "--prefix",
    "--ifdef",
    "--directory",
    "--fuzz",
    "--get",
    "--input",
    "--output",
    "--strip",
    "--reject-file",
    "--version-control",
    "--basename-prefix",
    "--suffix",
    "--quoting-style",
    "--reject-format",
    "--read-only",
)
_GIT_APPLY_LONG_VALUES = (
    "--directory",
    "--exclude",
    "--include",
    "--whitespace",
    "--build-fake-ancestor",
)
# git apply options with which it writes no file of the work tree.
_GIT_APPLY_READ_ONLY = ("--cached", "--check")
_GIT_APPLY_REPORTS = ("--stat", "--numstat", "--summary")
_NOT_A_NUMBER = -1  # a -p the command refuses


def apply_patch(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    """``apply_patch [--preserve-crlf] [PATCH]``: the patch is the operand, else standard
    input; its paths are relative to the directory it runs in."""
    operands = arguments[1:] if arguments[:1] == ["--preserve-crlf"] else arguments
    name = "apply_patch"
    text = operands[0] if operands else standard_input(analysis, shell, name)
    if text is None:
        return
    if is_dynamic(text):
        analysis.warn(f"{name}: a patch only the running shell knows was not read")
        return
    _record(analysis, patch_paths(text), shell, name)
    for destination, source in patch_moves(text).items():
        ends = [analysis.resolve(end, shell, name) for end in (destination, source)]
        if ends[0] is not None and ends[1] is not None:
            analysis.moves[ends[0]] = ends[1]


def patch(analysis: Analysis, arguments: list[str], shell: Shell) -> None:
    """GNU ``patch [OPTIONS] [ORIGINAL [PATCHFILE]]``: ORIGINAL, or every file the diff names
    (both names of each; without ``-p``, their last component), after ``-d DIR``; with the
    backup (``.orig``, or ``-z SUFFIX``) and reject (``.rej``) files it may leave."""
    options, operands = split_options(arguments, _PATCH_VALUES, _PATCH_LONG_VALUES)
    if any_of(options, "--dry-run"):
        return
    where = shell.copy()
    directory = last_given(options, "-d", "--directory")
    if directory is not None:
        cd(analysis, [directory], where)
    if operands:
        targets = [operands[0]]
    else:
        strip = _strip_level(analysis, last_given(options, "-p", "--strip"), None, "patch")
        patch_file = last_given(options, "-i", "--input")
        text = _patch_text(analysis, patch_file, shell, where, "patch")
        if text is None or strip == _NOT_A_NUMBER:
            return
        targets = diff_paths(text, strip)
    suffix = last_given(options, "-z", "--suffix") or ".orig"
    siblings = [name + end for name in targets for end in (suffix, ".rej")]
    outputs = [last_given(options, "-o", "--output"), last_given(options, "-r", "--reject-file")]
    written = [name for name in outputs if name and name != "-"]
    _record(analysis, [*targets, *siblings, *written], where, "patch")


def git_apply(analysis: Analysis, arguments: list[str], shell: Shell, top: str) -> None:
    """``git apply [OPTIONS] [PATCH...]``: every file the diffs name (both names; ``-p``
    directories taken off, 1 unless told), relative to ``top`` (the work tree's top, or the
    directory when there is no repository), under ``--directory``; with ``--reject``, the
    ``.rej`` files. Nothing with ``--cached``, ``--check``, or a report without ``--apply``."""
    options, operands = split_options(arguments, "pC", _GIT_APPLY_LONG_VALUES)
    reports = any_of(options, *_GIT_APPLY_REPORTS) and not any_of(options, "--apply")
    if any_of(options, *_GIT_APPLY_READ_ONLY) or reports:
        return
    strip = _strip_level(analysis, last_given(options, "-p"), 1, "git apply")
    if strip == _NOT_A_NUMBER:
        return
    root = shell.copy()
    root.cwd = top
    prefix = last_given(options, "--directory") or ""
    rejects = any_of(options, "--reject")
    for word in operands or ["-"]:
        text = _patch_text(analysis, None if word == "-" else word, shell, shell, "git apply")
        if text is None:
            continue
        names = [os.path.join(prefix, name) for name in diff_paths(text, strip)]
        _record(
            analysis, [*names, *(name + ".rej" for name in names if rejects)], root, "git apply"
        )


def standard_input(analysis: Analysis, shell: Shell, context: str) -> str | None:
    """The text the command reads on its standard input; None, with a warning, when the
    command line does not hold it."""
    given = shell.stdin
    if given is not None and given.text is not None:
        return given.text
    if given is not None and given.path is not None:
        return read_patch_file(analysis, given.path, context)
    analysis.warn(
        f"{context}: reads the patch from a standard input the command line does not hold; "
        "the files it changes were not recorded"
    )
    return None


def read_patch_file(analysis: Analysis, path: str, context: str) -> str | None:
    """The text of the patch file at ``path`` (as written earlier on the line, else as it is
    now: a regular file of at most PATCH_FILE_BYTES); None, with a warning, otherwise."""
    if path in analysis.written:
        return analysis.written[path]
    shown = analysis.shown(path)
    try:
        info = os.stat(path)
    except OSError:
        analysis.warn(f"{context}: {shown} cannot be read; the files it patches were not recorded")
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > PATCH_FILE_BYTES:
        what = "is not a file" if not stat.S_ISREG(info.st_mode) else "is too long to read"
        analysis.warn(f"{context}: {shown} {what}; the files it patches were not recorded")
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read(PATCH_FILE_BYTES).decode("utf-8", "surrogateescape")
    except OSError:
        analysis.warn(f"{context}: {shown} cannot be read; the files it patches were not recorded")
        return None


def _patch_text(
    analysis: Analysis, word: str | None, shell: Shell, where: Shell, context: str
) -> str | None:
    """The patch: the file ``word`` names (relative to ``where``), else standard input."""
    if word is None:
        return standard_input(analysis, shell, context)
    path = analysis.resolve(word, where, context)
    return None if path is None else read_patch_file(analysis, path, context)


def _strip_level(
    analysis: Analysis, given: str | None, default: int | None, context: str
) -> int | None:
    """The number of ``-p``; ``default`` when not given; _NOT_A_NUMBER, with a warning, when
    it is not a number (the command then refuses to run)."""
    if given is None:
        return default
    if given.isascii() and given.isdigit() and len(given) < 6:
        return int(given)
    analysis.warn(f"{context}: -p {given} is not a number; nothing recorded")
    return _NOT_A_NUMBER


def _record(analysis: Analysis, names: list[str], shell: Shell, context: str) -> None:
    """Records each of ``names`` (relative to the shell's directory), up to MAX_PATCH_FILES."""
    if len(names) > MAX_PATCH_FILES:
        analysis.warn(
            f"{context}: the patch names more than {MAX_PATCH_FILES} files: "
            f"recorded the first {MAX_PATCH_FILES}"
        )
    for name in names[:MAX_PATCH_FILES]:
        path = analysis.resolve(name, shell, context)
        if path is not None:
            analysis.add(path)
