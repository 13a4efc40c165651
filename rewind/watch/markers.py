"""A marker in the kernel's queue of the project's events: the project root's permission bits
set to what they are, which the kernel reports as an attribute change of the root, queued
behind every event it queued before and read by watchdog in the same order. When it comes out
of the watcher's queue, every earlier change has been taken in (rewind.watch.observer).

The kernel merges an event into the one before it when that one is still unread and the same
(an attribute change of the root, twice), so at most one marker is in flight: what asks for a
marker while one is on its way waits for the next, sent when that one arrives. An attribute
change of the root made by someone else while one is in flight counts as it (it is queued at
the same place, or later). Without a marker (the root's bits cannot be set), what asked for
one is answered at once, with what the queue holds then.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable


class Markers:
    def __init__(self, root: bytes, problem: Callable[[str], None]) -> None:
        self.root = root
        self.problem = problem
        self.in_flight = False
        self.riding: list[object] = []  # what waits for the marker in flight
        self.queued: list[object] = []  # what waits for the next one
        self.failed = False

    def want(self, waiter: object) -> bool:
        """``waiter`` waits for a marker sent after now; False when none can be sent (the
        caller answers it at once)."""
        if self.in_flight:
            self.queued.append(waiter)
            return True
        if not self._send():
            return False
        self.riding.append(waiter)
        return True

    def arrived(self) -> list[object]:
        """An attribute change of the root came out of the queue: what waited for the marker in
        flight (nothing, when none was); the next marker is sent for what waits for it."""
        if not self.in_flight:
            return []
        done, self.riding, self.in_flight = self.riding, [], False
        if self.queued:
            waiting, self.queued = self.queued, []
            if self._send():
                self.riding = waiting
            else:
                done += waiting
        return done

    def everything(self) -> list[object]:
        """All that waits (the watcher stops)."""
        done = self.riding + self.queued
        self.riding, self.queued, self.in_flight = [], [], False
        return done

    def _send(self) -> bool:
        try:
            os.chmod(self.root, stat.S_IMODE(os.stat(self.root).st_mode))
        except OSError as error:
            if not self.failed:
                self.failed = True
                self.problem(
                    f"no marker can be set on the project root ({error}): barriers "
                    "answer with what the queue holds, and no snapshot is taken"
                )
            return False
        self.in_flight = True
        return True
