"""Git objects written and read as loose files, without pygit2.

The hook path runs once per agent tool call, so it cannot pay for importing pygit2 (about
100 ms). A loose git object is ``zlib(b"<type> <size>\\0" + body)`` stored under its SHA-1;
writing one takes a few microseconds. Objects that are no longer loose (after ``rewind gc``
packed them) are read through pygit2 in :mod:`rewind.store.packed`.
"""

from __future__ import annotations

import os
import zlib

from rewind.errors import StoreError
from rewind.store.digest import sha1_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import BinaryIO

MODE_TREE = 0o40000
MODE_FILE = 0o100644
MODE_EXECUTABLE = 0o100755
MODE_LINK = 0o120000

# An object is written under a temporary name first. git's own prefix: a writer killed before
# its rename leaves a file that git's fsck knows not to report, and 'rewind gc' removes it once
# it is old (see rewind.store.packing).
TEMP_PREFIX = "tmp_obj_"
_counter = 0


def _temp_name(directory: str) -> str:
    global _counter
    _counter += 1
    return os.path.join(directory, f"{TEMP_PREFIX}{os.getpid()}_{_counter}")


class ObjectWriter:
    """Writes loose objects into ``<git_dir>/objects``; an object that exists already is kept."""

    def __init__(self, git_dir: str) -> None:
        self.objects_dir = os.path.join(git_dir, "objects")

    def path_of(self, oid: str) -> str:
        return os.path.join(self.objects_dir, oid[:2], oid[2:])

    def write(self, kind: bytes, body: bytes) -> str:
        """Stores an object; one that is already there is checked and freshened, not trusted.

        Freshening (as git does) tells a concurrent ``rewind gc`` that the object is in use
        again: gc deletes only unreferenced loose objects older than its grace period, and
        re-checks the time of each one just before deleting it (see :mod:`rewind.store.packing`).
        An existing object that is damaged is written again.
        """
        raw = b"%s %d\0%s" % (kind, len(body), body)
        oid = sha1_hex(raw)
        path = self.path_of(oid)
        if _holds(path, raw):
            try:
                os.utime(path)
                return oid
            except FileNotFoundError:
                pass  # a gc took it away meanwhile: write it again
            except PermissionError:
                return oid  # another user's object (a shared store): intact, so usable
        directory = os.path.dirname(path)
        temp = _temp_name(directory)
        with _create(directory, temp) as handle:
            handle.write(zlib.compress(raw, 1))
        os.chmod(temp, 0o444)
        os.replace(temp, path)
        return oid

    def write_blob(self, data: bytes) -> str:
        return self.write(b"blob", data)

    def write_tree(self, entries: Iterable[tuple[bytes, int, str]]) -> str:
        return self.write(b"tree", encode_tree(entries))

    def write_commit(self, tree: str, parent: str | None, message: str, when: float) -> str:
        return self.write(b"commit", encode_commit(tree, parent, message, when))


def _create(directory: str, temp: str) -> BinaryIO:
    """Opens ``temp`` for writing in ``directory``, made if needed: 'rewind gc' removes empty
    fan-out folders, so one may vanish between its creation and the open (tried again)."""
    for attempt in range(3):
        os.makedirs(directory, exist_ok=True)
        try:
            return open(temp, "wb")
        except FileNotFoundError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _holds(path: str, raw: bytes) -> bool:
    """Whether the loose object file at ``path`` is there and holds exactly ``raw``."""
    try:
        with open(path, "rb") as handle:
            compressed = handle.read()
    except OSError:
        return False
    try:
        return zlib.decompress(compressed) == raw
    except zlib.error:
        return False


def _tree_sort_key(entry: tuple[bytes, int, str]) -> bytes:
    name, mode, _ = entry
    return name + b"/" if mode == MODE_TREE else name


def encode_tree(entries: Iterable[tuple[bytes, int, str]]) -> bytes:
    """Entries are ``(name, mode, hex id)``; git wants them in its own byte order."""
    parts = []
    for name, mode, oid in sorted(entries, key=_tree_sort_key):
        parts.append(b"%o %s\0%s" % (mode, name, bytes.fromhex(oid)))
    return b"".join(parts)


def decode_tree(body: bytes) -> list[tuple[bytes, int, str]]:
    entries = []
    position = 0
    while position < len(body):
        space = body.index(b" ", position)
        nul = body.index(b"\0", space)
        mode = int(body[position:space], 8)
        name = body[space + 1 : nul]
        entries.append((name, mode, body[nul + 1 : nul + 21].hex()))
        position = nul + 21
    return entries


IDENTITY = b"rewind <rewind@localhost>"


