"""Which session a reading command (log, show, diff, the TUI) reads: a local one, or, with
``--remote``, one fetched from a remote (rewind.history.fetched)."""

from __future__ import annotations

from rewind.errors import UserError
from rewind.history.fetched import fetched_sessions, open_fetched
from rewind.history.opening import open_current_store
from rewind.history.sessions import list_sessions, resolve_session
from rewind.store.repository import Store


def session_to_read(session: str | None, remote: str | None) -> tuple[Store, str]:
    """The store to read (a read-only view for a fetched session) and the session's id."""
    store = open_current_store()
    if remote is not None:
        return open_fetched(store, remote, session)
    return store, local_session(store, session)


def local_session(store: Store, session: str | None) -> str:
    """:func:`resolve_session`, whose error in a clone that only fetched sessions says how to
    read those."""
    try:
        return resolve_session(store, session)
    except UserError:
        if session is None and not list_sessions(store, damaged=[]):
            _point_to_fetched(store)
        raise


def _point_to_fetched(store: Store) -> None:
    """A clone that only fetched sessions so far: say how to read them."""
    fetched = fetched_sessions(store)
    if fetched:
        remote = fetched[-1].remote
        raise UserError(
            f"this project has no sessions of its own yet; read those fetched from {remote} "
            f"with --remote {remote} ('rewind sessions --remote' lists them)."
        )
