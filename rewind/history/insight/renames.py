"""Renames within one entry: a file the entry created with the name it was moved from
(``moved_from``, which the quicksave reads from ``mv`` and the API's moves), where the entry
deleted that old name. The TUI's file list and ``rewind log`` show such a pair as one rename,
diffed from the old name's content."""

from __future__ import annotations

from rewind.history.entry import Entry, FileChange
from rewind.history.filestate import ABSENT


def renamed_in(entry: Entry) -> dict[bytes, bytes]:
    """The renames of ``entry``: new path -> old path."""
    found = {}
    for change in entry.files:
        old = change.moved_from
        if old is None or old == change.path or change.after is None:
            continue
        gone = entry.file(old)
        if gone is not None and gone.after is not None and gone.after.kind == ABSENT:
            found[change.path] = old
    return found


def renamed_change(entry: Entry, change: FileChange, old: bytes) -> FileChange:
    """The rename as one change: the old name's state before, the new name's after."""
    gone = entry.file(old)
    assert gone is not None
    return FileChange(change.path, gone.before, change.after, change.at, change.source, old)
