"""The files a patch names, read before it applies: Codex's ``apply_patch`` format (``*** Add
File: PATH``, ``*** Update File:``, ``*** Delete File:``, ``*** Move to:``; OpenCode reads the
same headers without the space after the colon) and unified diffs
(``--- a/PATH`` over ``+++ b/PATH``, and git's ``diff --git``, ``rename from/to``, ``copy to``).

The adapters read an ``apply_patch`` tool's input with it, and the shell quicksave the patch of
an ``apply_patch``, ``patch`` or ``git apply`` command line. Paths are returned as the patch
writes them; the caller resolves them and keeps out what lies outside the project. Only lines
that can name a file are looked at, found with ``str.find``: a patch of many megabytes is read
in milliseconds, and a quoted name longer than any path (PATCH_NAME_CHARACTERS) is not decoded
character by character. Imports only the limits (this runs on the hook path).
"""

from __future__ import annotations

from rewind.store.input_limits import PATCH_NAME_CHARACTERS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

# Without the space that follows the colon in Codex's format: OpenCode's parser takes the rest
# of the line after the colon, trimmed, space or not.
_ADD, _UPDATE, _DELETE, _MOVE = (
    "*** Add File:",
    "*** Update File:",
    "*** Delete File:",
    "*** Move to:",
)
_HEADERS = (_ADD, _UPDATE, _DELETE)
# git's extended header lines that name a file the patch writes (a copy's source is only read).
_GIT_NAMES = ("rename from ", "rename to ", "copy to ")
_NO_FILE = "/dev/null"
# A ``diff --git`` line is split where both halves name the same file; a longer one is left to
# the ``---``/``+++`` lines that follow it (splitting costs time in the square of its length).
_LONGEST_GIT_LINE = 4096
_C_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, '"': 34, "\\": 92}


# Codex's apply_patch format ------------------------------------------------------------------


def patch_paths(patch: str) -> list[str]:
    """Every path an ``apply_patch`` patch adds, updates, deletes or moves to, in order.

    As Codex reads a header, the line is trimmed and the path is the rest of it after the
    colon and a space; a ``Move to`` path is the rest of the line as written. Where that keeps
    white space at an end, the path without it is returned too (as OpenCode reads it, with no
    space needed after the colon): recording one file more costs nothing, missing one loses
    it."""
    paths: dict[str, None] = {}
    for line in _marked_lines(patch):
        for path in _marked_paths(line):
            paths.setdefault(path, None)
    return list(paths)


def patch_moves(patch: str) -> dict[str, str]:
    """The files an ``apply_patch`` patch moves: ``*** Move to: B`` after ``*** Update File:
    A`` (destination: source)."""
    moves: dict[str, str] = {}
    updated: str | None = None
    for line in _marked_lines(patch):
        header = line.strip()
        if header.startswith(_UPDATE):
            updated = _after_colon(header[len(_UPDATE) :]) or None
        elif header.startswith(_MOVE) and updated is not None:
            destination = _move_destination(line)
            if destination:
                moves[destination] = updated
            updated = None
        elif header.startswith("*** "):
            updated = None
    return moves


def _marked_paths(line: str) -> list[str]:
    header = line.strip()
    for marker in _HEADERS:
        if header.startswith(marker):
            return _with_trimmed(_after_colon(header[len(marker) :]))
    if header.startswith(_MOVE):
        return _with_trimmed(_move_destination(line))
    return []


def _move_destination(line: str) -> str:
    """Codex takes the rest of an unindented ``*** Move to:`` line as it is."""
    text = line if line.startswith(_MOVE) else line.strip()
    return _after_colon(text[len(_MOVE) :])


def _after_colon(rest: str) -> str:
    """The path of a header whose marker ends at its colon: Codex's after one space, else
    (no space: only OpenCode takes it for a header) trimmed, as OpenCode reads it."""
    return rest[1:] if rest.startswith(" ") else rest.strip()


def _with_trimmed(path: str) -> list[str]:
    trimmed = path.strip()
    return [each for each in dict.fromkeys((path, trimmed)) if each]


# unified diffs ---------------------------------------------------------------------------------


def diff_paths(diff: str, strip: int | None) -> list[str]:
    """Every path a unified diff (GNU ``diff -u``, ``git diff``) names as a file it changes,
    creates, deletes or renames, with ``strip`` leading directories taken off (``-p``; None:
    all of them, as GNU ``patch`` does without ``-p``).

    The old and the new name of each file are both returned (``patch`` picks one by what
    exists; ``-R`` swaps them); ``/dev/null`` is not a file. A name that keeps nothing after
    stripping is left out, as ``patch`` and ``git apply`` skip it."""
    paths: dict[str, None] = {}
    for name, depth in _diff_names(diff):
        path = _stripped(name, strip if depth == 0 or strip is None else max(strip - depth, 0))
        if path:
            paths.setdefault(path, None)
    return list(paths)


