"""The paths a conversation names: what the redaction of a shared conversation looks for the
private files among (rewind.history.remote.redaction), without ever walking the work tree.

A transcript names a file where the agent used a tool on it: a tool's input (``file_path``,
``path``, ``absolute_path``...; Codex's arguments are JSON inside a string) or a shell command
(``cat .env``: each word of the command that could be a path). The lines that hold none of
those keys are not parsed. A name is taken relative to the project's root: as it is (a relative
name), or under the root or under a working directory the transcript records (``cwd``: on the
machine that recorded it, whose absolute paths are not this machine's). Names that leave the
project are dropped: they are not the project's files.
"""

from __future__ import annotations

import json
import os
import posixpath
import shlex
import stat

# The keys whose string value names a file, and those whose value is a shell command.
PATH_KEYS = frozenset(
    {"file_path", "filePath", "path", "notebook_path", "absolute_path", "filename", "file"}
)
COMMAND_KEYS = frozenset({"command", "cmd"})
DIRECTORY_KEYS = frozenset({"cwd", "workdir", "dir_path"})
# The raw text a line holds when it may name a path (the keys, as they read in JSON).
_ANCHORS = (b"path", b"Path", b"command", b"cmd", b"cwd", b"workdir", b"file")
# The most names one conversation gives (a guard against a transcript made of names).
MAX_NAMES = 20_000
_MAX_NAME = 4096


class Names:
    """The names a conversation gives, and the working directories it records."""

    __slots__ = ("directories", "names")

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.directories: set[str] = set()

    def add(self, other: Names) -> None:
        self.names |= other.names
        self.directories |= other.directories

    def inside(self, root: str) -> set[str]:
        """The names that lie inside the project at ``root``, relative to it (POSIX)."""
        bases = [root, *sorted(self.directories)]
        found: set[str] = set()
        for name in sorted(self.names)[:MAX_NAMES]:
            relative = _relative(name, bases)
            if relative:
                found.add(relative)
        return found


def names_in(data: bytes) -> Names:
    """The names the JSON lines ``data`` give (see the module's doc)."""
    found = Names()
    for line in data.split(b"\n"):
        if not any(anchor in line for anchor in _ANCHORS):
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError, UnicodeDecodeError):
            continue
        _walk(record, found, 0)
    return found


def _walk(value: object, found: Names, depth: int) -> None:
    if depth > 64:
        return
    if isinstance(value, list):
        for item in value:
            _walk(item, found, depth + 1)
        return
    if not isinstance(value, dict):
        return
    for key, item in value.items():
        if isinstance(item, str) and len(item) <= _MAX_NAME:
            if key in PATH_KEYS:
                found.names.add(item)
            elif key in COMMAND_KEYS:
                found.names.update(words(item))
            elif key in DIRECTORY_KEYS and item.startswith("/"):
                found.directories.add(item)
            elif key == "arguments" and item.startswith("{"):  # Codex: JSON in a string
                try:
                    _walk(json.loads(item), found, depth + 1)
                except (ValueError, RecursionError):
                    pass
        elif isinstance(item, list) and key in COMMAND_KEYS:  # ["bash", "-lc", "cat .env"]
            for part in item:
                if isinstance(part, str) and len(part) <= _MAX_NAME:
                    found.names.update(words(part))
        else:
            _walk(item, found, depth + 1)


def words(command: str) -> set[str]:
    """The words of a shell command that could name a file (``cat .env > out``: ``.env``,
    ``out``; ``--file=.env``: ``.env``)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # an unclosed quote
        tokens = command.split()
    found = set()
    for token in tokens:
        if token.startswith("-"):
            token = token.partition("=")[2]
        if any(c.isalnum() for c in token) and "\n" not in token:
            found.add(token)
    return found


def _relative(name: str, bases: list[str]) -> str:
    """``name`` relative to the project's root, or '' when it lies outside it."""
    if name.startswith("~") or "\x00" in name:
        return ""
    if name.startswith("/"):
        for base in bases:
            inside = _under(posixpath.normpath(name), base)
            if inside:
                return inside
        return ""
    relative = posixpath.normpath(name)
    if relative in (".", "..") or relative.startswith("../"):
        return ""
    return relative


def _under(path: str, base: str) -> str:
    base = posixpath.normpath(base)
    if path.startswith(base.rstrip("/") + "/"):
        return path[len(base.rstrip("/")) + 1 :]
    return ""


def existing_file(root: bytes, relative: str) -> bytes | None:
    """The first MiB of the regular file at ``relative`` under ``root``, or None (no file, a
    folder, a link that leads out of the project...)."""
    path = os.path.join(root, os.fsencode(relative))
    try:
        real = os.path.realpath(path)
        if not real.startswith(os.path.realpath(root).rstrip(b"/") + b"/"):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(1 << 20)
    except OSError:
        return None
    finally:
        os.close(fd)
