"""Drift: files rewind has recorded whose state on disk is no longer the last one it recorded.

Something changed them outside rewind's sight (another editor, a command the quicksave could not
read, the person between two prompts). ``rewind begin`` looks for drift among the files the
session has recorded and keeps what it finds as *external* changes of the new turn: their state
now becomes their state before that turn, so nothing made outside is lost and a restore to
before the turn brings it back.

The last recorded state of every path is kept in a small cache next to the session's
(``<store>/rewind/sessions/<session>.latest.json``) that covers the history up to one closed
entry; each call reads only the entries recorded since, so the cost grows with the files the
session touched, never with the work tree.
"""

from __future__ import annotations

import os

from rewind.history.checkpoint import latest_states
from rewind.history.entry import Entry
from rewind.history.filestate import ABSENT, FILE, LINK, TOO_LARGE, FileState, capture
from rewind.history.session import SessionHead
from rewind.history.sessions import read_entry
from rewind.store.atomic import write_text_atomically
from rewind.store.fastjson import dumps, load_object
from rewind.store.repository import Store

# Kinds a comparison with the disk means something for (an unknown or unreadable record never
# matches anything, and directories or special files are never recorded as content).
COMPARABLE = frozenset({FILE, LINK, ABSENT, TOO_LARGE})


def _cache_path(store: Store, head: SessionHead) -> str:
    return store.state_path("sessions", head.ref.rsplit("/", 1)[1] + ".latest.json")


def _read_cache(path: str) -> tuple[str | None, dict[bytes, FileState]]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = load_object(handle.read())
        through, states = data.get("through"), data.get("states")
        if not isinstance(through, str) or not isinstance(states, dict):
            return None, {}
        return through, {
            os.fsencode(name): FileState.from_json(state)
            for name, state in states.items()
            if isinstance(state, dict)
        }
    except (OSError, ValueError, TypeError, AttributeError):
        return None, {}  # no cache or a damaged one: rebuilt from the history


def recorded_states(store: Store, head: SessionHead) -> dict[bytes, FileState]:
    """The last state the session recorded for each path, up to and including its tip.

    Call it when the tip is a closed entry (its commit never changes), as ``begin`` does after
    closing the open turn: the cache is then valid for every later call.
    """
    if head.tip is None:
        return {}
    cache = _cache_path(store, head)
    through, states = _read_cache(cache)
    newer: list[Entry] = []
    commit: str | None = head.tip
    while commit is not None and commit != through:
        if commit == head.tip and head.current is not None:
            entry, commit = head.current, head.parent
        else:
            entry, commit = read_entry(store, commit, head.session_id)  # damaged: a stand-in
        newer.append(entry)
    if commit != through:
        states = {}  # the cached entry is not in this history any more: start again
    states.update(latest_states(newer[::-1]))
    if newer:
        data = {
            "through": head.tip,
            "states": {os.fsdecode(path): state.to_json() for path, state in states.items()},
        }
        try:
            write_text_atomically(cache, dumps(data))
        except OSError as error:
            store.log_problem(f"could not write {cache}: {error}")
    return states


def recorded_before_open_turn(store: Store, head: SessionHead) -> dict[bytes, FileState]:
    """The last state the session recorded for each path in its closed entries (all of them
    when no turn is open): :func:`recorded_states` of the entry under the open turn."""
    current = head.current
    if current is None or not current.is_open:
        return recorded_states(store, head)
    if head.parent is None:
        return {}
    return recorded_states(store, SessionHead(head.session_id, head.ref, head.parent))


def changed_outside(
    store: Store, recorded: dict[bytes, FileState], skip: set[bytes] | None = None
) -> dict[bytes, FileState]:
    """The recorded paths (but ``skip``) whose state now differs from their last record: their
    state now, with its content written to the store. A path that now leads out of the project
    (a folder on its way replaced by a symlink) is not one: what is there is not the project's,
    and it is never kept."""
    limit = store.config.max_file_size
    found = {}
    for path, state in recorded.items():
        if state.kind not in COMPARABLE or (skip and path in skip):
            continue
        absolute = store.root.absolute(path)
        now = capture(absolute, limit)
        changed = now.kind in COMPARABLE and not now.same_as(state)
        if changed and not store.root.why_not_writable(path):
            found[path] = capture(absolute, limit, store.writer)
    return found
