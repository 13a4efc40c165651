"""The contents git does not hold, kept before the agent's programs can change them: the
watcher's **snapshot** of the files git reports changed or untracked (not ignored), taken when
the watcher starts and at the start of each turn, so that a program that overwrites or deletes
such a file lets a restore bring it back byte for byte. Outside git, every file of the project
is such a file.

Bounded: a file larger than ``max_file_size`` is not read (its change is not rewindable, and
says so), and past :data:`FILES_LIMIT` files or :data:`BYTES_LIMIT` bytes in all the rest are
left out (logged). What was read before is not read again: each file's kind, size, mode, times
and inode are kept with its blob in ``<store>/rewind/snapshot.json``, and a file whose ``lstat``
still says the same costs that ``lstat`` alone.

A snapshot is only as good as the moment it was read: the watcher sets a barrier's marker
before reading and another after (rewind.watch.observer), and a snapshot's state is the earlier
state of a path only for a change whose first event came after the second marker; a path with
an event between the two may have changed while it was read, and is not taken.
"""

from __future__ import annotations

import os
import stat

from rewind.errors import StoreError
from rewind.history.filestate import DIRECTORY, SPECIAL, TOO_LARGE, FileState, capture
from rewind.store.atomic import write_text_atomically
from rewind.store.fastjson import dumps, load_object
from rewind.store.repository import Store

FILES_LIMIT = 20_000
BYTES_LIMIT = 512 * 1024 * 1024
CACHE_NAME = "snapshot.json"
NOT_KEPT = frozenset({DIRECTORY, SPECIAL})


def _identity(info: os.stat_result) -> list[int]:
    """What says a file is unchanged since it was read (as git's index does)."""
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode]


class Snapshot:
    """The states read by the last :meth:`take` (path -> state, its content in the store)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.states: dict[bytes, FileState] = {}
        self.left_out = 0

    def take(self, names: list[bytes]) -> dict[bytes, FileState]:
        """Reads ``names`` (relative to the root), reusing what the last snapshot read of a
        file whose ``lstat`` is unchanged; returns what was read."""
        known = self._read_cache()
        taken: dict[bytes, FileState] = {}
        cache: dict[str, object] = {}
        total = 0
        self.left_out = 0
        limit = self.store.config.max_file_size
        for name in names:
            if len(taken) >= FILES_LIMIT or total >= BYTES_LIMIT:
                self.left_out += 1
                continue
            absolute = self.store.root.absolute(name)
            try:
                info = os.lstat(absolute)
            except OSError:
                continue  # gone already: nothing to keep
            if stat.S_ISDIR(info.st_mode) or not (
                stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)
            ):
                continue
            key = os.fsdecode(name)
            identity = _identity(info)
            state = self._reused(known.get(key), identity)
            if state is None:
                state = capture(absolute, limit, self.store.writer)
                if state.kind in NOT_KEPT:
                    continue
                identity = _identity(os.lstat(absolute)) if os.path.lexists(absolute) else []
            taken[name] = state
            total += state.size if state.kind != TOO_LARGE else 0
            cache[key] = {"id": identity, "state": state.to_json()}
        self.states = taken
        self._write_cache(cache)
        return taken

    def _reused(self, cached: object, identity: list[int]) -> FileState | None:
        if not isinstance(cached, dict) or cached.get("id") != identity:
            return None
        recorded = cached.get("state")
        if not isinstance(recorded, dict):
            return None
        try:
            state = FileState.from_json(recorded)
        except (TypeError, ValueError, AttributeError):
            return None
        if state.oid is not None:
            try:
                self.store.reader.size(state.oid)  # still in the store (gc may have removed it)
            except (StoreError, OSError):
                return None
        return state

    def _read_cache(self) -> dict[str, object]:
        try:
            with open(self.store.state_path(CACHE_NAME), encoding="utf-8") as handle:
                return load_object(handle.read())
        except (OSError, ValueError):
            return {}

    def _write_cache(self, cache: dict[str, object]) -> None:
        try:
            write_text_atomically(self.store.state_path(CACHE_NAME), dumps(cache))
        except OSError as error:
            self.store.log_problem(f"watch: the snapshot's cache was not written: {error}")


class SnapshotRound:
    """One snapshot until its marker comes back: the states read, and the paths an event
    touched since the reading began (they may have changed while they were read, and are not
    taken). An event the kernel queued before the reading but that came out after it began is
    counted too: that only leaves a path out, never takes a wrong state."""

    def __init__(self, states: dict[bytes, FileState], began: float) -> None:
        self.states = states
        self.began = began  # time.monotonic() when the reading began
        self.tainted: set[bytes] = set()

    def saw(self, path: bytes, when: float) -> None:
        """An event of ``path`` came out of the queue, stamped ``when``."""
        if when >= self.began:
            self.tainted.add(path)

    def trusted(self) -> dict[bytes, FileState]:
        return {path: state for path, state in self.states.items() if path not in self.tainted}
