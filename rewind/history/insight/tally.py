"""Counting a project's whole history: its sessions, entries, file records and the bytes they
stand for. Everything ``rewind stats`` counts over entries is counted here, in one pass, so
that a faster source (an index of entries) can replace the reading without touching the
command.

It reads the entries' records from the index (:mod:`rewind.history.index`), not the commits:
its cost still grows with the history (every record is parsed), which ``rewind stats`` can
afford; nothing on a hot path calls it.
"""

from __future__ import annotations

from rewind.history.entry import DAMAGED, REDO, RESTORE, SOURCES, TURN, UNDO
from rewind.history.index.queries import EntryIndex
from rewind.history.sessions import list_sessions
from rewind.store.repository import DamagedRef, Store


class Tally:
    """``entries`` counts the entries by kind (turn, restore, undo, damaged). ``file_records``
    counts each file of each entry once, ``paths`` the distinct paths among them.
    ``recorded_bytes`` adds up the size of every file state recorded with its content (before
    and after, in every entry), as if each were a full copy: what the history would take
    without deduplication and packing. ``unreadable_sessions`` counts the session refs that do
    not hold a commit id (rewind check names them): their entries are not counted.
    ``by_source`` counts the file records of turns by how rewind learnt of the change: an edit
    tool, the shell quicksave, the watcher outside any call, a program of a shell call."""

    __slots__ = (
        "by_source",
        "entries",
        "file_records",
        "paths",
        "recorded_bytes",
        "sessions",
        "unreadable_sessions",
    )

    def __init__(self) -> None:
        self.sessions = 0
        self.unreadable_sessions = 0
        self.entries = {TURN: 0, RESTORE: 0, UNDO: 0, REDO: 0, DAMAGED: 0}
        self.file_records = 0
        self.by_source = dict.fromkeys(SOURCES, 0)
        self.paths = 0
        self.recorded_bytes = 0

    @property
    def entry_count(self) -> int:
        return sum(self.entries.values())


def tally(store: Store) -> Tally:
    counted = Tally()
    damaged: list[DamagedRef] = []
    sessions = list_sessions(store, damaged)
    counted.sessions = len(sessions)
    counted.unreadable_sessions = len(damaged)
    paths: set[bytes] = set()
    with EntryIndex(store) as index:
        for summary in sessions:  # one session's entries in memory at a time
            for entry in index.entries(summary.head):
                counted.entries[entry.kind] = counted.entries.get(entry.kind, 0) + 1
                counted.file_records += len(entry.files)
                for change in entry.files:
                    paths.add(change.path)
                    if entry.kind == TURN:
                        counted.by_source[change.source] = (
                            counted.by_source.get(change.source, 0) + 1
                        )
                    for state in (change.before, change.after):
                        if state is not None and state.oid is not None:
                            counted.recorded_bytes += state.size
    counted.paths = len(paths)
    return counted
