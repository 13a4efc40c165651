"""The patterns of ``[remote] exclude`` and of the built-in list of private files
(rewind.store.config.DEFAULT_REMOTE_EXCLUDE), matched as git matches the lines of a
``.gitignore`` at the project's root, in any case:

- a pattern without a slash (a trailing one aside) matches a name at any depth (``.env``,
  ``*.pem``); one with a slash at its start or in its middle matches from the root
  (``/notes.txt`` is the top-level one only, ``config/*.yaml`` is not ``config/a/b.yaml``);
- ``*`` and ``?`` never match a slash; ``[a-z]``, ``[!0-9]`` (or ``[^0-9]``) and
  ``[[:digit:]]`` match one character; ``**/`` at the start matches any folders or none,
  ``/**/`` in the middle any folders or none, ``/**`` at the end everything inside; ``**``
  elsewhere is ``*``; a backslash makes the next character plain;
- a trailing ``/`` matches folders only, and a pattern that matches a folder matches
  everything below it;
- letters match in either case, and names are compared in their composed Unicode form: on
  macOS and Windows ``.ENV`` is the file ``.env`` (git there, with ``core.ignorecase``, matches
  its ignore rules the same way), and holding back too much is the safe side.

Trailing spaces are dropped unless escaped, as git does. There are no comments (TOML has its
own) and no negation: a pattern that starts with ``!`` would share what another holds back,
so it is refused (``\\!name`` is a name that starts with ``!``), as are the patterns git would
never match (a ``[`` without its ``]``, an unknown ``[:class:]``, a trailing backslash).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# The character classes of git's wildmatch, in ASCII as git's own ctype is.
_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "\\x21-\\x7e",
    "lower": "a-z",
    "print": "\\x20-\\x7e",
    "punct": "\\x21-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7e",
    "space": " \\t\\n\\r",
    "upper": "A-Z",
    "xdigit": "0-9a-fA-F",
}


class BadPattern(ValueError):
    """A pattern rewind refuses; the message says why."""


class _Compiled:
    __slots__ = ("anchored", "folders_only", "pattern", "regex")

    def __init__(self, pattern: str, ignore_case: bool) -> None:
        if pattern.startswith("!"):
            raise BadPattern(
                "starts with '!', which would share what another pattern holds back (write "
                "'\\!' for a name that starts with '!')"
            )
        text = _without_trailing_spaces(_composed(pattern))
        self.pattern = pattern
        self.folders_only = text.endswith("/")
        if self.folders_only:
            text = text[:-1]
        self.anchored = "/" in text
        flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
        self.regex = re.compile(_translate(text.removeprefix("/")), flags)

    def matches(self, path: str, ends: list[int]) -> bool:
        """Whether the pattern matches ``path`` or one of its folders (``ends``: where each of
        its components ends, the last one the path's)."""
        start = 0
        last = len(ends) - 1
        for depth, end in enumerate(ends):
            if self.folders_only and depth == last:
                return False
            if self.regex.fullmatch(path, 0 if self.anchored else start, end):
                return True
            start = end + 1
        return False


class ExcludePatterns:
    """Patterns with gitignore's syntax (see the module's doc)."""

    def __init__(self, patterns: Iterable[str], ignore_case: bool = True) -> None:
        self._compiled: list[_Compiled] = []
        for pattern in patterns:
            try:
                self._compiled.append(_Compiled(pattern, ignore_case))
            except BadPattern as error:
                raise BadPattern(f"{pattern!r} {error}") from None

    def matching(self, path: str) -> str | None:
        """The first pattern that matches ``path`` (relative to the root, with ``/`` between
        its names) or a folder it lies in; None when none does."""
        path = _composed(path)
        ends = [index for index, character in enumerate(path) if character == "/"]
        ends.append(len(path))
        for compiled in self._compiled:
            if compiled.matches(path, ends):
                return compiled.pattern
        return None


def _composed(text: str) -> str:
    if text.isascii():
        return text
    import unicodedata  # only for a name that is not ASCII

    return unicodedata.normalize("NFC", text)


def _without_trailing_spaces(text: str) -> str:
    """``text`` without its trailing spaces, but those a backslash escapes (as git reads a
    .gitignore line)."""
    last_space = None
    index = 0
    while index < len(text):
        character = text[index]
        if character == " ":
            last_space = index if last_space is None else last_space
        else:
            last_space = None
            if character == "\\":
                index += 1  # the escaped character, a space included
        index += 1
    return text if last_space is None else text[:last_space]


def _translate(text: str) -> str:
    """A regular expression that matches what the glob ``text`` matches (as git's wildmatch
    with WM_PATHNAME)."""
    parts: list[str] = []
    index = 0
    while index < len(text):
        part, index = _element(text, index)
        parts.append(part)
    return "".join(parts)


def _element(text: str, index: int) -> tuple[str, int]:
    """The regular expression of the glob's element at ``index``, and where the next starts."""
    character = text[index]
    if character == "*":
        return _stars(text, index)
    if character == "?":
        return "[^/]", index + 1
    if character == "[":
        return _bracket(text, index + 1)
    character, index = _plain(text, index)
    return re.escape(character), index


def _stars(text: str, index: int) -> tuple[str, int]:
    end = index
    while end < len(text) and text[end] == "*":
        end += 1
    alone = (index == 0 or text[index - 1] == "/") and (end == len(text) or text[end] == "/")
    if end - index < 2 or not alone:
        return "[^/]*", end
    if end == len(text):
        return ".*", end  # '/**' at the end, or '**' alone: everything
    return "(?:.*/)?", end + 1  # '**/': any folders, or none


def _plain(text: str, index: int) -> tuple[str, int]:
    """The character at ``index`` (the one after it if it is a backslash), and where the glob
    goes on."""
    if text[index] != "\\":
        return text[index], index + 1
    if index + 1 == len(text):
        raise BadPattern("ends with a backslash, which escapes nothing")
    return text[index + 1], index + 2


def _bracket(text: str, index: int) -> tuple[str, int]:
    """The bracket expression that starts at ``text[index]`` (after its ``[``), and where the
    glob goes on after its ``]``. It never matches a slash; a ``]`` first is a member."""
    negated = text[index : index + 1] in ("!", "^")
    index += int(negated)
    start = index
    members: list[str] = []
    low: str | None = None  # a character that a '-' after it makes the start of a range
    while (character := _in_bracket(text, index)) != "]" or index == start:
        found = _class(text, index) if text.startswith("[:", index) else None
        if found is not None:
            member, index = found
            low = None
        elif character == "-" and low is not None and _ends_range(text, index + 1):
            high, index = _plain(text, index + 1)
            # A range the wrong way round matches nothing, as in git.
            members[-1] = f"{_in_class(low)}-{_in_class(high)}" if low <= high else ""
            low = None
            continue
        else:
            low, index = _plain(text, index)
            member = _in_class(low)
        members.append(member)
    joined = "".join(members)
    if negated:
        return f"[^/{joined}]", index + 1
    return (f"(?!/)[{joined}]" if joined else "(?!)"), index + 1


def _ends_range(text: str, index: int) -> bool:
    """Whether ``text[index]`` ends a range (a '-' last in a bracket is a member)."""
    return index < len(text) and text[index] != "]"


def _in_bracket(text: str, index: int) -> str:
    if index >= len(text):
        raise BadPattern("has a '[' without its ']'")
    return text[index]


def _class(text: str, index: int) -> tuple[str, int] | None:
    """The ``[:name:]`` at ``index`` and where the bracket goes on; None when it is not one
    (its ``[`` is a member then)."""
    close = text.find("]", index + 2)
    if close < 0:
        raise BadPattern("has a '[' without its ']'")
    if close < index + 3 or text[close - 1] != ":":
        return None
    name = text[index + 2 : close - 1]
    if name not in _CLASSES:
        raise BadPattern(f"names the class [:{name}:], which git does not know")
    return _CLASSES[name], close + 1


def _in_class(character: str) -> str:
    return "\\" + character if character in "\\]^-[" else character
