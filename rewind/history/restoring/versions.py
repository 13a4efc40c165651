"""One version of one file, named the way ``rewind history`` lists them, and restoring it.

A version is written ``ENTRYID`` (the file as that entry left it: its after-state) or
``ENTRYID^`` (the file just before that entry touched it: its before-state). ``ENTRYID`` is an
entry's 12-character id, or a unique prefix of it, looked up in every session of the project.

The version is looked up in the file's story
(:func:`rewind.history.insight.file_history.file_versions`),
so renames are followed: a version ``rewind history P`` lists, recorded under an earlier name of
``P``, is restored *at* ``P``, the name the file has now. An entry that touched the file without
making a version of its own (its before-state equals the version before it) still names that
state, as its changes record it.

Restoring a version is an ordinary restore recorded in the current session: the plan has one
file whose target is that state, and it is a conflict when the file on disk is not what rewind
last recorded of it (in any session), so work rewind has not seen is never overwritten
silently; the restore engine (:mod:`rewind.history.restoring.restore`) does the rest.
"""

from __future__ import annotations

import os
import re

from rewind.errors import UserError
from rewind.history.entry import RESTORE, Entry, FileChange
from rewind.history.filestate import UNKNOWN, FileState, capture
from rewind.history.insight.file_history import Version, file_versions
from rewind.history.lookup import entry_in_project, newest_changes
from rewind.history.restoring.restore_plan import PlannedFile, RestorePlan, unwritable
from rewind.store.repository import Store

BEFORE_MARK = "^"
_VERSION = re.compile(r"([0-9a-fA-F]{4,40})(\^?)")


def describe(version: Version) -> str:
    """``before turn 3 of session s`` / ``after turn 3 of session s``, for people."""
    side = "after" if version.after else "before"
    entry = version.entry
    return f"{side} {entry.kind} {entry.number} of session {entry.session}"


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
    """The version ``text`` (``ID`` or ``ID^``) of ``path``, from any session of the project,
    under ``path`` or one of the names it had before a rename."""
    prefix, before = parse_version(text)
    entry = entry_in_project(store, prefix)
    shown = store.root.display(path)
    if entry is None:
        raise UserError(
            f"no entry of this project has an id starting with {prefix!r}; "
            f"'rewind history {shown}' lists the versions of {shown}."
        )
    versions = file_versions(store, path, count_lines=False)
    for version in versions:
        if version.entry.id == entry.id and version.after != before:
            return version
    change = _change_of(entry, path, versions)
    if change is None:
        raise UserError(
            f"{entry.kind} {entry.number} of session {entry.session} ({entry.id}) did not "
            f"change {shown}; 'rewind history {shown}' lists its versions."
        )
    state = change.before if before else change.after
    if state is None:
        raise UserError(
            f"{entry.kind} {entry.number} of session {entry.session} is still open, so {shown} "
            f"as it leaves it is not recorded yet; end the turn first, or give {entry.id}^."
        )
    # A state that is no version of its own (the same as the one before it): as recorded.
    return Version(change.path, entry, not before, change.source, change.at, state)


def _change_of(entry: Entry, path: bytes, versions: list[Version]) -> FileChange | None:
    """What ``entry`` recorded of the file: under ``path``, else under an earlier name."""
    for name in dict.fromkeys([path, *(version.path for version in versions)]):
        change = entry.file(name)
        if change is not None:
            return change
    return None


class VersionPlan(RestorePlan):
    """A restore of one file (``path``, its name now) to one version."""

    __slots__ = ("path", "version")

    def __init__(self, session: str, version: Version, planned: PlannedFile) -> None:
        super().__init__(RESTORE, session, version.entry, [planned])
        self.version = version
        self.path = planned.path

    def _was(self) -> str:
        if self.version.path == self.path:
            return ""
        return f", then named {os.fsdecode(self.version.path)}"

    def title(self) -> str:
        return (
            f"restore {os.fsdecode(self.path)} to version {self.version.id} "
            f"({describe(self.version)}{self._was()})"
        )

    def prompt(self) -> str:
        return f"restore {os.fsdecode(self.path)} to version {self.version.id}"

    def entry_target(self) -> dict[str, object]:
        return {
            "entry": self.version.entry.id,
            "number": self.version.entry.number,
            "session": self.version.entry.session,
            "version": self.version.id,
            "path": os.fsdecode(self.path),
        }

    def review_hint(self) -> str:
        return f"rewind history {os.fsdecode(self.path)}"


def plan_version(
    store: Store, session: str, version: Version, path: bytes | None = None
) -> VersionPlan:
    """The plan that writes ``version`` at ``path`` (the file's name now; by default the name
    the version had), recorded in ``session`` (whose open turn the caller has closed). The
    file is a conflict when it differs from what rewind last recorded of it."""
    path = version.path if path is None else path
    blocked_by = store.root.why_not_writable(path)
    # Never read through a folder that leads out of the project.
    current = (
        FileState(UNKNOWN)
        if blocked_by
        else capture(store.root.absolute(path), store.config.max_file_size)
    )
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
    planned.unwritable = unwritable(store, path, version.state)
    planned.blocked_by = blocked_by
    return VersionPlan(session, version, planned)
