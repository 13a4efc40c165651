"""The recorded state of one path: its content, permission bits, link target, or absence."""

from __future__ import annotations

import os
import stat

import xxhash

from rewind.history.bounds import INT64_MAX, INT64_MIN, MAX_FOLDERS, MAX_MODE, integer
from rewind.store.objects import MODE_EXECUTABLE, MODE_FILE, MODE_LINK

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.store.objects import ObjectWriter

FILE = "file"
LINK = "link"
ABSENT = "absent"
TOO_LARGE = "too-large"
UNREADABLE = "unreadable"
UNKNOWN = "unknown"  # no pre-image could be taken (an agent told rewind only after the edit)
DIRECTORY = "directory"
SPECIAL = "special"  # a fifo, socket or device: never read, never written
# A state whose content its session's machine did not push (rewind.history.remote.export): the file
# is private there (ignored by git, or excluded), so only the fact that it changed travels.
NOT_SHARED = "not-shared"

RESTORABLE = frozenset({FILE, LINK, ABSENT})


class FileState:
    """What a path held at one moment. ``oid`` is the git blob of the content or link target."""

    __slots__ = ("kind", "missing_dirs", "mode", "mtime_ns", "oid", "size", "xxh")

    def __init__(
        self,
        kind: str,
        oid: str | None = None,
        mode: int = 0,
        size: int = 0,
        xxh: str | None = None,
        mtime_ns: int = 0,
        missing_dirs: int = 0,
    ) -> None:
        self.kind = kind
        self.oid = oid
        self.mode = mode
        self.size = size
        self.xxh = xxh
        self.mtime_ns = mtime_ns
        # For an absent path: how many of its parent directories did not exist either, so
        # that putting the absence back also removes the directories a turn created.
        self.missing_dirs = missing_dirs

    def __repr__(self) -> str:
        return f"FileState({self.kind!r}, oid={self.oid!r}, mode={self.mode:o}, size={self.size})"

    @property
    def restorable(self) -> bool:
        return self.kind in RESTORABLE

    @property
    def git_mode(self) -> int:
        if self.kind == LINK:
            return MODE_LINK
        return MODE_EXECUTABLE if self.mode & 0o100 else MODE_FILE

    def same_as(self, other: FileState) -> bool:
        """Whether two states hold the same thing (an unknown state is never the same)."""
        if self.kind != other.kind or self.kind in (UNKNOWN, UNREADABLE):
            return False
        if self.kind == FILE:
            return (self.xxh, self.size, self.mode) == (other.xxh, other.size, other.mode)
        if self.kind == LINK:
            return self.xxh == other.xxh
        if self.kind == TOO_LARGE:
            return (self.size, self.mtime_ns) == (other.size, other.mtime_ns)
        return True

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"kind": self.kind}
        if self.oid is not None:
            data["oid"] = self.oid
        if self.kind in (FILE, TOO_LARGE):
            data["mode"] = self.mode
        if self.kind in (FILE, LINK, TOO_LARGE):
            data["size"] = self.size
        if self.xxh is not None:
            data["xxh"] = self.xxh
        if self.mtime_ns:
            data["mtime_ns"] = self.mtime_ns
        if self.missing_dirs:
            data["missing_dirs"] = self.missing_dirs
        return data

    @classmethod
    def from_json(cls, data: dict[str, object]) -> FileState:
        """The state ``data`` holds; a ValueError when one of its numbers is out of range (see
        rewind.history.bounds)."""

        def text(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) else None

        return cls(
            text("kind") or UNKNOWN,
            oid=text("oid"),
            mode=integer(data, "mode", 0, MAX_MODE),
            size=integer(data, "size", 0, INT64_MAX),
            xxh=text("xxh"),
            mtime_ns=integer(data, "mtime_ns", INT64_MIN, INT64_MAX),
            missing_dirs=integer(data, "missing_dirs", 0, MAX_FOLDERS),
        )


def fingerprint(data: bytes | memoryview) -> str:
    return xxhash.xxh3_64_hexdigest(data)


class RecordedFingerprints:
    """The fingerprints recorded with file states, by blob: walks that read many versions
    (blame, line counts) read them without libgit2's SHA-1 re-hash and check each content
    against what was recorded with it instead (``rewind.store.line_diffs.LineDiffer``)."""

    def __init__(self) -> None:
        self.by_oid: dict[str, str] = {}

    def note(self, state: FileState | None) -> None:
        if state is not None and state.kind == FILE and state.oid and state.xxh:
            self.by_oid[state.oid] = state.xxh

    def __call__(self, oid: str, data: memoryview) -> bool | None:
        """Whether ``data`` is what was recorded for blob ``oid`` (None: nothing recorded)."""
        expected = self.by_oid.get(oid)
        return None if expected is None else fingerprint(data) == expected


def capture(
    path: bytes,
    max_size: int,
    writer: ObjectWriter | None = None,
    known: FileState | None = None,
) -> FileState:
    """The state of ``path`` now, never following a final symlink.

    With a ``writer``, the content is stored as a blob (unless ``known`` already holds the same
    content, whose blob is reused). Without one, only the fingerprint is taken.
    """
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return FileState(ABSENT, missing_dirs=_missing_parents(path))
    except OSError:
        return FileState(UNREADABLE)
    if stat.S_ISLNK(info.st_mode):
        target = os.readlink(path)
        return _with_blob(
            FileState(LINK, size=len(target), xxh=fingerprint(target)), target, writer, known
        )
    if stat.S_ISDIR(info.st_mode):
        return FileState(DIRECTORY)
    if not stat.S_ISREG(info.st_mode):
        return FileState(SPECIAL)
    mode = stat.S_IMODE(info.st_mode)
    if info.st_size > max_size:
        return FileState(TOO_LARGE, mode=mode, size=info.st_size, mtime_ns=info.st_mtime_ns)
    try:
        data = _read_regular(path)
    except OSError:
        return FileState(UNREADABLE, mode=mode, size=info.st_size)
    state = FileState(FILE, mode=mode, size=len(data), xxh=fingerprint(data))
    return _with_blob(state, data, writer, known)


def from_content(data: bytes, mode: int, writer: ObjectWriter) -> FileState:
    """The state of a regular file holding ``data``."""
    state = FileState(FILE, mode=mode, size=len(data), xxh=fingerprint(data))
    state.oid = writer.write_blob(data)
    return state


def absent_before_creation(path: bytes, root: bytes) -> FileState:
    """The state before a file that exists now was created, for agents that report a creation
    only afterwards: absent, and the parents holding nothing but it counted as created with it
    (they are removed on restore only while empty)."""
    count = 0
    child, parent = path, os.path.dirname(path)
    while parent != root and parent.startswith(root):
        try:
            if os.listdir(parent) != [os.path.basename(child)]:
                break
        except OSError:
            break
        count += 1
        child, parent = parent, os.path.dirname(parent)
    return FileState(ABSENT, missing_dirs=count)


def _missing_parents(path: bytes) -> int:
    count = 0
    parent = os.path.dirname(path)
    while parent and not os.path.isdir(parent):
        count += 1
        parent = os.path.dirname(parent)
    return count


def _with_blob(
    state: FileState, data: bytes, writer: ObjectWriter | None, known: FileState | None
) -> FileState:
    if known is not None and known.oid and known.kind == state.kind and known.xxh == state.xxh:
        state.oid = known.oid
    elif writer is not None:
        state.oid = writer.write_blob(data)
    return state


def _read_regular(path: bytes) -> bytes:
    # O_NONBLOCK: a path swapped for a fifo after lstat must not hang the hook.
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path!r} is not a regular file")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
