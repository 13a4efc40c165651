"""Recording turns: begin a turn, track paths before they change, record their after-states.

This is the hook path: it runs once per agent tool call, so it imports nothing heavy and touches
only the paths it is given.
"""

from __future__ import annotations

import time

from rewind.errors import UserError
from rewind.history import journal
from rewind.history.entry import (
    DRIFT_PROMPT,
    EDIT,
    EXTERNAL,
    TURN,
    WATCH_AGENT,
    Entry,
    FileChange,
    valid_text,
)
from rewind.history.filestate import DIRECTORY, SPECIAL, TOO_LARGE, UNREADABLE, FileState, capture
from rewind.history.session import SessionHead, Settled, journal_path_of, new_entry_id, save_entry
from rewind.store import hook_calls
from rewind.store.repository import Store

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
# The pre-images that could not be recorded in full, as the hooks' stats count them.
_NOTED_KINDS = {
    UNREADABLE: hook_calls.UNREADABLE,
    TOO_LARGE: hook_calls.TOO_LARGE,
    SPECIAL: hook_calls.SPECIAL,
}


# A prompt delivered twice (rewind's hooks installed at two scopes, or run by two agents that
# read the same settings) reaches begin twice within moments; past this many seconds, the same
# words are taken as sent again.
COPY_WINDOW = 30.0


def begin(
    store: Store,
    session_id: str,
    prompt: str = "",
    agent: str = "",
    labels: list[str] | None = None,
    merge_copies: bool = False,
    conversation: dict[str, object] | None = None,
    unless_open: bool = False,
    unless_begun_since: float | None = None,
) -> Entry:
    """Closes the open turn (recording its after-states) and starts the next one.

    Files the session recorded that changed since, outside rewind's sight, are first kept in
    an entry of their own, between the two turns (see :func:`record_drift`).

    With ``merge_copies`` (an agent's hook), a copy of the prompt that started the open turn
    (see :func:`is_copy_of_open_turn`) starts nothing: the open turn is returned.
    ``conversation``: where the agent's conversation stood before the prompt
    (rewind.history.conversation.cut_point), kept in the turn's record. ``unless_open``: an
    agent's turn already open (begun by another process since the caller looked) is returned
    as it is, decided under the store's lock; ``unless_begun_since``: so is an agent's turn,
    open or ended, begun at or after that time (the same event delivered twice, run at once).
    """
    return begin_with_drift(
        store,
        session_id,
        prompt,
        agent,
        labels,
        merge_copies,
        conversation,
        unless_open,
        unless_begun_since,
    )[0]


def begin_with_drift(
    store: Store,
    session_id: str,
    prompt: str = "",
    agent: str = "",
    labels: list[str] | None = None,
    merge_copies: bool = False,
    conversation: dict[str, object] | None = None,
    unless_open: bool = False,
    unless_begun_since: float | None = None,
) -> tuple[Entry, Entry | None]:
    """:func:`begin`, also returning the entry of changes found outside rewind (or None)."""
    with store.lock(), Settled(store, session_id) as head:
        current = head.current
        if current is not None and not current.is_outside_agent:
            if unless_open and current.is_open:
                return current, None
            if unless_begun_since is not None and current.started >= unless_begun_since:
                return current, None
        if merge_copies and is_copy_of_open_turn(head, prompt):
            assert head.current is not None
            return head.current, None
        refuse_while_restore_waits(store, session_id)
        close_open_turn(store, head)
        agent = agent or _inherited_agent(head)
        drift = record_drift(store, head)
        entry = _new_turn(head, prompt, agent, labels)
        entry.conversation = conversation
        save_entry(store, head, entry, replace_tip=False)
        journal.create(journal_path_of(store, session_id), entry.id)
    if drift is not None:
        shown = [store.root.display(change.path) for change in drift.files]
        more = f" and {len(shown) - 10} more" if len(shown) > 10 else ""
        store.log_problem(
            f"session {session_id}: {len(shown)} file(s) changed outside rewind since it last "
            f"recorded them ({', '.join(shown[:10])}{more}); kept as entry {drift.number}"
        )
    _after_a_turn_begins(store, closed=head.parent is not None or drift is not None)
    return entry, drift


