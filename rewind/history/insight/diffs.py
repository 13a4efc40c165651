"""Unified diffs and +/- line counts between recorded states (made by libgit2, through
:mod:`rewind.store.line_diffs`)."""

from __future__ import annotations

import os

from rewind.history.entry import Entry
from rewind.history.filestate import (
    ABSENT,
    FILE,
    LINK,
    NOT_SHARED,
    UNKNOWN,
    FileState,
    capture,
)
from rewind.store.line_diffs import unified_diff
from rewind.store.repository import Store

ADDED = "added"
DELETED = "deleted"
MODIFIED = "modified"
MODE = "mode"
UNCHANGED = "unchanged"
PENDING = "pending"  # the turn is open: its after-state is not recorded yet
NO_PRE_IMAGE = "no-pre-image"
# A state of a fetched session whose content its machine kept to itself
# (rewind.history.remote.export).
NOT_SHARED_DIFF = "not-shared"


class FileDiff:
    """How one path differs between two states."""

    __slots__ = ("added", "binary", "new", "old", "path", "removed", "text")

    def __init__(self, path: bytes, old: FileState | None, new: FileState | None) -> None:
        self.path = path
        self.old = old
        self.new = new
        self.added = 0
        self.removed = 0
        self.binary = False
        self.text = ""

    @property
    def status(self) -> str:
        old, new = self.old, self.new
        if new is None:
            return PENDING
        if old is None or old.kind == UNKNOWN:
            return NO_PRE_IMAGE
        if NOT_SHARED in (old.kind, new.kind):
            return NOT_SHARED_DIFF
        if old.kind == ABSENT:
            return UNCHANGED if new.kind == ABSENT else ADDED
        if new.kind == ABSENT:
            return DELETED
        if old.same_as(new):
            return UNCHANGED
        if old.kind == new.kind == FILE and old.xxh == new.xxh:
            return MODE
        return MODIFIED


def _content(store: Store, state: FileState | None) -> bytes | None:
    if state is None or state.oid is None or state.kind not in (FILE, LINK):
        return None
    return store.reader.read_blob(state.oid)


def diff_states(
    store: Store,
    path: bytes,
    old: FileState | None,
    new: FileState | None,
    with_text: bool = True,
    new_data: bytes | None = None,
) -> FileDiff:
    """Line counts (and, with ``with_text``, the unified diff) from ``old`` to ``new``."""
    result = FileDiff(path, old, new)
    if result.status in (UNCHANGED, PENDING, NO_PRE_IMAGE, NOT_SHARED_DIFF):
        return result
    name = path.decode("utf-8", "backslashreplace")  # pygit2 cannot encode lone surrogates
    before = _content(store, old)
    after = new_data if new_data is not None else _content(store, new)
    diff = unified_diff(before, after, name, with_text)
    result.added, result.removed, result.binary = diff.added, diff.removed, diff.binary
    if with_text:
        result.text = _with_modes(name, diff.text, old, new)
    return result


def _with_modes(name: str, text: str, old: FileState | None, new: FileState | None) -> str:
    """``text`` with the recorded modes: libgit2 diffs contents, not files, and calls every
    created or deleted file 100644."""
    if old is None or new is None:
        return text
    if ABSENT in (old.kind, new.kind):
        side, header = (
            (new, "new file mode ") if old.kind == ABSENT else (old, "deleted file mode ")
        )
        if side.kind == ABSENT:
            return text
        return text.replace(f"\n{header}100644\n", f"\n{header}{side.git_mode:o}\n", 1)
    if old.git_mode == new.git_mode and (old.mode & 0o777) == (new.mode & 0o777):
        return text
    header = (
        f"old mode {old.git_mode:o} ({old.mode & 0o7777:o})\n"
        f"new mode {new.git_mode:o} ({new.mode & 0o7777:o})\n"
    )
    first, _, rest = text.partition("\n")
    return f"{first}\n{header}{rest}" if text else f"diff --git a/{name} b/{name}\n{header}"


def diff_to_disk(store: Store, path: bytes, old: FileState) -> FileDiff:
    """From a recorded state to what is on disk now."""
    absolute = store.root.absolute(path)
    now = capture(absolute, store.config.max_file_size)
    data = None
    if now.kind == FILE:
        with open(absolute, "rb") as handle:
            data = handle.read()
    elif now.kind == LINK:
        data = os.readlink(absolute)
    return diff_states(store, path, old, now, new_data=data)


def entry_diffs(store: Store, entry: Entry, with_text: bool = False) -> list[FileDiff]:
    """What each file of ``entry`` changed, in the entry's order."""
    return [
        diff_states(store, change.path, change.before, change.after, with_text=with_text)
        for change in entry.files
    ]
