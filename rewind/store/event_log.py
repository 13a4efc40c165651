"""Bounded logs of events, one short line each, that ``rewind stats`` reads.

A line is ``<unix time> key=value key=value ...``. It is appended with a single ``write`` to a
file opened with ``O_APPEND``, so that processes writing at once (hooks) never mix their lines;
a log found at :data:`ROTATE_AT` bytes or more is renamed ``NAME.old`` (replacing the previous
one) as the line goes in, so a log never holds more than about twice that. Writing never raises:
a figure that cannot be kept must not fail what it measures. This module is on the hook path: it
imports nothing beyond ``os``, ``stat`` and ``time``.
"""

from __future__ import annotations

import os
import stat
import time

# The folder of a store's state directory that holds the stats files (docs/store.md).
STATS_DIR = "stats"
ROTATE_AT = 1024 * 1024  # about 17,000 hook calls; the .old file keeps as many more
OLD_SUFFIX = ".old"
# O_NONBLOCK: a FIFO in a log's place fails at once rather than hang the hook.
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_UNSAFE = str.maketrans({" ": "_", "\t": "_", "\n": "_", "\r": "_", "=": "_"})


def append_event(path: str, fields: dict[str, object], now: float | None = None) -> bool:
    """Appends one line of ``fields`` (values without spaces or ``=``) to the log at ``path``,
    making its directory if needed; False when it could not be written. Never raises."""
    try:
        stamp = time.time() if now is None else now
        items = " ".join(f"{key}={_value(value)}" for key, value in fields.items())
        data = f"{stamp:.3f} {items}\n".encode("utf-8", "backslashreplace")
        fd = _open(path)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return False
            if info.st_size >= ROTATE_AT:
                os.replace(path, path + OLD_SUFFIX)  # this line goes into it, the next ones anew
            return os.write(fd, data) == len(data)
        finally:
            os.close(fd)
    except Exception:
        return False


def _value(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value).translate(_UNSAFE) or "-"


def _open(path: str) -> int:
    try:
        return os.open(path, _APPEND, 0o644)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return os.open(path, _APPEND, 0o644)


class Event:
    """One line of a log: when, and its fields as text."""

    __slots__ = ("fields", "time")

    def __init__(self, time: float, fields: dict[str, str]) -> None:
        self.time = time
        self.fields = fields

    def number(self, key: str) -> float:
        """The field ``key`` as a number (0 when it is missing or not a number)."""
        try:
            return float(self.fields.get(key, 0))
        except ValueError:
            return 0.0

    def text(self, key: str) -> str:
        return self.fields.get(key, "")


class EventLog:
    """What a log holds, oldest first. ``dropped_before`` is the time of its oldest kept line
    when older lines were dropped by a rotation (None when none was)."""

    __slots__ = ("dropped_before", "events")

    def __init__(self, events: list[Event], dropped_before: float | None) -> None:
        self.events = events
        self.dropped_before = dropped_before

    def since(self, start: float) -> list[Event]:
        return [event for event in self.events if event.time >= start]

    def complete_since(self, start: float) -> bool:
        """Whether every line written since ``start`` is still there."""
        return self.dropped_before is None or self.dropped_before <= start


def read_events(path: str) -> EventLog:
    """The lines of ``NAME.old`` then ``NAME`` (a missing or unreadable file holds none);
    lines that are not ``<time> key=value ...`` are skipped."""
    old = _read(path + OLD_SUFFIX)
    events = old + _read(path)
    return EventLog(events, old[0].time if old else None)


def _read(path: str) -> list[Event]:
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return []
    events = []
    for line in text.splitlines():
        stamp, *items = line.split(" ")
        try:
            when = float(stamp)
        except ValueError:
            continue
        fields = {}
        for item in items:
            key, equals, value = item.partition("=")
            if equals:
                fields[key] = value
        events.append(Event(when, fields))
    return events
