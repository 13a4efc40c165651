"""The paths a conversation names: what the redaction of a shared conversation looks for the
private files among (rewind.history.remote.redaction), without ever walking the work tree.

A transcript names a file where the agent used a tool on it: a tool's input (``file_path``,
``path``, ``absolute_path``...; Codex's arguments are JSON inside a string) or a shell command
(``cat .env``: each word of the command that could be a path). The lines that hold none of
those keys are not parsed. A relative name is given as it is (relative to the project's root),
and joined with the working directories in force where it was written, a few at most: the
``cwd`` (``workdir``...) of the record that holds it, and the directories a ``cd`` earlier in
the same command goes to (``cd sub && cat .env``: ``sub/.env`` too). A name is taken relative
to the project's root: as it is (a relative name), or under the root or under a working
directory the transcript records (``cwd``: on the machine that recorded it, whose absolute
paths are not this machine's). Names that leave the project are dropped: they are not the
project's files.

A private file is read to be looked for, never to be sent: :func:`existing_file` follows a link
wherever it leads (a ``.env`` linked to a file kept outside the project), and
:func:`linked_targets` gives the project's files that a named link leads to (a tracked
``config/app.env`` linked to the ignored ``.env``).
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
# The most working directories a relative name is joined with (a record's, a command's cd).
MAX_DIRECTORIES = 4
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
        _walk(record, found, 0, ())
    return found


def _walk(value: object, found: Names, depth: int, here: tuple[str, ...]) -> None:
    """The names in ``value``, relative ones joined with ``here`` too (the working directories
    in force, nearest first)."""
    if depth > 64:
        return
    if isinstance(value, list):
        for item in value:
            _walk(item, found, depth + 1, here)
        return
    if not isinstance(value, dict):
        return
    here = _working_directories(value, found, here)
    for key, item in value.items():
        if isinstance(item, str) and len(item) <= _MAX_NAME:
            if key in PATH_KEYS:
                found.names.update(_joined({item}, here))
            elif key in COMMAND_KEYS:
                found.names.update(_joined(command_names(item), here))
            elif key == "arguments" and item.startswith("{"):  # Codex: JSON in a string
                try:
                    _walk(json.loads(item), found, depth + 1, here)
                except (ValueError, RecursionError):
                    pass
        elif isinstance(item, list) and key in COMMAND_KEYS:  # ["bash", "-lc", "cat .env"]
            for part in item:
                if isinstance(part, str) and len(part) <= _MAX_NAME:
                    found.names.update(_joined(command_names(part), here))
        else:
            _walk(item, found, depth + 1, here)


def _working_directories(
    record: dict[str, object], found: Names, here: tuple[str, ...]
) -> tuple[str, ...]:
    """``here`` with the working directories ``record`` gives first; the absolute ones are
    kept as the roots the transcript records."""
    own = []
    for key in sorted(DIRECTORY_KEYS):
        item = record.get(key)
        if isinstance(item, str) and item.startswith("/") and len(item) <= _MAX_NAME:
            found.directories.add(item)
            own.append(item)
    return (*own, *here)[:MAX_DIRECTORIES] if own else here


def _joined(names: set[str], directories: tuple[str, ...]) -> set[str]:
    """``names``, and each relative one joined with each of ``directories``."""
    joined = set(names)
    for name in names:
        if not name.startswith(("/", "~")):
            joined.update(posixpath.join(directory, name) for directory in directories)
    return joined


def words(command: str) -> set[str]:
    """The words of a shell command that could name a file (``cat .env > out``: ``.env``,
    ``out``; ``--file=.env``: ``.env``)."""
    return {word for word in map(_word, _tokens(command)) if word}


def command_names(command: str) -> set[str]:
    """The names a shell command gives: its :func:`words`, and those after a ``cd DIR`` also
    joined with the directories it may have gone to (``cd sub && cat .env``: ``sub/.env``)."""
    found: set[str] = set()
    directories: list[str] = []  # where the command may be, nearest first
    going = False  # the next word is where a cd goes
    for token in _tokens(command):
        word = _word(token)
        if not word:
            going = going and token.startswith("-")  # cd -P DIR; cd && ...: nowhere
            continue
        found.add(word)
        found.update(posixpath.join(directory, word) for directory in directories)
        if going and not word.startswith("~"):
            gone = [posixpath.join(directory, word) for directory in directories[:1]]
            directories = list(dict.fromkeys([*gone, word, *directories]))[:MAX_DIRECTORIES]
        going = token in ("cd", "pushd")
    return found


def _tokens(command: str) -> list[str]:
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:  # an unclosed quote
        return command.split()


def _word(token: str) -> str:
    """What of ``token`` could name a file ('' for an operator, a bare option)."""
    if token.startswith("-"):
        token = token.partition("=")[2]
    return token if any(c.isalnum() for c in token) and "\n" not in token else ""


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
    folder, a device...). A link is followed wherever it leads: what is read is only looked for
    in a conversation, never stored or sent."""
    path = os.path.join(root, os.fsencode(relative))
    try:
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


def linked_targets(root: bytes, names: set[bytes]) -> set[bytes]:
    """The project's paths that ``names`` lead to through a link (``config/app.env`` ->
    ``../.env``: ``.env``), relative to ``root``; a name that is no link, or leads out of the
    project, gives none."""
    real_root = os.path.realpath(root).rstrip(b"/") + b"/"
    found = set()
    for name in sorted(names)[:MAX_NAMES]:
        if name.startswith(b"/"):
            continue
        path = os.path.join(root, name)
        try:
            if not os.path.lexists(path):
                continue  # most names are a command's other words: one look each
            real = os.path.realpath(path)
        except (OSError, ValueError):
            continue
        if real.startswith(real_root) and real[len(real_root) :] != name:
            found.add(real[len(real_root) :])
    return found
