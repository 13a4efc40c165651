"""Opening a project's store for use: the store, with any interrupted restore finished first.

A restore killed halfway leaves its journal in the store (see
:mod:`rewind.history.restoring.restore`);
whoever opens the store next completes it before reading or recording anything, so that no
command sees a work tree half put back.
"""

from __future__ import annotations

import os
import sys

from rewind.store.repository import JOURNAL, Store, StoreBusy
from rewind.store.root import find_root


def open_store(root_path: bytes, create: bool = False, lock_timeout: float | None = None) -> Store:
    """The store of the project at ``root_path`` (see :meth:`Store.for_root`). With a
    ``lock_timeout`` (a hook), a restore whose journal is there is finished only when the store
    is free: one that holds the store is a restore under way, which its own process finishes."""
    store = Store.for_root(root_path, create=create, lock_timeout=lock_timeout)
    if os.path.exists(store.state_path(JOURNAL)):
        _finish_restore(store, wait=lock_timeout is None)
    return store


def _finish_restore(store: Store, wait: bool) -> None:
    """Finishes an interrupted restore, if it can. Nothing that goes wrong there stops the
    command or the hook that opened the store: it is logged and said, and the restore waits
    for the next command (meanwhile hooks spool what they record for its session:
    rewind.history.recording.turns)."""
    # Only now: restoring imports what the hook path never needs (the index, sqlite3).
    from rewind.history.restoring.restore import finish_interrupted_restore

    try:
        finish_interrupted_restore(store, wait=wait)
    except StoreBusy:
        pass
    except Exception as error:
        import traceback

        message = f"an interrupted restore could not be finished ({error!r})"
        details = "".join(traceback.format_exception(error)).rstrip()
        store.log_problem(f"{message}; the next command tries again: {details}")
        if wait:
            print(
                f"rewind: {message}; the next command tries again, 'rewind undo' takes it back "
                "(see 'rewind status' for the log).",
                file=sys.stderr,
            )


def open_current_store(create: bool = False) -> Store:
    """The store of the project that holds the current directory."""
    return open_store(find_root(os.getcwdb()), create=create)
