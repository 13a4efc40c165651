"""Reading a session's whole history, and the sessions of a project."""

from __future__ import annotations

import os

from rewind.entry import Entry, FileChange
from rewind.errors import UserError
from rewind.session import SessionHead, label_ref_prefix, merge_journal, recent_session
from rewind.store import SESSIONS_REF_PREFIX, DamagedRef, Store


def read_entries(store: Store, head: SessionHead) -> list[Entry]:
    """Every entry of the session, oldest first (the newest comes from the head's cache)."""
    if head.current is None:
        return []
    entries = [head.current]
    commit = head.parent
    while commit:
        entry, commit = store.read_entry(commit)
        entries.append(entry)
    entries.reverse()
    return entries


def read_entries_with_commits(store: Store, head: SessionHead) -> list[tuple[Entry, str]]:
    """Every entry of the session with the commit that records it, oldest first."""
    if head.current is None or head.tip is None:
        return []
    pairs = [(head.current, head.tip)]
    commit = head.parent
    while commit:
        entry, parent = store.read_entry(commit)
        pairs.append((entry, commit))
        commit = parent
    pairs.reverse()
    return pairs


def labels_of(store: Store, session_id: str) -> dict[str, list[str]]:
    """The labels given with 'rewind label', by entry id (each entry's names sorted)."""
    prefix = label_ref_prefix(session_id)
    found: dict[str, list[str]] = {}
    for ref in store.ref_names(prefix):
        commit = store.read_ref(ref)
        if commit is None:
            continue
        entry, _ = store.read_entry(commit)
        found.setdefault(entry.id, []).append(ref[len(prefix) :])
    return found


def all_labels(entry: Entry, attached: dict[str, list[str]]) -> list[str]:
    """The labels given at 'rewind begin --label', then those attached later (no repeats)."""
    later = [name for name in attached.get(entry.id, ()) if name not in entry.labels]
    return entry.labels + later


def find_entry(entries: list[Entry], wanted: str) -> Entry:
    """An entry by number (``3``) or by id or a unique prefix of it (``a1b2c3``)."""
    if not entries:
        raise UserError("this session has no turns yet.")
    if wanted.isdigit() and len(wanted) < 7:
        number = int(wanted)
        for entry in entries:
            if entry.number == number:
                return entry
    else:
        matches = [entry for entry in entries if entry.id.startswith(wanted.lower())]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise UserError(f"{wanted!r} matches {len(matches)} turns; give more of the id.")
    first, last = entries[0].number, entries[-1].number
    raise UserError(
        f"there is no turn {wanted!r} in session {entries[0].session}; "
        f"turns go from {first} to {last} ('rewind log' lists them)."
    )


def changes_by_other_sessions(
    store: Store, session: str, paths: set[bytes]
) -> dict[bytes, tuple[str, FileChange]]:
    """For each path, the newest change any other session of the project recorded for it."""
    newest: dict[bytes, tuple[str, FileChange]] = {}
    for summary in list_sessions(store):
        if summary.head.session_id == session:
            continue
        for entry in read_entries(store, summary.head):
            for change in entry.files:
                if change.path in paths and (
                    change.path not in newest or change.at > newest[change.path][1].at
                ):
                    newest[change.path] = (entry.session, change)
    return newest


class SessionSummary:
    __slots__ = ("head", "is_recent", "mtime")

    def __init__(self, head: SessionHead, mtime: float, is_recent: bool) -> None:
        self.head = head
        self.mtime = mtime
        self.is_recent = is_recent


def list_sessions(store: Store, damaged: list[DamagedRef] | None = None) -> list[SessionSummary]:
    """The project's sessions, the least recently active first.

    A session whose ref is damaged raises :class:`DamagedRef`, or, given a ``damaged`` list,
    is left out and its error added to it.
    """
    recent = recent_session(store)
    summaries = []
    for ref in store.ref_names(SESSIONS_REF_PREFIX):
        try:
            tip = store.read_ref(ref)
        except DamagedRef as error:
            if damaged is None:
                raise
            damaged.append(error)
            continue
        if tip is None:
            continue
        entry, parent = store.read_entry(tip)
        head = SessionHead(entry.session, ref, tip, parent, entry)
        merge_journal(store, head)  # the open turn's records so far
        try:
            mtime = os.stat(os.path.join(store.git_dir, ref)).st_mtime
        except FileNotFoundError:
            mtime = entry.ended or entry.started
        summaries.append(SessionSummary(head, mtime, entry.session == recent))
    summaries.sort(key=lambda summary: summary.mtime)
    return summaries