def _after_a_turn_begins(store: Store, closed: bool) -> None:
    """Packs the store in the background when it needs it, and backs up an entry that closed.
    (Loaded here, not for every tool call's record.)"""
    from rewind.history.background import start_gc, start_push
    from rewind.store.auto_gc import needs_packing, pack_in_background
    from rewind.store.backup_trigger import request_backup

    if needs_packing(store):
        pack_in_background(store, start_gc)
    if closed:  # an entry closed: back it up
        request_backup(store, start_push)


def is_copy_of_open_turn(head: SessionHead, prompt: str, now: float | None = None) -> bool:
    """Whether a prompt is the same delivery as the one that opened the session's open turn:
    the same words, within :data:`COPY_WINDOW` of its start, and nothing recorded in the turn
    yet (an agent runs every hook of a prompt before any tool; a turn that already changed
    files was sent again, after an interruption)."""
    entry = head.current
    if entry is None or not entry.is_open or entry.kind != TURN or entry.files:
        return False
    elapsed = (time.time() if now is None else now) - entry.started
    return entry.prompt == prompt and 0 <= elapsed <= COPY_WINDOW


def record_drift(store: Store, head: SessionHead) -> Entry | None:
    """Keeps the files the session recorded that changed since, outside rewind's sight, as one
    closed entry of external changes (from their last recorded state to their state now), so
    that the change is seen, can be undone, and a restore never overwrites it unrecorded.

    Returns that entry, or None when nothing drifted. The lock is held and no turn is open.
    """
    from rewind.history.recording.drift import changed_outside, recorded_states

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


def name_open_turn(store: Store, session_id: str, entry_id: str, prompt: str) -> bool:
    """Gives the open turn ``entry_id`` its prompt, when it has none yet: for an agent that
    tells its hooks the prompt only once the turn is under way (Cline's CLI). Only the open
    turn changes (its commit is amended, as every record does); a closed entry never does.
    Returns whether the turn was named."""
    with store.lock(), Settled(store, session_id) as head:
        entry = head.current
        if entry is None or entry.id != entry_id or not entry.is_open or entry.prompt:
            return False
        entry.prompt = valid_text(prompt)
        save_entry(store, head, entry, replace_tip=True)
    return True


def settled_head(store: Store, session: str | None) -> SessionHead:
    """The head of ``session`` (else ``$REWIND_SESSION``, else the project's most recent one)
    after closing its open turn, so that its last changes are recorded: what a restore, an
    undo or a plan of either starts from."""
    from rewind.history.sessions import resolve_session

    return closed_head(store, resolve_session(store, session))


def closed_head(store: Store, session_id: str) -> SessionHead:
    """The session's head once its open turn (if any) is closed, so that its last changes are
    recorded; a session that does not exist is a :class:`UserError`."""
    with store.lock(), Settled(store, session_id) as head:
        if head.current is None:
            raise UserError(f"there is no session {session_id!r}; 'rewind sessions' lists them.")
        close_open_turn(store, head)
    return head


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
    moves: dict[bytes, bytes] | None = None,
) -> dict[bytes, FileState]:
    """Records the state of ``paths`` before they change; the first record in a turn wins.

    ``known`` gives states taken otherwise (an agent that reported the text before its edit
    only afterwards); the other paths are read from disk. ``source`` says how rewind learnt of
    the change (an edit tool, the shell quicksave, watch mode) and is kept with each record.
    ``moves`` maps a destination to the path it is about to be moved from (kept as the
    destination's ``moved_from``).
    Returns the state taken now for each path. Directories and special files are returned but
    not recorded. A session or open turn that does not exist yet is started on the spot.

    The records are appended to the open turn's journal: the cost does not grow with the turn.
    """
    store.refuse_if_read_only()  # before any content is stored
    limit = store.config.max_file_size
    states = {}
    for path in dict.fromkeys(paths):
        state = known.get(path) if known else None
        states[path] = state or capture(store.root.absolute(path), limit, store.writer)
    for state in states.values():
        if state.kind in _NOTED_KINDS:
            store.note(_NOTED_KINDS[state.kind])
    now = time.time()
    changes = [
        FileChange(path, state, None, now, source, moves.get(path) if moves else None)
        for path, state in states.items()
        if state.kind not in NOT_TRACKABLE
    ]
    if changes:
        _append(store, session_id, journal.before_record(changes), agent, start=True)
    return states


