"""What a restore or an undo would do, file by file, before anything is written.

Restoring to turn k puts every path touched in entries k..last back to the state it had just
before its first touch at or after k. A path whose current state is not the last state this
session recorded for it was changed by someone else since: a conflict.
"""

from __future__ import annotations

import os

from rewind.errors import StoreError, UserError
from rewind.history.checkpoint import checkpoint_states, latest_states
from rewind.history.entry import REDO, RESTORE, UNDO, Entry, FileChange
from rewind.history.filestate import (
    ABSENT,
    DIRECTORY,
    LINK,
    SPECIAL,
    UNKNOWN,
    UNREADABLE,
    FileState,
    capture,
)
from rewind.history.lookup import changes_by_other_sessions
from rewind.history.restoring.undo_stack import damaged_from, undo_stack
from rewind.history.session import SessionHead
from rewind.history.sessions import refuse_damaged
from rewind.store.limits import why_bad_link_size, why_unwritable
from rewind.store.repository import Store

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

    __slots__ = (
        "blocked_by",
        "changed_by",
        "content",
        "current",
        "expected",
        "outside_in",
        "path",
        "target",
        "unwritable",
    )

    def __init__(
        self,
        path: bytes,
        target: FileState,
        expected: FileState,
        current: FileState,
        changed_by: str | None = None,
        outside_in: int | None = None,
    ) -> None:
        self.path = path
        self.target = target
        self.expected = expected
        self.current = current
        # Another session that changed the file after this one last recorded it.
        self.changed_by = changed_by
        # The number of the last entry, after the one restored to, that kept a change made
        # outside any agent's turn (by hand, another editor): undoing it needs --force too.
        self.outside_in = outside_in
        # The content to write when the target is not in the store yet (a partial rewind's
        # merge): the restore stores it, and sets the target's oid, when it is carried out.
        self.content: bytes | None = None
        # Why this system cannot write the target ("" when it can: rewind.store.limits).
        self.unwritable = ""
        # Why rewind may not write the path now ("" when it may: rewind.store.root): a folder
        # on its way that leads out of the project. Nothing is read through it either.
        self.blocked_by = ""

    @property
    def action(self) -> str:
        if self.current.same_as(self.target):
            return UNCHANGED
        if self.blocked_by or self.unwritable or not self.target.restorable:
            return CANNOT
        if self.current.kind in NEVER_REPLACED:
            return CANNOT
        if self.target.kind == ABSENT:
            return DELETE
        if self.current.kind == ABSENT:
            return RECREATE
        return RESTORE_FILE

    @property
    def conflict(self) -> bool:
        """Changed since rewind last recorded it: a restore would overwrite unseen work."""
        if self.action == UNCHANGED:
            return False
        if self.changed_by is not None or self.outside_in is not None:
            return True
        return not self.current.same_as(self.expected)

    def reason(self) -> str:
        if self.action == CANNOT:
            if self.blocked_by:
                return f"rewind never writes it: it {self.blocked_by}"
            if self.unwritable:
                return f"this system cannot write it back: {self.unwritable}"
            if self.current.kind == UNREADABLE:
                return "it cannot be read now, so it could not be saved for undo; not replaced"
            if self.current.kind in NEVER_REPLACED:
                return f"it is now a {self.current.kind}, which rewind never replaces"
            if self.target.kind == UNKNOWN:
                return "no state from before its change was recorded: not rewindable"
            return f"its earlier state was not recorded ({self.target.kind})"
        if self.conflict and self.changed_by is not None:
            return f"changed by session {self.changed_by} since this session recorded it"
        if self.conflict and not self.current.same_as(self.expected):
            return "changed outside rewind since it last recorded it"
        if self.conflict and self.outside_in is not None:
            return f"changed outside the agent, kept as entry {self.outside_in}"
        return ""


class RestorePlan:
    """What a restore (or undo) will write, file by file. The engine
    (:func:`rewind.history.restoring.restore.apply_plan`) takes any plan: the kinds of restore
    differ only in how their targets are chosen (:mod:`rewind.history.restoring.versions` and
    :mod:`rewind.history.restoring.partial` subclass it) and in how the entry describes them."""

    __slots__ = ("files", "kind", "restore", "session", "subject")

    def __init__(self, kind: str, session: str, subject: Entry, files: list[PlannedFile]) -> None:
        self.kind = kind  # RESTORE, UNDO or REDO
        self.session = session
        # The entry restored to; for an undo, the restore (or redo) it reverses; for a redo,
        # the undo it reverses.
        self.subject = subject
        self.restore = subject  # for an undo or a redo: the restore it takes back or puts back
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
        if self.kind != RESTORE:
            return f"{self.prompt()} of session {self.session}"
        return f"restore session {self.session} to before turn {self.subject.number}"

    def prompt(self) -> str:
        """The description the restore entry gets (``rewind log`` shows it): an undo or a redo
        names the restore it takes back or puts back."""
        if self.kind != RESTORE:
            return f"{self.kind} {self.restore.kind} {self.restore.number}"
        return f"restore to before turn {self.subject.number}"

    def entry_target(self) -> dict[str, object]:
        """What the restore entry records it went back to (its ``target``)."""
        return {"entry": self.subject.id, "number": self.subject.number}

    def review_hint(self) -> str:
        """The command that shows what a conflict would overwrite."""
        return f"rewind diff {self.subject.number}"


