"""Turning a stream of file events into changes: one per path per burst, and storms.

An editor's save is several events (write a temporary file, rename it over the target, chmod);
a code generator writes a file in many ``write`` calls. :class:`Coalescer` keeps each path
pending until no event has touched it for a quiet period (or a maximum delay has passed), then
hands it over once. Whether the first event of a pending path was its creation is kept: the
path did not exist before, which is an exact pre-image.

:class:`Storms` caps how many paths one burst records: past the cap, further paths are only
counted, per top-level directory, and summarised in one record when the burst ends.
"""

from __future__ import annotations

from collections.abc import Callable

from rewind.history.entry import Unrecorded


class Pending:
    __slots__ = ("created", "first", "last")

    def __init__(self, created: bool, now: float) -> None:
        self.created = created
        self.first = now
        self.last = now


class Coalescer:
    """Pending paths, handed over once quiet for ``quiet`` seconds or ``max_delay`` after their
    first event."""

    def __init__(self, quiet: float, max_delay: float) -> None:
        self.quiet = quiet
        self.max_delay = max(max_delay, quiet)
        self.pending: dict[bytes, Pending] = {}

    def __len__(self) -> int:
        return len(self.pending)

    def __contains__(self, path: bytes) -> bool:
        return path in self.pending

    def add(self, path: bytes, created: bool, now: float) -> None:
        found = self.pending.get(path)
        if found is None:
            self.pending[path] = Pending(created, now)
        else:
            found.last = now

    def ready(self, now: float) -> list[tuple[bytes, Pending]]:
        """The paths due now (oldest first), removed from the pending ones."""
        due = [
            path
            for path, pending in self.pending.items()
            if now - pending.last >= self.quiet or now - pending.first >= self.max_delay
        ]
        return [(path, self.pending.pop(path)) for path in due]

    def all(self) -> list[tuple[bytes, Pending]]:
        """Every pending path, due or not (at exit, and at a barrier)."""
        taken = list(self.pending.items())
        self.pending.clear()
        return taken

    def next_due(self) -> float | None:
        """When the next path becomes due (a time.monotonic() value), or None."""
        if not self.pending:
            return None
        return min(
            min(pending.last + self.quiet, pending.first + self.max_delay)
            for pending in self.pending.values()
        )


class StormSummary:
    """The paths of one burst that were counted but not recorded."""

    __slots__ = ("directories", "files", "started", "wall_started")

    def __init__(self, started: float, wall_started: float) -> None:
        self.started = started
        self.wall_started = wall_started
        self.files = 0
        self.directories: dict[str, int] = {}

    def count(self, path: bytes) -> None:
        self.files += 1
        top = path.split(b"/", 1)
        name = top[0].decode("utf-8", "backslashreplace") + ("/" if len(top) > 1 else "")
        self.directories[name] = self.directories.get(name, 0) + 1

    def unrecorded(self, cap: int) -> Unrecorded:
        """The record kept in the entry (``cap``: the limit the burst passed)."""
        ranked = dict(sorted(self.directories.items(), key=lambda item: -item[1]))
        return Unrecorded(self.wall_started, self.files, cap, ranked)

    def describe(self, cap: int) -> str:
        return self.unrecorded(cap).describe()


class Storms:
    """Bursts of activity (events less than ``gap`` seconds apart) and their caps.

    ``admit(path)`` says whether a path is recorded: yes while the burst has recorded fewer than
    ``cap`` distinct paths, and always for a path it already admitted or that ``known`` says
    rewind has recorded before (an edit to a file rewind knows is never summarised away).
    """

    def __init__(self, cap: int, gap: float, known: Callable[[bytes], bool]) -> None:
        self.cap = cap
        self.gap = gap
        self.known = known
        self.admitted: set[bytes] = set()
        self.counted: set[bytes] = set()
        self.summary: StormSummary | None = None
        self.last_event = float("-inf")
        self.started = 0.0

    def admit(self, path: bytes, now: float, wall: float) -> bool:
        if now - self.last_event > self.gap:
            self.started = now
        self.last_event = now
        if path in self.admitted:
            return True
        if len(self.admitted) < self.cap or self.known(path):
            self.admitted.add(path)
            return True
        if path not in self.counted:
            self.counted.add(path)
            if self.summary is None:
                self.summary = StormSummary(self.started, wall)
            self.summary.count(path)
        return False

    def burst_over(self, now: float) -> bool:
        return bool(self.admitted or self.counted) and now - self.last_event > self.gap

    def next_end(self) -> float | None:
        if not self.admitted and not self.counted:
            return None
        return self.last_event + self.gap

    def finish(self) -> StormSummary | None:
        """Ends the burst; returns its summary when paths were left unrecorded."""
        summary = self.summary
        self.admitted = set()
        self.counted = set()
        self.summary = None
        return summary
