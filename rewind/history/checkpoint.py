"""The state of files at a checkpoint: just before a given entry first changed them."""

from __future__ import annotations

from rewind.history.entry import Entry
from rewind.history.filestate import UNKNOWN, FileState


def checkpoint_states(entries: list[Entry], index: int) -> dict[bytes, FileState]:
    """For every path touched in ``entries[index:]``, its state before its first touch there."""
    states: dict[bytes, FileState] = {}
    for entry in entries[index:]:
        for change in entry.files:
            states.setdefault(change.path, change.before or FileState(UNKNOWN))
    return states


def latest_states(entries: list[Entry]) -> dict[bytes, FileState]:
    """The last state recorded for every path in ``entries``."""
    latest: dict[bytes, FileState] = {}
    for entry in entries:
        for change in entry.files:
            state = change.latest
            if state is not None:
                latest[change.path] = state
    return latest


def states_between(
    entries: list[Entry], start: int, stop: int
) -> dict[bytes, tuple[FileState, FileState]]:
    """Paths touched in ``entries[start:stop]`` with their states at checkpoints start and stop."""
    old = {
        path: state
        for path, state in checkpoint_states(entries, start).items()
        if any(entry.file(path) for entry in entries[start:stop])
    }
    at_stop = checkpoint_states(entries, stop)
    before_stop = latest_states(entries[:stop])
    return {
        path: (state, at_stop.get(path) or before_stop.get(path) or FileState(UNKNOWN))
        for path, state in old.items()
    }
