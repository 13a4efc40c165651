"""Asking for an automatic backup push: ``[remote] backup`` (rewind.history.remote.backup).

On the hook path, once per closed entry: a touch, a lock test and, when no backup pusher runs,
having one started through what the history hands it
(:func:`rewind.history.background.start_push`, ``rewind push --background`` detached). It never
waits for the remote.
"""

from __future__ import annotations

import fcntl
import os

from rewind.store.auto_gc import touch
from rewind.store.repository import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

BACKUP_LOCK = "backup.lock"  # held by the one pusher at work
BACKUP_REQUESTED = "backup.requested"  # its time: when the last entry closed
BACKUP_STATE = "backup.json"  # what the last attempts did (rewind.history.remote.backup)


def request_backup(store: Store, start_push: Callable[[Store], None]) -> None:
    """Notes that an entry closed and, unless a pusher is at work (it will see the note),
    has ``start_push`` start one. Never raises: a backup that cannot even be asked for is
    logged."""
    if not store.config.remote.backup or store.read_only:
        return
    try:
        touch(store.state_path(BACKUP_REQUESTED))
        if pusher_running(store):
            return
        start_push(store)
    except OSError as error:
        store.log_problem(f"the backup push could not be started: {error}")


def pusher_running(store: Store) -> bool:
    fd = os.open(store.state_path(BACKUP_LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