def encode_commit(tree: str, parent: str | None, message: str, when: float) -> bytes:
    stamp = b"%s %d +0000" % (IDENTITY, int(when))
    lines = [b"tree " + tree.encode()]
    if parent:
        lines.append(b"parent " + parent.encode())
    lines += [b"author " + stamp, b"committer " + stamp, b"", message.encode()]
    return b"\n".join(lines)


def decode_commit(body: bytes) -> tuple[str, str | None]:
    """The tree and first parent of a commit."""
    tree, parent = "", None
    for line in body.split(b"\n"):
        if not line:
            break
        if line.startswith(b"tree "):
            tree = line[5:].decode()
        elif line.startswith(b"parent ") and parent is None:
            parent = line[7:].decode()
    return tree, parent


# The commits where the history was cut (git's own name and format: one id per line).
SHALLOW = "shallow"


class WrongKind(StoreError):
    """An object that is there, but of another kind than the one named (a ref naming a blob)."""


class ObjectReader:
    """Reads objects: loose ones directly, packed ones through pygit2."""

    def __init__(self, git_dir: str) -> None:
        self.git_dir = git_dir
        self.objects_dir = os.path.join(git_dir, "objects")
        self._cuts: tuple[tuple[int, int], frozenset[str]] = ((-1, -1), frozenset())

    def read(self, oid: str, expected_kind: bytes) -> bytes:
        try:
            with open(os.path.join(self.objects_dir, oid[:2], oid[2:]), "rb") as handle:
                compressed = handle.read()
        except FileNotFoundError:
            from rewind.store.packed import read_packed_object

            kind, body = read_packed_object(self.git_dir, oid)
        else:
            kind, body = _inflate(oid, compressed)
        if kind != expected_kind:
            raise WrongKind(
                f"object {oid} is a {kind.decode()}, not a {expected_kind.decode()}; "
                "run 'rewind check' to verify the store."
            )
        return body

    def read_blob(self, oid: str) -> bytes:
        return self.read(oid, b"blob")

    def size(self, oid: str) -> int:
        """How many bytes the object holds, read from its header, without inflating it (an
        object a remote sent may inflate to far more than it took to fetch)."""
        try:
            with open(os.path.join(self.objects_dir, oid[:2], oid[2:]), "rb") as handle:
                start = handle.read(_HEADER_BYTES)
        except FileNotFoundError:
            from rewind.store.packed import read_packed_size

            return read_packed_size(self.git_dir, oid)
        try:
            header = zlib.decompressobj().decompress(start, _HEADER_BYTES).split(b"\0", 1)[0]
            return int(header.split(b" ")[1])
        except (zlib.error, ValueError, IndexError):
            raise StoreError(
                f"object {oid} in the store is corrupted; run 'rewind check' to see what it "
                "affects."
            ) from None

    def read_tree(self, oid: str) -> list[tuple[bytes, int, str]]:
        return decode_tree(self.read(oid, b"tree"))

    def read_commit(self, oid: str) -> tuple[str, str | None]:
        """A commit's tree and parent; no parent for a commit where the history was cut
        (listed in the store's ``shallow`` file, as git does: see :func:`cut_points`)."""
        tree, parent = decode_commit(self.read(oid, b"commit"))
        if parent is not None and oid in self.cut_points():
            return tree, None
        return tree, parent

    def cut_points(self) -> frozenset[str]:
        """The commits listed in ``<store>/shallow``: retention cut the history there, and
        what is older is no longer part of it (git reads the same file the same way)."""
        path = os.path.join(self.git_dir, SHALLOW)
        try:
            info = os.stat(path)
        except FileNotFoundError:
            return frozenset()
        signature = (info.st_mtime_ns, info.st_size)
        if signature != self._cuts[0]:
            with open(path, encoding="ascii", errors="replace") as handle:
                cuts = frozenset(line.strip() for line in handle if len(line.strip()) == 40)
            self._cuts = (signature, cuts)
        return self._cuts[1]


# Enough of a loose object to inflate its header ("blob 1234\0"), whatever the compression.
_HEADER_BYTES = 64


def _inflate(oid: str, compressed: bytes) -> tuple[bytes, bytes]:
    try:
        raw = zlib.decompress(compressed)
        header, body = raw.split(b"\0", 1)
        kind, size = header.split(b" ")
    except (zlib.error, ValueError):
        raise StoreError(
            f"object {oid} in the store is corrupted; run 'rewind check' to see what it affects."
        ) from None
    if int(size) != len(body) or sha1_hex(raw) != oid:
        raise StoreError(
            f"object {oid} in the store is corrupted; run 'rewind check' to see what it affects."
        )
    return kind, body
