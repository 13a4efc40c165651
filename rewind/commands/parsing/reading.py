"""Which session a reading command (log, show, diff, the TUI) reads: a local one, or, with
``--remote``, one fetched from a remote (rewind.history.remote.fetched)."""

from __future__ import annotations

import sys
from typing import Any, TextIO, cast

from rewind.errors import UserError
from rewind.history.restoring.opening import open_current_store
from rewind.history.sessions import list_sessions, resolve_session
from rewind.store.repository import Store


def session_to_read(session: str | None, remote: str | None) -> tuple[Store, str]:
    """The store to read (a read-only view for a fetched session) and the session's id."""
    store = open_current_store()
    if remote is not None:
        from rewind.history.remote.fetched import open_fetched  # loaded for --remote only

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
    from rewind.history.remote.fetched import fetched_sessions

    fetched = fetched_sessions(store)
    if fetched:
        remote = fetched[-1].remote
        raise UserError(
            f"this project has no sessions of its own yet; read those fetched from {remote} "
            f"with --remote {remote} ('rewind sessions --remote' lists them)."
        )


# Every control character but tab, newline and carriage return (CRLF files' diffs), shown as
# \xNN: what a fetched session holds is whatever a remote wrote, and an escape sequence in a
# prompt, a path or a file could retitle, clear or take over the terminal it is printed on.
_VISIBLE = {
    code: f"\\x{code:02x}"
    for code in (*range(0x20), *range(0x7F, 0xA0))
    if chr(code) not in "\t\n\r"
}


class _TerminalSafe:
    """``sys.stdout`` for printing a fetched session: control characters made visible, and
    no colours (it is not a terminal: colours are escape sequences too)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(text.translate(_VISIBLE))

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def print_fetched_safely() -> None:
    """Makes what is printed from here on harmless to the terminal (see :class:`_TerminalSafe`),
    for the rest of this command; log, show and diff call it when they read a fetched
    session."""
    if not isinstance(sys.stdout, _TerminalSafe):
        sys.stdout = cast(TextIO, _TerminalSafe(sys.stdout))
