"""Which session a reading command (log, show, diff, the TUI) reads: a local one, or, with
``--remote``, one fetched from a remote (rewind.history.fetched)."""

from __future__ import annotations

from rewind.history.fetched import open_fetched
from rewind.history.opening import open_current_store
from rewind.history.sessions import resolve_session
from rewind.store.repository import Store


def session_to_read(session: str | None, remote: str | None) -> tuple[Store, str]:
    """The store to read (a read-only view for a fetched session) and the session's id."""
    store = open_current_store()
    if remote is None:
        return store, resolve_session(store, session)
    return open_fetched(store, remote, session)
