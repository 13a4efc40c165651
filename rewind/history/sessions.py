"""Reading a session's whole history, and the sessions of a project."""

from __future__ import annotations

import os

from rewind.errors import DamagedEntry, StoreError, UserError
from rewind.history import commits
from rewind.history.entry import Entry, damaged_entry, valid_text
from rewind.history.session import (
    SessionHead,
    labels_folder,
    merge_journal,
    new_session_id,
    recent_session,
    ref_leaf,
)
from rewind.store.objects import WrongKind
from rewind.store.repository import DamagedRef, Store


def read_entries(store: Store, head: SessionHead) -> list[Entry]:
    """Every entry of the session, oldest first (the newest comes from the head's cache).

    An entry that cannot be read is given as a stand-in of kind DAMAGED (see entry.py): it
    hides nothing that follows it, and :func:`refuse_damaged` keeps restores from crossing it.
    """
    return [entry for entry, _ in read_entries_with_commits(store, head)]


def read_entries_with_commits(store: Store, head: SessionHead) -> list[tuple[Entry, str]]:
    """Every entry of the session with the commit that records it, oldest first."""
    if head.current is None:
        return []
    pairs = [(head.current, head.tip or "")]
    commit = head.parent
    while commit:
        entry, parent = read_entry(store, commit, head.session_id)
        pairs.append((entry, commit))
        commit = parent
    pairs.reverse()
    number_damaged([entry for entry, _ in pairs])
    return pairs


def read_entry(store: Store, commit: str, session: str) -> tuple[Entry, str | None]:
    """The entry of ``commit`` and its parent; a stand-in (numbered 0) when it is damaged."""
    try:
        return commits.read_entry(store, commit, session)
    except DamagedEntry as damage:
        return damaged_entry(session, commit, damage.reason), damage.parent


def number_damaged(entries: list[Entry]) -> None:
    """Numbers the stand-ins of damaged entries after their neighbours (entries are numbered
    one by one in a session), oldest first."""
    intact = [index for index, entry in enumerate(entries) if not entry.is_damaged]
    if not intact:
        for index, entry in enumerate(entries):
            entry.number = index + 1
        return
    first = intact[0]
    for index in range(first - 1, -1, -1):
        entries[index].number = entries[index + 1].number - 1
    for index in range(first + 1, len(entries)):
        if entries[index].is_damaged:
            entries[index].number = entries[index - 1].number + 1


def refuse_damaged(store: Store, entries: list[Entry], start: int, action: str) -> None:
    """Refuses ``action``, which concerns ``entries[start:]`` (of a session of ``store``), when
    one of them is damaged: what a damaged entry changed is unknown, so it could only be done
    in part."""
    damaged = [entry for entry in entries[start:] if entry.is_damaged]
    if not damaged:
        return
    numbers = ", ".join(str(entry.number) for entry in damaged)
    raise StoreError(
        f"{action} would cross damaged entr{'y' if len(damaged) == 1 else 'ies'} {numbers} of "
        f"session {damaged[0].session}, whose changes cannot be read, so nothing was done; "
        f"choose a turn after it ('{store.check_command}' lists what is damaged)."
    )


def labels_of(store: Store, session_id: str) -> dict[str, list[str]]:
    """The labels given with 'rewind label', by entry id (each entry's names sorted)."""
    prefix = labels_folder(store, session_id)
    found: dict[str, list[str]] = {}
    for ref in store.ref_names(prefix):
        commit = store.read_ref(ref)
        if commit is None:
            continue
        try:
            entry, _ = commits.read_entry(store, commit)
        except (DamagedEntry, WrongKind):  # or a label naming a blob or a tree (a remote's)
            continue  # a label on a damaged entry: 'rewind check' reports the entry
        found.setdefault(entry.id, []).append(ref[len(prefix) :])
    return found


def all_labels(entry: Entry, attached: dict[str, list[str]]) -> list[str]:
    """The labels given at 'rewind begin --label', then those attached later (no repeats)."""
    later = [name for name in attached.get(entry.id, ()) if name not in entry.labels]
    return entry.labels + later


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
    for ref in store.ref_names(store.sessions_prefix):
        try:
            tip = store.read_ref(ref)
        except DamagedRef as error:
            if damaged is None:
                raise
            damaged.append(error)
            continue
        if tip is None:
            continue
        leaf = ref.rsplit("/", 1)[1]
        try:
            entry, parent = commits.read_entry(store, tip)
            if ref_leaf(entry.session) != leaf:  # the ref names the session, not the record
                raise DamagedEntry(tip, parent, commits.OTHER_SESSION, store.check_command)
        except DamagedEntry as damage:  # the session's id is in its ref name, mostly
            entry = damaged_entry(leaf, tip, damage.reason)
            parent = damage.parent
        except WrongKind as error:  # the ref names no commit: a blob, a tree (a remote's)
            if damaged is None:
                raise
            damaged.append(DamagedRef(str(error), ref))
            continue
        head = SessionHead(entry.session, ref, tip, parent, entry)
        merge_journal(store, head)  # the open turn's records so far
        try:
            mtime = os.stat(os.path.join(store.git_dir, ref)).st_mtime
        except FileNotFoundError:
            mtime = entry.ended or entry.started
        summaries.append(SessionSummary(head, mtime, entry.session == recent))
    summaries.sort(key=lambda summary: summary.mtime)
    return summaries


def resolve_session(store: Store, requested: str | None, create: bool = False) -> str:
    """``--session``, else ``$REWIND_SESSION``, else the project's most recent session."""
    chosen = requested or os.environ.get("REWIND_SESSION") or recent_session(store)
    if chosen:
        return valid_text(chosen)  # bytes that are not UTF-8 cannot be written as its name
    sessions = list_sessions(store)
    if sessions:
        return sessions[-1].head.session_id
    if create:
        return new_session_id()
    raise UserError(
        "this project has no sessions yet; let your agent record its turns with 'rewind "
        "install AGENT' (or record by hand with 'rewind begin')."
    )
