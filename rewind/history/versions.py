"""One version of one file, named the way ``rewind history`` lists them, and restoring it.

A version is written ``ENTRYID`` (the file as that entry left it: its after-state) or
``ENTRYID^`` (the file just before that entry touched it: its before-state). ``ENTRYID`` is an
entry's 12-character id, or a unique prefix of it, looked up in every session of the project.

Restoring a version is an ordinary restore recorded in the current session: the plan has one
file whose target is that state, and it is a conflict when the file on disk is not what rewind
last recorded of it (in any session), so work rewind has not seen is never overwritten
silently; the restore engine (:mod:`rewind.history.restore`) does the rest.
"""

from __future__ import annotations

import os
import re

from rewind.errors import UserError
from rewind.history.entry import RESTORE, Entry, FileChange
from rewind.history.filestate import UNKNOWN, FileState, capture
from rewind.history.lookup import entry_in_project, newest_changes
from rewind.history.restore_plan import PlannedFile, RestorePlan
from rewind.store.repository import Store

BEFORE_MARK = "^"
_VERSION = re.compile(r"([0-9a-fA-F]{4,40})(\^?)")


class Version:
    """The state of ``path`` as entry ``entry`` left it, or just before it touched it."""

    __slots__ = ("before", "change", "entry", "path")

    def __init__(self, entry: Entry, change: FileChange, before: bool) -> None:
        self.entry = entry
        self.change = change
        self.path = change.path
        self.before = before

    @property
    def name(self) -> str:
        """The version's name: the entry's whole id, with ``^`` for the before-state."""
        return self.entry.id + (BEFORE_MARK if self.before else "")

    @property
    def state(self) -> FileState:
        state = self.change.before if self.before else self.change.after
        return state if state is not None else FileState(UNKNOWN)

    def describe(self) -> str:
        """``before turn 3 of session s`` / ``after turn 3 of session s``, for people."""
        side = "before" if self.before else "after"
        return f"{side} {self.entry.kind} {self.entry.number} of session {self.entry.session}"

    def to_json(self) -> dict[str, object]:
        return {
            "version": self.name,
            "entry": self.entry.id,
            "session": self.entry.session,
            "number": self.entry.number,
            "kind": self.entry.kind,
            "side": "before" if self.before else "after",
            "path": os.fsdecode(self.path),
            "state": self.state.to_json(),
        }


def parse_version(text: str) -> tuple[str, bool]:
    """``ID`` or ``ID^`` as (the id or prefix, whether it names the before-state)."""
    match = _VERSION.fullmatch(text.strip())
    if match is None:
        raise UserError(
            f"{text!r} is not a version: give an entry id from 'rewind log' (or its first 4 "
            "characters or more), with ^ after it for the file as it was before that entry."
        )
    return match.group(1).lower(), bool(match.group(2))


def find_version(store: Store, path: bytes, text: str) -> Version:
    """The version ``text`` (``ID`` or ``ID^``) of ``path``, from any session of the project."""
    prefix, before = parse_version(text)
    entry = entry_in_project(store, prefix)
    shown = store.root.display(path)
    if entry is None:
        raise UserError(
            f"no entry of this project has an id starting with {prefix!r}; "
            f"'rewind log --path {shown}' lists the entries that changed {shown}."
        )
    change = entry.file(path)
    if change is None:
        raise UserError(
            f"{entry.kind} {entry.number} of session {entry.session} ({entry.id}) did not "
            f"change {shown}; 'rewind log --path {shown}' lists the entries that did."
        )
    if not before and change.after is None:
        raise UserError(
            f"{entry.kind} {entry.number} of session {entry.session} is still open, so {shown} "
            f"as it leaves it is not recorded yet; end the turn first, or give {entry.id}^."
        )
    return Version(entry, change, before)


class VersionPlan(RestorePlan):
    """A restore of one file to one version."""

    __slots__ = ("version",)

    def __init__(self, session: str, version: Version, planned: PlannedFile) -> None:
        super().__init__(RESTORE, session, version.entry, [planned])
        self.version = version

    def title(self) -> str:
        return (
            f"restore {os.fsdecode(self.version.path)} to version {self.version.name} "
            f"({self.version.describe()})"
        )

    def prompt(self) -> str:
        return f"restore {os.fsdecode(self.version.path)} to version {self.version.name}"

    def entry_target(self) -> dict[str, object]:
        return {
            "entry": self.version.entry.id,
            "number": self.version.entry.number,
            "session": self.version.entry.session,
            "version": self.version.name,
            "path": os.fsdecode(self.version.path),
        }

    def review_hint(self) -> str:
        return f"rewind log --path {os.fsdecode(self.version.path)}"


def plan_version(store: Store, session: str, version: Version) -> VersionPlan:
    """The plan that puts ``version`` back, recorded in ``session`` (whose open turn the caller
    has closed). The file is a conflict when it differs from what rewind last recorded of it."""
    path = version.path
    current = capture(store.root.absolute(path), store.config.max_file_size)
    newest = newest_changes(store, {path}).get(path)
    expected = FileState(UNKNOWN)
    changed_by = None
    if newest is not None:
        owner, change = newest
        latest = change.latest
        expected = latest if latest is not None else expected
        if (
            change.after is None
            and change.before is not None
            and not current.same_as(change.before)
        ):
            changed_by = owner  # its turn is open and has changed the file
    planned = PlannedFile(path, version.state, expected, current, changed_by)
    return VersionPlan(session, version, planned)