def _diff_names(diff: str) -> Iterator[tuple[str, int]]:
    """Each file name of the diff's headers, and how many of its leading directories the diff
    already left out (git's ``rename from`` names have no ``a/``)."""
    for start, line in _lines_starting(diff, "+++ "):
        previous = _line_before(diff, start)
        if previous.startswith("--- "):
            yield from ((name, 0) for name in (_header_name(previous), _header_name(line)))
    for prefix in _GIT_NAMES:
        for _, line in _lines_starting(diff, prefix):
            yield _unquoted(line[len(prefix) :]), 1
    for _, line in _lines_starting(diff, "diff --git "):
        yield from ((name, 0) for name in _git_line_names(line[len("diff --git ") :]))


def _header_name(line: str) -> str:
    """The file name of a ``---``/``+++`` line: up to a tab (a date follows it), unquoted;
    ``""`` for ``/dev/null``."""
    name = line[4:]
    if not name.startswith('"'):
        name = name.split("\t", 1)[0]
    name = _unquoted(name.rstrip())
    return "" if name == _NO_FILE else name


def _git_line_names(rest: str) -> list[str]:
    """The names of a ``diff --git a/NAME b/NAME`` line (quoted, or unquoted and the same file
    on both sides, as git itself reads them)."""
    if rest.startswith('"'):
        close = _closing_quote(rest)
        if close > 0:
            return [_unquoted(rest[: close + 1]), _unquoted(rest[close + 1 :].strip())]
        return []
    if len(rest) > _LONGEST_GIT_LINE:
        return []
    space = rest.find(" ")
    while space >= 0:
        old, new = rest[:space], rest[space + 1 :]
        if old.partition("/")[2] == new.partition("/")[2]:
            return [old, new]
        space = rest.find(" ", space + 1)
    return []


def _stripped(name: str, strip: int | None) -> str:
    """``name`` without its first ``strip`` directories (None: its last component only);
    ``""`` when it has no more than that."""
    if not name:
        return ""
    if strip is None:
        return name.rstrip("/").rsplit("/", 1)[-1]
    parts = name.split("/")
    if strip >= len(parts):
        return ""
    return "/".join(parts[strip:])


def _unquoted(name: str) -> str:
    """A name as git writes it between double quotes (C escapes, bytes in octal), unquoted;
    any other name as it is."""
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    if len(name) > PATCH_NAME_CHARACTERS:
        return ""  # names no file
    body = name[1:-1]
    out = bytearray()
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            escaped = body[index + 1]
            digits = body[index + 1 : index + 4]
            if len(digits) == 3 and all(digit in "01234567" for digit in digits):
                out.append(int(digits, 8) & 0xFF)
                index += 4
                continue
            if escaped in _C_ESCAPES:
                out.append(_C_ESCAPES[escaped])
                index += 2
                continue
        out += char.encode("utf-8", "surrogateescape")
        index += 1
    return out.decode("utf-8", "surrogateescape")


def _closing_quote(text: str) -> int:
    """Where the quoted name at the start of ``text`` ends (-1: it does not, or not within
    PATCH_NAME_CHARACTERS)."""
    index = 1
    while index < min(len(text), PATCH_NAME_CHARACTERS):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == '"':
            return index
        index += 1
    return -1


# finding lines --------------------------------------------------------------------------------


def _marked_lines(patch: str) -> list[str]:
    """The lines (without their line ending) that hold a marker of the apply_patch format, in
    order; each marker is looked for on its own, so that content holding ``***`` costs
    nothing."""
    found: dict[int, str] = {}
    for marker in (*_HEADERS, _MOVE):
        index = patch.find(marker)
        while index >= 0:
            start = patch.rfind("\n", 0, index) + 1
            end = _line_end(patch, index)
            if start == index or patch[start:index].isspace():
                found[start] = patch[start:end].removesuffix("\r")
            index = patch.find(marker, end)
    return [found[start] for start in sorted(found)]


def _lines_starting(text: str, prefix: str) -> Iterator[tuple[int, str]]:
    """Each line of ``text`` (without its line ending) that starts with ``prefix``, and where
    it starts."""
    start = 0 if text.startswith(prefix) else _next_line_starting(text, prefix, 0)
    while start >= 0:
        end = _line_end(text, start)
        yield start, text[start:end].removesuffix("\r")
        start = _next_line_starting(text, prefix, end)


def _next_line_starting(text: str, prefix: str, index: int) -> int:
    found = text.find("\n" + prefix, index)
    return found if found < 0 else found + 1


def _line_end(text: str, index: int) -> int:
    end = text.find("\n", index)
    return len(text) if end < 0 else end


def _line_before(text: str, start: int) -> str:
    """The line that ends just before ``start`` (``""`` at the top)."""
    if start == 0:
        return ""
    begin = text.rfind("\n", 0, start - 1) + 1
    return text[begin : start - 1].removesuffix("\r")
