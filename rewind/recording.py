"""Recording turns: begin a turn, track paths before they change, record their after-states.

This is the hook path: it runs once per agent tool call, so it imports nothing heavy and touches
only the paths it is given.
"""

from __future__ import annotations

import time

from rewind.drift import changed_outside, recorded_states
from rewind.entry import DRIFT_PROMPT, EDIT, EXTERNAL, TURN, WATCH_AGENT, Entry, FileChange
from rewind.filestate import DIRECTORY, SPECIAL, TOO_LARGE, UNREADABLE, FileState, capture
from rewind.packing import needs_packing, pack_in_background
from rewind.session import SessionHead, load_head, new_entry_id, save_entry
from rewind.store import Store

NOT_TRACKABLE = frozenset({DIRECTORY, SPECIAL})
# What to tell a person about a path whose state could not be recorded in full.
TRACK_PROBLEMS = {
    DIRECTORY: "is a directory, not recorded; track the files in it instead",
    SPECIAL: "is not a regular file or symlink, not recorded",
    UNREADABLE: "could not be read: recorded without its content, so it cannot be restored; "
    "check its permissions",
    TOO_LARGE: "is larger than max_file_size: recorded without its content, so it cannot be "
    "restored; raise max_file_size in rewind.toml to keep it",
}


def begin(
    store: Store,
    session_id: str,
    prompt: str = "",
    agent: str = "",
    labels: list[str] | None = None,
) -> Entry:
    """Closes the open turn (recording its after-states) and starts the next one.

    Files the session recorded that changed since, outside rewind's sight, are first kept in
    an entry of their own, between the two turns (see :func:`record_drift`).
    """
    return begin_with_drift(store, session_id, prompt, agent, labels)[0]


def begin_with_drift(
    store: Store,
    session_id: str,
    prompt: str = "",
    agent: str = "",
    labels: list[str] | None = None,
) -> tuple[Entry, Entry | None]:
    """:func:`begin`, also returning the entry of changes found outside rewind (or None)."""
    with store.lock():
        head = load_head(store, session_id)
        close_open_turn(store, head)
        agent = agent or _inherited_agent(head)
        drift = record_drift(store, head)
        entry = _new_turn(head, prompt, agent, labels)
        save_entry(store, head, entry, replace_tip=False)
    if drift is not None:
        shown = [store.root.display(change.path) for change in drift.files]
        more = f" and {len(shown) - 10} more" if len(shown) > 10 else ""
        store.log_problem(
            f"session {session_id}: {len(shown)} file(s) changed outside rewind since it last "
            f"recorded them ({', '.join(shown[:10])}{more}); kept as entry {drift.number}"
        )
    if needs_packing(store):
        pack_in_background(store)
    return entry, drift


def record_drift(store: Store, head: SessionHead) -> Entry | None:
    """Keeps the files the session recorded that changed since, outside rewind's sight, as one
    closed entry of external changes (from their last recorded state to their state now), so
    that the change is seen, can be undone, and a restore never overwrites it unrecorded.

    Returns that entry, or None when nothing drifted. The lock is held and no turn is open.
    """
    recorded = recorded_states(store, head)
    outside = changed_outside(store, recorded)
    if not outside:
        return None
    now = time.time()
    entry = Entry(
        head.session_id,
        head.next_number,
        new_entry_id(),
        TURN,
        DRIFT_PROMPT,
        started=now,
        ended=now,
        files=[
            FileChange(path, recorded[path], state, at=now, source=EXTERNAL)
            for path, state in outside.items()
        ],
    )
    save_entry(store, head, entry, replace_tip=False)
    return entry


def _inherited_agent(head: SessionHead) -> str:
    """The agent of the session's newest entry, unless that is a turn watch mode opened."""
    if head.current is None or head.current.agent == WATCH_AGENT:
        return ""
    return head.current.agent


def _new_turn(head: SessionHead, prompt: str, agent: str, labels: list[str] | None) -> Entry:
    agent = agent or _inherited_agent(head)
    return Entry(
        head.session_id,
        head.next_number,
        new_entry_id(),
        TURN,
        prompt,
        agent,
        started=time.time(),
        labels=labels,
    )


def close_open_turn(store: Store, head: SessionHead) -> None:
    """Records the after-state of every file of the open turn and closes it (lock held)."""
    entry = head.current
    if entry is None or not entry.is_open:
        return
    _capture_after_states(store, entry, None)
    entry.ended = time.time()
    save_entry(store, head, entry, replace_tip=True)


def track(
    store: Store,
    session_id: str,
    paths: list[bytes],
    agent: str = "",
    known: dict[bytes, FileState] | None = None,
    source: str = EDIT,
) -> dict[bytes, FileState]:
    """Records the state of ``paths`` before they change; the first record in a turn wins.

    ``known`` gives states taken otherwise (an agent that reported the text before its edit
    only afterwards); the other paths are read from disk. ``source`` says how rewind learnt of
    the change (an edit tool, the shell quicksave, watch mode) and is kept with each new record.
    Returns the state recorded for each path (or found, for paths already tracked in this turn).
    Directories and special files are returned but not recorded. A session or open turn that
    does not exist yet is started on the spot.
    """
    head = load_head(store, session_id)
    already = _open_paths(head)
    limit = store.config.max_file_size
    captured = dict(known or {})
    for path in dict.fromkeys(paths):
        if path not in already and path not in captured:
            captured[path] = capture(store.root.absolute(path), limit, store.writer)
    with store.lock():
        head = load_head(store, session_id)
        entry = head.current
        starting = entry is None or not entry.is_open
        if starting:
            entry = _new_turn(head, "", agent, None)
        assert entry is not None
        states = {}
        added = False
        for path in dict.fromkeys(paths):
            change = entry.file(path)
            if change is not None:
                states[path] = change.before or FileState("unknown")
                continue
            state = captured.get(path) or capture(store.root.absolute(path), limit, store.writer)
            states[path] = state
            if state.kind not in NOT_TRACKABLE:
                entry.files.append(FileChange(path, state, None, at=time.time(), source=source))
                added = True
        if added or starting:
            save_entry(store, head, entry, replace_tip=not starting)
    return states


def _open_paths(head: SessionHead) -> set[bytes]:
    if head.current is None or not head.current.is_open:
        return set()
    return set(head.current.paths())


def record_after(
    store: Store, session_id: str, paths: list[bytes] | None = None, close: bool = False
) -> Entry | None:
    """Records the current state of the open turn's files (all, or ``paths``) as after-states.

    With ``close`` the turn ends. Returns the turn, or None when no turn is open.
    """
    with store.lock():
        head = load_head(store, session_id)
        entry = head.current
        if entry is None or not entry.is_open:
            return None
        _capture_after_states(store, entry, set(paths) if paths is not None else None)
        if close:
            entry.ended = time.time()
        save_entry(store, head, entry, replace_tip=True)
    return entry


def _capture_after_states(store: Store, entry: Entry, only: set[bytes] | None) -> None:
    limit = store.config.max_file_size
    for change in entry.files:
        if only is not None and change.path not in only:
            continue
        known = change.after or change.before
        change.after = capture(store.root.absolute(change.path), limit, store.writer, known)
        if change.after.kind in NOT_TRACKABLE:
            store.log_problem(
                f"{store.root.display(change.path)} is now a {change.after.kind}; "
                "its after-state cannot be recorded"
            )
