"""Finding the entries a command needs through the index, without reading whole histories.

``show N`` reads one entry, ``restore N`` the entries from N on, ``undo`` those from the last
restore on, and the conflict check of either one row per path of the plan
(:mod:`rewind.history.index`).
"""

from __future__ import annotations

from rewind.errors import UserError
from rewind.history.entry import Entry, FileChange
from rewind.history.index.queries import EntryIndex, newest_change_by_others
from rewind.history.session import SessionHead, load_head
from rewind.store.repository import Store


def find(store: Store, head: SessionHead, wanted: str) -> Entry:
    """An entry of the session by number (``3``) or by id or a unique prefix of it."""
    with EntryIndex(store) as index:
        return _find(index, head, wanted)


def _find(index: EntryIndex, head: SessionHead, wanted: str) -> Entry:
    number = _find_number(index, head, wanted)
    return index.entries(head, number, number)[0]


def _find_number(index: EntryIndex, head: SessionHead, wanted: str) -> int:
    if not wanted.strip():
        raise UserError("TURN is empty; give a turn's number or id ('rewind log' lists them).")
    if head.current is None:
        raise UserError("this session has no turns yet.")
    found = index.find_number(head, wanted.strip())
    if found is not None:
        return found
    first = index.first_number(head)
    raise UserError(
        f"there is no turn {wanted!r} in session {head.session_id}; "
        f"turns go from {first} to {head.current.number} ('rewind log' lists them)."
    )


def locate(store: Store, head: SessionHead, wanted: Entry | str) -> tuple[Entry, str]:
    """The entry ``wanted`` (an entry of the session, or a TURN as the CLI takes it) and the
    commit that records it."""
    with EntryIndex(store) as index:
        chosen = _find(index, head, wanted.id if isinstance(wanted, Entry) else wanted)
        commit = index.commit_of(head, chosen.number)
    if commit is None or (isinstance(wanted, Entry) and chosen.id != wanted.id):
        raise UserError(
            f"entry {chosen.id} is not in session {head.session_id}; 'rewind log' lists its turns."
        )
    return chosen, commit


def entries_from(store: Store, head: SessionHead, wanted: str) -> tuple[Entry, list[Entry]]:
    """The entry ``wanted`` names and the session's entries from it on, oldest first."""
    with EntryIndex(store) as index:
        entries = index.entries(head, _find_number(index, head, wanted))
        return entries[0], entries


def entries_between(store: Store, head: SessionHead, start: int, stop: int) -> list[Entry]:
    with EntryIndex(store) as index:
        return index.entries(head, start, stop)


def newest(store: Store, head: SessionHead, count: int | None) -> list[Entry]:
    """The session's newest ``count`` entries (all when None), oldest first."""
    with EntryIndex(store) as index:
        return index.entries(head) if count is None else index.newest(head, count)


def changes_by_other_sessions(
    store: Store, session: str, paths: set[bytes]
) -> dict[bytes, tuple[str, FileChange]]:
    """For each path, the newest change any other session of the project recorded for it."""
    with EntryIndex(store) as index:
        open_turns = index.sync_all()
        return newest_change_by_others(index, session, paths, open_turns)


def entry_in_project(store: Store, prefix: str) -> Entry | None:
    """The entry, of any session of the project, whose id starts with ``prefix`` (an open
    turn with its journal merged); None when there is none. A prefix that several entries
    share raises a UserError."""
    with EntryIndex(store) as index:
        index.sync_all()
        found = index.with_id_prefix(prefix.lower())
        if len(found) > 1:
            raise UserError(
                f"{prefix!r} is the start of more than one entry's id; give more of it "
                "('rewind log' prints the 12-character ids)."
            )
        if not found:
            return None
        session, number = found[0]
        return index.entries(load_head(store, session), number, number)[0]


def newest_changes(store: Store, paths: set[bytes]) -> dict[bytes, tuple[str, FileChange]]:
    """For each path, the newest change any session of the project recorded for it (the
    session, and the change): what rewind last saw of it."""
    return changes_by_other_sessions(store, "", paths)  # no session is called ""