def plan_restore(
    store: Store, entries: list[Entry], to: Entry, only: list[bytes] | None = None
) -> RestorePlan:
    refuse_damaged(store, entries, entries.index(to), f"restoring to before turn {to.number}")
    targets = checkpoint_states(entries, entries.index(to))
    if only is not None:
        missing = [path for path in only if path not in targets]
        if missing:
            raise UserError(
                f"{os.fsdecode(missing[0])} was not changed in turns {to.number}.."
                f"{entries[-1].number}; 'rewind log' shows which files each turn touched."
            )
        targets = {path: targets[path] for path in dict.fromkeys(only)}
    recorded_at = {c.path: c.at for entry in entries for c in entry.files}
    planned = _planned(store, targets, latest_states(entries), to.session, recorded_at)
    outside = _changed_outside_agent(entries[entries.index(to) + 1 :])
    for item in planned:
        item.outside_in = outside.get(item.path)
    return RestorePlan(RESTORE, to.session, to, planned)


def _changed_outside_agent(entries: list[Entry]) -> dict[bytes, int]:
    """Paths changed outside any agent's turn in ``entries``, with the last such entry."""
    found = {}
    for entry in entries:
        if entry.is_outside_agent:
            for change in entry.files:
                found[change.path] = entry.number
    return found


def plan_undo(store: Store, head: SessionHead) -> RestorePlan:
    """Takes back the session's newest restore still in effect (rewind.history.restoring.
    undo_stack): the newest restore, then, undo after undo, the ones before it."""
    stack = undo_stack(store, head)
    entry = stack.next_undo()
    _refuse_damaged(store, head, entry, "undo")
    if entry is None:
        undone = stack.next_redo()
        if undone is not None:
            restore = stack.restore_of(undone)
            raise UserError(
                f"nothing left to undo in session {head.session_id}: its restores are all "
                f"undone; 'rewind redo' puts {restore.kind} {restore.number} back."
            )
        raise UserError("there is no restore to undo in this session; 'rewind log' shows it.")
    return _reversal(store, UNDO, entry, stack.restore_of(entry))


def plan_redo(store: Store, head: SessionHead) -> RestorePlan:
    """Puts back the restore the session's newest undo took back (the last undone first), as
    long as nothing else was done in the session since (rewind.history.restoring.undo_stack)."""
    stack = undo_stack(store, head)
    undo = stack.next_redo()
    _refuse_damaged(store, head, undo, "redo")
    if undo is None:
        raise UserError(
            f"there is nothing to redo in session {head.session_id}: an undo can be redone "
            "until something else happens in the session, and none is left ('rewind undo' "
            "takes a restore back)."
        )
    return _reversal(store, REDO, undo, stack.restore_of(undo))


def _refuse_damaged(store: Store, head: SessionHead, entry: Entry | None, action: str) -> None:
    """Refuses ``action`` when a damaged entry lies at or after ``entry`` (anywhere when there
    is none): its kind is unknown, and it may be the restore or undo to reverse."""
    damaged = damaged_from(store, head, entry.number if entry is not None else -(2**62))
    if damaged:
        numbers = ", ".join(str(number) for number in damaged)
        what = f"{action} of {entry.kind} {entry.number}" if entry is not None else action
        raise StoreError(
            f"{what} would cross damaged entr{'y' if len(damaged) == 1 else 'ies'} {numbers} "
            f"of session {head.session_id}, whose changes cannot be read, so nothing was done; "
            f"restore a turn instead ('{store.check_command}' lists what is damaged)."
        )


def _reversal(store: Store, kind: str, entry: Entry, restore: Entry) -> RestorePlan:
    """The plan that puts every file ``entry`` wrote back as it was just before."""
    targets = {change.path: change.before or FileState(UNKNOWN) for change in entry.files}
    expected = {change.path: change.after or FileState(UNKNOWN) for change in entry.files}
    recorded_at = {change.path: change.at for change in entry.files}
    planned = _planned(store, targets, expected, entry.session, recorded_at)
    plan = RestorePlan(kind, entry.session, entry, planned)
    plan.restore = restore
    return plan


def _planned(
    store: Store,
    targets: dict[bytes, FileState],
    expected: dict[bytes, FileState],
    session: str,
    recorded_at: dict[bytes, float],
) -> list[PlannedFile]:
    """Each target with what is on disk now and, when another session changed the file since
    this one last recorded it, that session (its work must not be overwritten silently)."""
    limit = store.config.max_file_size
    others = changes_by_other_sessions(store, session, set(targets))
    planned = []
    for path, target in targets.items():
        blocked_by = store.root.why_not_writable(path)
        # Never read through a folder that leads out of the project.
        current = FileState(UNKNOWN) if blocked_by else capture(store.root.absolute(path), limit)
        changed_by = None
        if path in others:
            other_session, change = others[path]
            if change.at > recorded_at.get(path, 0.0) and _is_a_change(change, current):
                changed_by = other_session
        last_seen = expected.get(path, FileState(UNKNOWN))
        item = PlannedFile(path, target, last_seen, current, changed_by)
        item.unwritable = unwritable(store, path, target)
        item.blocked_by = blocked_by
        planned.append(item)
    return planned


def unwritable(store: Store, path: bytes, target: FileState) -> str:
    """Why this system could never write ``target`` at ``path`` ("" when it can): a path too
    long for it, or a symlink target of a length no symlink can have. (A target holding a NUL
    byte is found when the content is read: rewind.history.restoring.restore.)"""
    if target.kind == ABSENT or not target.restorable:
        return ""
    reason = why_unwritable(store.root.path, path)
    if not reason and target.kind == LINK:
        reason = why_bad_link_size(target.size)
    return reason


def _is_a_change(change: FileChange, current: FileState) -> bool:
    """Whether a recorded change altered the file (an open turn's: whether it differs now)."""
    if change.before is None:
        return True
    after = change.after if change.after is not None else current
    return not after.same_as(change.before)
