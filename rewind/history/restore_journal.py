"""The journal of a restore under way (``<store>/rewind/restore-journal.json``): which session's
entry it records, and which process writes it (rewind.history.restoring.restore writes and finishes
it).

While it is there, the restore is not done: nothing is recorded on top of its entry (hooks
spool their records instead, rewind.history.recording.turns) until a command finishes it or
'rewind undo' takes it back. Read here without the restore's imports: the hook path asks.
"""

from __future__ import annotations

from rewind.store.fastjson import load_object
from rewind.store.repository import JOURNAL, Store


def read_journal(store: Store) -> dict[str, object]:
    """The journal ({} when there is none, or it cannot be read: the next command that opens
    the store removes such a journal, since it names no entry)."""
    try:
        with open(store.state_path(JOURNAL), encoding="utf-8") as handle:
            return load_object(handle.read())
    except (OSError, ValueError, RecursionError):
        return {}


def restore_waiting(store: Store, session_id: str) -> bool:
    """Whether a restore of ``session_id`` was interrupted and waits to be finished."""
    return read_journal(store).get("session") == session_id
