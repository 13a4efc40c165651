"""Where the session on screen comes from: this project's own store, or a copy fetched from a
remote (rewind.history.remote.fetched), which is read through a read-only view.

The screens ask :func:`refused` before anything that would record or restore: on a fetched
session it says why nothing happens instead of letting the view's lock fail mid-action.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.app import App

from rewind.history.remote.fetched import MACHINES_PREFIX, open_fetched
from rewind.store.repository import Store

READ_ONLY_NOTICE = "Fetched sessions are read-only; 'rewind apply' brings a turn's changes here."
NO_BLAME_NOTICE = (
    "Blame reads the files of this work tree and their local history, not a fetched session's: "
    "open a local session ('s') to see it."
)


@dataclass(frozen=True)
class Fetched:
    """A session fetched from ``remote``, pushed there by ``machine``."""

    remote: str
    machine: str

    def describe(self, session_id: str) -> str:
        """``backup · laptop-3fa2b1 · s1 (read-only)``: the timeline's title begins with it."""
        return f"{self.remote} · {self.machine} · {session_id} (read-only)"


@dataclass(frozen=True)
class Opened:
    """A session to show: the store to read it from (a read-only view for a fetched one), its
    id and, for a fetched one, where it was fetched from."""

    store: Store
    session_id: str
    fetched: Fetched | None = None


def open_remote(local: Store, remote: str, requested: str | None) -> Opened:
    """The fetched session ``requested`` (``MACHINE/SESSION``, ``SESSION``, or None: the most
    recently active) of ``remote``, as ``rewind tui --remote`` opens it."""
    view, session_id = open_fetched(local, remote, requested)
    return Opened(view, session_id, Fetched(remote, machine_of(view)))


def machine_of(view: Store) -> str:
    """The machine whose sessions a view reads (its sessions are that machine's refs)."""
    return view.sessions_prefix.removeprefix(MACHINES_PREFIX).split("/", 1)[0]


def refused(app: App[Any], store: Store) -> bool:
    """True, after saying so, when ``store`` is a fetched session's view: nothing may be
    recorded or restored from it."""
    if not store.read_only:
        return False
    app.notify(READ_ONLY_NOTICE, severity="warning")
    return True
