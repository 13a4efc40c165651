"""What writers tell the next gc about garbage, in two files of the store's own state.

- ``rewind/superseded``: commits that were a session's tip and were replaced by another commit
  on the same parent (the open turn's commit written when it began, superseded when its
  journal is folded in). The history layer appends one id per line, holding the store lock, so
  that gc can delete what only such a commit needed at once instead of after its grace period
  (see :mod:`rewind.store.packing`). On the hook path: one append, no import.
- ``rewind/gc.full``: history was dropped (a forgotten session, turns cut off a chain), so the
  packs hold objects nothing needs any more; the next gc rewrites them all (a full repack).

gc takes each file under the store lock (renamed to ``NAME.taken``) and removes the taken copy
only once it has done what it says, so that a gc killed meanwhile leaves it to the next one.
"""

from __future__ import annotations

import os

from rewind.store.atomic import write_text_atomically
from rewind.store.repository import Store

SUPERSEDED = "superseded"
FULL_REPACK = "gc.full"
TAKEN = ".taken"
_HEX = frozenset("0123456789abcdef")


def record_superseded(store: Store, commit: str) -> None:
    """Notes that ``commit`` is no longer a session's tip (the caller holds the store lock).

    Only a hint that lets gc free the commit early: when it cannot be written, the commit is
    freed after the grace period like any other unreachable object.
    """
    try:
        fd = os.open(store.state_path(SUPERSEDED), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, commit.encode("ascii") + b"\n")
        finally:
            os.close(fd)
    except OSError:
        pass


def request_full_repack(store: Store) -> None:
    """Makes the next gc rewrite every pack with only what the history still needs."""
    write_text_atomically(store.state_path(FULL_REPACK), "requested\n")


def take_superseded(store: Store) -> list[str]:
    """The superseded commits noted so far, including those a killed gc had taken; later
    notes go to a fresh file. The caller holds the gc lock and the store lock."""
    path = store.state_path(SUPERSEDED)
    taken = path + TAKEN
    text = _read(taken)
    fresh = _read(path)
    if fresh:
        write_text_atomically(taken, text + fresh)
        text += fresh
    _remove(path)
    ids = (line.strip() for line in text.splitlines())
    return list(dict.fromkeys(oid for oid in ids if len(oid) == 40 and set(oid) <= _HEX))


def take_full_request(store: Store) -> bool:
    """Whether a full repack was requested (and not completed since)."""
    path = store.state_path(FULL_REPACK)
    try:
        os.replace(path, path + TAKEN)
    except FileNotFoundError:
        pass
    return os.path.exists(path + TAKEN)


def done_with_superseded(store: Store) -> None:
    _remove(store.state_path(SUPERSEDED + TAKEN))


def done_with_full_request(store: Store) -> None:
    _remove(store.state_path(FULL_REPACK + TAKEN))


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read()
    except FileNotFoundError:
        return ""


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