def record_after_states(
    store: Store,
    session_id: str,
    paths: list[bytes],
    candidates: dict[bytes, FileState] | None = None,
) -> bool:
    """Records the current state of ``paths`` as their after-states in the open turn.

    ``candidates`` are states from before the change that an agent reported afterwards: each
    is used only for a path the turn has no earlier record of. Appended to the journal, like
    :func:`track`. False when no turn is open (nothing is recorded then).
    """
    store.refuse_if_read_only()  # before any content is stored
    limit = store.config.max_file_size
    after = {path: capture(store.root.absolute(path), limit, store.writer) for path in paths}
    record: dict[str, object] = {"after": journal.after_record(after)}
    if candidates:
        now = time.time()
        changes = [FileChange(path, state, None, at=now) for path, state in candidates.items()]
        record["before"] = journal.before_record(changes)["before"]
    return _append(store, session_id, record, "", start=bool(candidates))


def _append(
    store: Store, session_id: str, record: dict[str, object], agent: str, start: bool
) -> bool:
    """Appends ``record`` to the session's journal, starting a turn first if ``start`` and none
    is open. A record that cannot be appended in time is spooled, never dropped."""
    path = journal_path_of(store, session_id)
    for _ in range(_APPEND_ATTEMPTS):
        try:
            if journal.append(path, record):
                return True
        except journal.JournalBusy as error:
            _spool(store, path, record, str(error))
            return True
        if not start:
            return False
        try:
            _open_turn(store, session_id, agent)
        except UserError as error:  # the store busy or damaged: keep the record for later
            _spool(store, path, record, f"no turn could be started ({error})")
            return True
    _spool(store, path, record, "the turn kept ending while this record was appended")
    return True


_APPEND_ATTEMPTS = 5


def refuse_while_restore_waits(store: Store, session_id: str) -> None:
    """Refuses to start a turn on top of a restore of the session that was interrupted and is
    waiting to be finished (rewind.history.restore_journal): finishing it needs its entry to be
    the session's newest. Records that cannot wait for a turn are spooled meanwhile."""
    from rewind.history.restore_journal import restore_waiting

    if restore_waiting(store, session_id):
        raise UserError(
            f"a restore of session {session_id} was interrupted and waits to be finished, so no "
            "turn starts on top of it; the next rewind command finishes it ('rewind status' "
            "shows the log), or 'rewind undo' takes it back."
        )


def _spool(store: Store, path: str, record: dict[str, object], why: str) -> None:
    kept = journal.spool(path, record)
    store.note(hook_calls.SPOOLED)
    store.log_problem(f"{why}; the record was kept in {kept} and is picked up by the next turn")


def _open_turn(store: Store, session_id: str, agent: str) -> None:
    """Starts a turn (unless one is open) and its journal."""
    with store.lock(), Settled(store, session_id) as head:
        entry = head.current
        if entry is None or not entry.is_open:
            refuse_while_restore_waits(store, session_id)
            entry = _new_turn(head, "", agent, None)
            save_entry(store, head, entry, replace_tip=False)
        journal.create(journal_path_of(store, session_id), entry.id)


def record_after(
    store: Store, session_id: str, paths: list[bytes] | None = None, close: bool = False
) -> Entry | None:
    """Records the current state of the open turn's files (all, or ``paths``) as after-states.

    With ``close`` the turn ends. Returns the turn, or None when no turn is open.
    """
    with store.lock(), Settled(store, session_id) as head:
        entry = head.current
        if entry is None or not entry.is_open:
            return None
        _capture_after_states(store, entry, set(paths) if paths is not None else None)
        if close:
            entry.ended = time.time()
        save_entry(store, head, entry, replace_tip=True)
    if close:
        from rewind.history.background import start_push
        from rewind.store.backup_trigger import request_backup

        request_backup(store, start_push)
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
