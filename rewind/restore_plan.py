"""What a restore or an undo would do, file by file, before anything is written.

Restoring to turn k puts every path touched in entries k..last back to the state it had just
before its first touch at or after k. A path whose current state is not the last state this
session recorded for it was changed by someone else since: a conflict.
"""

from __future__ import annotations

import os

from rewind.checkpoint import checkpoint_states, latest_states
from rewind.entry import RESTORE, UNDO, Entry
from rewind.errors import UserError
from rewind.filestate import (
    ABSENT,
    DIRECTORY,
    SPECIAL,
    UNKNOWN,
    UNREADABLE,
    FileState,
    capture,
)
from rewind.store import Store

RESTORE_FILE = "restore"
DELETE = "delete"
RECREATE = "recreate"
UNCHANGED = "unchanged"
CANNOT = "cannot"
# What a path may hold now that a restore leaves alone: replacing a directory or a device is never
# right, and content that cannot be read could not be saved for undo.
NEVER_REPLACED = frozenset({DIRECTORY, SPECIAL, UNREADABLE})


class PlannedFile:
    """One path of a plan: what it will become, what rewind last saw, and what is there now."""

    __slots__ = ("current", "expected", "path", "target")

    def __init__(
        self, path: bytes, target: FileState, expected: FileState, current: FileState
    ) -> None:
        self.path = path
        self.target = target
        self.expected = expected
        self.current = current

    @property
    def action(self) -> str:
        if self.current.same_as(self.target):
            return UNCHANGED
        if not self.target.restorable or self.current.kind in NEVER_REPLACED:
            return CANNOT
        if self.target.kind == ABSENT:
            return DELETE
        if self.current.kind == ABSENT:
            return RECREATE
        return RESTORE_FILE

    @property
    def conflict(self) -> bool:
        """Changed since rewind last recorded it: a restore would overwrite unseen work."""
        return self.action != UNCHANGED and not self.current.same_as(self.expected)

    def reason(self) -> str:
        if self.action == CANNOT:
            if self.current.kind == UNREADABLE:
                return "it cannot be read now, so it could not be saved for undo; not replaced"
            if self.current.kind in NEVER_REPLACED:
                return f"it is now a {self.current.kind}, which rewind never replaces"
            return f"its earlier state was not recorded ({self.target.kind})"
        if self.conflict:
            return "changed since rewind last recorded it"
        return ""


class RestorePlan:
    __slots__ = ("files", "kind", "session", "subject")

    def __init__(self, kind: str, session: str, subject: Entry, files: list[PlannedFile]) -> None:
        self.kind = kind  # RESTORE or UNDO
        self.session = session
        self.subject = subject  # the entry restored to, or the restore being undone
        self.files = files

    @property
    def changes(self) -> list[PlannedFile]:
        return [f for f in self.files if f.action not in (UNCHANGED, CANNOT)]

    @property
    def conflicts(self) -> list[PlannedFile]:
        return [f for f in self.files if f.conflict and f.action != CANNOT]

    @property
    def blocked(self) -> list[PlannedFile]:
        return [f for f in self.files if f.action == CANNOT]

    def title(self) -> str:
        if self.kind == UNDO:
            return f"undo {self.subject.kind} {self.subject.number} of session {self.session}"
        return f"restore session {self.session} to before turn {self.subject.number}"


def plan_restore(
    store: Store, entries: list[Entry], to: Entry, only: list[bytes] | None = None
) -> RestorePlan:
    targets = checkpoint_states(entries, entries.index(to))
    if only is not None:
        missing = [path for path in only if path not in targets]
        if missing:
            raise UserError(
                f"{os.fsdecode(missing[0])} was not changed in turns {to.number}.."
                f"{entries[-1].number}; 'rewind log' shows which files each turn touched."
            )
        targets = {path: targets[path] for path in dict.fromkeys(only)}
    return RestorePlan(RESTORE, to.session, to, _planned(store, targets, latest_states(entries)))


def plan_undo(store: Store, entries: list[Entry]) -> RestorePlan:
    for entry in reversed(entries):
        if entry.kind in (RESTORE, UNDO):
            break
    else:
        raise UserError("there is no restore to undo in this session; 'rewind log' shows it.")
    targets = {change.path: change.before or FileState(UNKNOWN) for change in entry.files}
    expected = {change.path: change.after or FileState(UNKNOWN) for change in entry.files}
    return RestorePlan(UNDO, entry.session, entry, _planned(store, targets, expected))


def _planned(
    store: Store, targets: dict[bytes, FileState], expected: dict[bytes, FileState]
) -> list[PlannedFile]:
    limit = store.config.max_file_size
    return [
        PlannedFile(
            path,
            target,
            expected.get(path, FileState(UNKNOWN)),
            capture(store.root.absolute(path), limit),
        )
        for path, target in targets.items()
    ]
