"""One line per hook call in ``<store>/rewind/stats/hook-calls.log``: how long the call took and
what it could not do in full. ``rewind stats`` turns the lines into latency percentiles and
failure counts over the last day and week. On the hook path: light imports only."""

from __future__ import annotations

from rewind.store.event_log import EventLog, append_event

HOOK_CALLS = "hook-calls.log"

# What a hook call could not do in full, each counted in its line when not zero.
SPOOLED = "spooled"  # records kept in a spool file: a lock was not had in time
LOCK_TIMEOUT = "lock_timeout"  # the event gave up waiting for the store lock: not recorded
ERROR = "error"  # the event failed (the disk, a bug): not recorded
IGNORED = "ignored"  # the event was refused as given (no payload, a path outside the root)
UNREADABLE = "unreadable"  # a pre-image recorded without content: the file could not be read
TOO_LARGE = "too_large"  # a pre-image recorded without content: larger than max_file_size
SPECIAL = "special"  # a path not recorded: a fifo, socket or device
UNWATCHED = "unwatched"  # a shell call whose programs no watcher saw (none ran, or it was starting)
COUNTED = (SPOOLED, LOCK_TIMEOUT, ERROR, IGNORED, UNREADABLE, TOO_LARGE, SPECIAL, UNWATCHED)


def write_hook_call(
    path: str,
    milliseconds: float,
    agent: str,
    event: str,
    counts: dict[str, int],
    via: str = "",
) -> bool:
    """Appends the line of one hook call; never raises (see rewind.store.event_log). ``via``:
    how the event came when not as a process of its own (``http``: the resident recorder)."""
    fields: dict[str, object] = {"ms": milliseconds, "agent": agent, "event": event}
    if via:
        fields["via"] = via
    fields.update((name, count) for name, count in counts.items() if count)
    return append_event(path, fields)


class HookWindow:
    """The hook calls of a span of time: how many, their latency's median and 95th percentile
    (None without calls), the sum of each of :data:`COUNTED`, and whether the log still held
    every call of the span (a rotation may have dropped the oldest)."""

    __slots__ = ("calls", "complete", "counts", "p50_ms", "p95_ms", "start")

    def __init__(self, log: EventLog, start: float) -> None:
        events = log.since(start)
        latencies = sorted(event.number("ms") for event in events)
        self.start = start
        self.calls = len(events)
        self.p50_ms = percentile(latencies, 0.50)
        self.p95_ms = percentile(latencies, 0.95)
        self.counts = {name: int(sum(event.number(name) for event in events)) for name in COUNTED}
        self.complete = log.complete_since(start)


def percentile(ordered: list[float], fraction: float) -> float | None:
    """The nearest-rank percentile of ``ordered`` (sorted), None when it is empty."""
    if not ordered:
        return None
    rank = len(ordered) * fraction  # the rank is this, rounded up (math is not imported here)
    whole = int(rank)
    return ordered[max(1, whole if whole == rank else whole + 1) - 1]
