"""Which project and which session a request reads: the project that holds a directory, its
store (or a read-only view of a session fetched from a remote), and the session asked for or
the most recent one.
"""

from __future__ import annotations

import os

from rewind.errors import UserError
from rewind.history.restoring.opening import open_store
from rewind.history.session import load_head, recent_session
from rewind.history.sessions import list_sessions, resolve_session
from rewind.store.home import store_dir_for
from rewind.store.repository import Store
from rewind.store.root import find_root


def project_root(cwd: bytes | None) -> bytes:
    """The root of the project that holds ``cwd`` (the current directory when None)."""
    return find_root(cwd or os.getcwdb())


def recorded_store(cwd: bytes | None = None) -> Store | None:
    """The project's store, or None when rewind has recorded nothing for it yet."""
    root = project_root(cwd)
    if not os.path.exists(os.path.join(store_dir_for(root), "HEAD")):
        return None
    return open_store(root)


def has_session(store: Store, requested: str | None) -> bool:
    """Whether a session to read exists: one asked for (``--session``, ``$REWIND_SESSION``),
    which must exist, else any. An unknown session asked for stays an error."""
    if requested or os.environ.get("REWIND_SESSION"):
        return True
    recent = recent_session(store)
    if recent and load_head(store, recent).current is not None:
        return True
    return bool(list_sessions(store))


def store_to_read(
    session: str | None, remote: str | None, cwd: bytes | None = None
) -> tuple[Store, str]:
    """The store to read (a read-only view for a session fetched from ``remote``) and the
    session's id."""
    store = open_store(project_root(cwd))
    if remote is not None:
        from rewind.history.remote.fetched import open_fetched  # loaded for a remote only

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
    from rewind.history.remote.fetched import fetched_sessions

    fetched = fetched_sessions(store)
    if fetched:
        remote = fetched[-1].remote
        raise UserError(
            f"this project has no sessions of its own yet; read those fetched from {remote} "
            f"with --remote {remote} ('rewind sessions --remote' lists them)."
        )
