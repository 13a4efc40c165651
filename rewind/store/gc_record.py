"""What the last gc did, ``<store>/rewind/stats/gc.json``: when it ran, how long it took, the
store's size before and after, and what retention dropped. ``rewind gc`` writes it after each
gc; ``rewind status`` reads the size from it instead of measuring the store, and ``rewind
stats`` shows it.

``retention_dropped`` is what retention (rewind.history.upkeep.retention) cut before packing:
``{"sessions": 2, "entries": 40, "bytes": 1048576}`` (sessions cut, entries dropped, bytes of
content only they named, estimated); None in a record that does not say.
"""

from __future__ import annotations

import os

from rewind.store.atomic import write_text_atomically
from rewind.store.fastjson import dumps, load_object

GC_RECORD = "gc.json"


class GcRecord:
    __slots__ = (
        "loose_removed",
        "packed",
        "retention_dropped",
        "seconds",
        "size_after",
        "size_before",
        "started",
    )

    def __init__(
        self,
        started: float,
        seconds: float,
        size_before: int,
        size_after: int,
        packed: int = 0,
        loose_removed: int = 0,
        retention_dropped: dict[str, object] | None = None,
    ) -> None:
        self.started = started  # Unix time
        self.seconds = seconds
        self.size_before = size_before  # bytes on disk, the whole store
        self.size_after = size_after
        self.packed = packed  # objects in the pack it wrote
        self.loose_removed = loose_removed
        self.retention_dropped = retention_dropped

    @property
    def finished(self) -> float:
        return self.started + self.seconds

    def to_json(self) -> dict[str, object]:
        return {
            "started": self.started,
            "seconds": self.seconds,
            "size_before": self.size_before,
            "size_after": self.size_after,
            "packed": self.packed,
            "loose_removed": self.loose_removed,
            "retention_dropped": self.retention_dropped,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> GcRecord:
        """A ValueError unless ``data`` holds the numbers :meth:`to_json` writes."""

        def number(key: str) -> float:
            value = data.get(key)
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise ValueError(f"{key} is not a number")
            return value

        dropped = data.get("retention_dropped")
        return cls(
            number("started"),
            number("seconds"),
            int(number("size_before")),
            int(number("size_after")),
            int(number("packed")),
            int(number("loose_removed")),
            dropped if isinstance(dropped, dict) else None,
        )


def write_gc_record(path: str, record: GcRecord) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_text_atomically(path, dumps(record.to_json()))


def read_gc_record(path: str) -> GcRecord | None:
    """The record at ``path``; None when there is none (no gc yet) or it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return GcRecord.from_json(load_object(handle.read()))
    except (OSError, ValueError):
        return None
