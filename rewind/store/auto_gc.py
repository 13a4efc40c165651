"""Asking for a gc by itself: ``begin`` checks, in one ``listdir``, whether loose objects have
piled up, and if so has a gc started in the background (see :mod:`rewind.store.packing`).

The store starts no process for it: the history hands it what starts the gc
(:func:`rewind.history.background.start_gc`, ``rewind gc --quiet`` detached).

On the hook path: it imports nothing that the hook path does not load anyway.
"""

from __future__ import annotations

import os
import time

from rewind.store.repository import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# Like git's gc.auto: pack once about this many loose objects have piled up, judged (as git
# does) from one of the 256 fan-out directories so that the check costs a single listdir.
AUTO_PACK_LOOSE_OBJECTS = 6700
# An automatic gc starts at most this often, whatever the count says: garbage younger than the
# grace period stays loose after a gc, and must not set off another one at every turn.
AUTO_PACK_INTERVAL = 10 * 60
# And at least this often on a store in use, whatever the count: gc applies retention, which
# must not wait for loose objects to pile up in a project where the agent writes little.
DAILY = 24 * 60 * 60
GC_STARTED = "gc.started"  # its time is when the last gc (or automatic start) began


def needs_packing(store: Store) -> bool:
    """Whether ``begin`` should start a gc: loose objects piled up (and none started in the
    last ten minutes), or none started for a day (the store's creation counts as one)."""
    started = _mtime(store.state_path(GC_STARTED))
    last = started if started is not None else _mtime(store.state_path("project.json"))
    if last is not None and time.time() - last >= DAILY:
        return True
    try:
        sample = len(os.listdir(os.path.join(store.git_dir, "objects", "17")))
    except FileNotFoundError:
        return False
    if sample * 256 <= AUTO_PACK_LOOSE_OBJECTS:
        return False
    return started is None or time.time() - started >= AUTO_PACK_INTERVAL


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except FileNotFoundError:
        return None


def pack_in_background(store: Store, start_gc: Callable[[Store], None]) -> None:
    """Notes that a gc starts and has ``start_gc`` start it in the background, so that the hook
    that noticed does not wait for it."""
    touch(store.state_path(GC_STARTED))  # the next begins do not start one too
    start_gc(store)


def touch(path: str) -> None:
    with open(path, "a"):
        pass
    os.utime(path)
