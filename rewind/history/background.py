"""Starting the history's upkeep in the background: a gc (rewind.history.upkeep) once the
store's loose objects have piled up, and the automatic backup push (rewind.history.remote.backup)
once an entry has closed.

The store decides when (rewind.store.auto_gc, rewind.store.backup_trigger) and is handed these
to start them: it starts no rewind itself (tests/gates_test.py). Each job is a ``rewind``
command on the store's project, run detached by the interpreter running now.

On the hook path: ``subprocess`` is imported only when a job starts.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.store.repository import Store


def start_gc(store: Store) -> None:
    """``rewind gc --quiet``: packs the store and applies retention."""
    _start_detached(store, "gc", "--quiet")


def start_push(store: Store) -> None:
    """``rewind push --background``: the one backup pusher, which pushes until nothing waits."""
    _start_detached(store, "push", "--background")


def _start_detached(store: Store, *arguments: str) -> None:
    """Starts ``rewind ARGUMENTS`` on the store's project in a session of its own, its output
    discarded: a hook never waits for it, and it outlives the agent's process group."""
    import subprocess
    import sys

    subprocess.Popen(
        [sys.executable, "-m", "rewind", "-C", os.fsdecode(store.root.path), *arguments],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
