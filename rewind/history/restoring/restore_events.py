"""Restores and undos as events, ``<store>/rewind/stats/restores.log``: one line each time one
is done or refused, whoever asked (a command, the TUI, the Python API), so that ``rewind stats``
can count them. A refusal leaves no entry in the history, and a forgotten session takes its
entries with it: the events keep both.
"""

from __future__ import annotations

from rewind.history.entry import UNDO
from rewind.store.event_log import STATS_DIR, append_event, read_events
from rewind.store.repository import Store

RESTORES = "restores.log"
DONE = "done"  # an entry was recorded and the files written
REFUSED = "refused"  # files changed outside rewind: nothing was written


def note_restore(store: Store, kind: str, outcome: str, files: int) -> None:
    """Appends one event: a restore or undo (``kind``, an entry kind) ``outcome`` (DONE or
    REFUSED); ``files`` is how many files it wrote, or how many were in conflict. Never
    raises."""
    fields: dict[str, object] = {"kind": kind, "outcome": outcome, "files": files}
    append_event(store.state_path(STATS_DIR, RESTORES), fields)


class RestoreCounts:
    """How many restores were done and refused, and how many undos were done and refused, as
    far back as the events go (``since``: the oldest kept, None without any)."""

    __slots__ = ("done", "refused", "since", "undo_refused", "undone")

    def __init__(self) -> None:
        self.done = self.refused = self.undone = self.undo_refused = 0
        self.since: float | None = None


def restore_counts(store: Store) -> RestoreCounts:
    counts = RestoreCounts()
    log = read_events(store.state_path(STATS_DIR, RESTORES))
    for event in log.events:
        undo = event.text("kind") == UNDO
        if event.text("outcome") == DONE:
            if undo:
                counts.undone += 1
            else:
                counts.done += 1
        elif event.text("outcome") == REFUSED:
            if undo:
                counts.undo_refused += 1
            else:
                counts.refused += 1
    if log.events:
        counts.since = log.events[0].time
    return counts
