"""Writing a batch of external changes into the session, under one hold of the store lock.

Each path's current state is read (and its content stored) before the lock is taken; under the
lock the session's newest entry is read again, so that what the agent's hooks, a restore or an
undo recorded meanwhile is taken into account:

- a path the open turn already holds only gets its after-state refreshed (the agent's own edit,
  recorded by its hooks, stays an edit), in that turn's session, whichever it is (two sessions
  may work at once, rewind.watch.observer finds the owner);
- a path whose state now is the last state the session recorded for it is not a change (a
  recorded edit seen again, a file a restore wrote);
- any other path is added to the open turn, with its pre-image (:mod:`rewind.watch.preimages`):
  as a program's change (``program``) when it happened during one of the agent's shell calls
  (into that call's session: rewind.watch.windows), else as an external one. With no turn
  open, a turn is started: the call's agent's for a program's change, else one of the agent
  ``watch``; the next ``rewind begin`` closes it like any turn.
"""

from __future__ import annotations

import time

from rewind.history.entry import (
    EXTERNAL,
    PROGRAM,
    TURN,
    WATCH_AGENT,
    Entry,
    FileChange,
    Unrecorded,
)
from rewind.history.filestate import (
    DIRECTORY,
    SPECIAL,
    TOO_LARGE,
    UNREADABLE,
    FileState,
    capture,
)
from rewind.history.recording.drift import recorded_before_open_turn
from rewind.history.session import (
    SessionHead,
    Settled,
    load_head,
    new_entry_id,
    save_entry,
)
from rewind.history.sessions import resolve_session
from rewind.store.repository import Store
from rewind.watch.preimages import PreImages

WATCH_PROMPT = "changes outside the agent"
NOT_RECORDED = frozenset({DIRECTORY, SPECIAL})
# Kinds with nothing more to compare than the kind.
NOT_COMPARED = frozenset({DIRECTORY, SPECIAL, UNREADABLE})


class Change:
    """One path handed over by the coalescer, with its state now and when its first and last
    events came (``time.monotonic()``)."""

    __slots__ = ("created", "first", "last", "missing_dirs", "path", "state")

    def __init__(
        self,
        path: bytes,
        created: bool,
        missing_dirs: int,
        state: FileState,
        first: float = 0.0,
        last: float = 0.0,
    ) -> None:
        self.path = path
        self.created = created
        self.missing_dirs = missing_dirs
        self.state = state
        self.first = first
        self.last = last


class Recorded:
    """What one batch did: (letter, path) per change recorded, for the foreground's output."""

    __slots__ = ("changes", "session")

    def __init__(self, session: str) -> None:
        self.session = session
        self.changes: list[tuple[str, bytes]] = []


class Recorder:
    def __init__(self, store: Store, session: str | None, preimages: PreImages) -> None:
        self.store = store
        self.fixed_session = session  # None: the project's most recent session, at each batch
        self.preimages = preimages
        self._base_key: tuple[str, str | None, bool] | None = None
        self._base: dict[bytes, FileState] = {}
        self._open: dict[bytes, FileState] = {}

    def session_id(self) -> str:
        return self.fixed_session or resolve_session(self.store, None, create=True)

    def prime(self) -> None:
        """Reads what the session recorded so far (at start, so that :meth:`known` knows)."""
        head = load_head(self.store, self.session_id())
        if head.current is not None:
            self._refresh_base(head)
            current = head.current
            self._open = {c.path: c.latest for c in current.files if c.latest is not None}
            if not current.is_open:
                self._open = {}

    def known(self, path: bytes) -> bool:
        """Whether the session has recorded ``path`` (as of the last batch; no lock taken)."""
        return path in self._open or path in self._base

    def capture(
        self, path: bytes, created: bool, missing_dirs: int, first: float = 0.0, last: float = 0.0
    ) -> Change:
        limit = self.store.config.max_file_size
        state = capture(self.store.root.absolute(path), limit, self.store.writer)
        return Change(path, created, missing_dirs, state, first, last)

    def record(
        self,
        changes: list[Change],
        unrecorded: list[Unrecorded] | None = None,
        program_of: tuple[str, str] | None = None,
    ) -> Recorded:
        """Records ``changes`` (and storm summaries) in one commit of the session; with
        ``program_of`` (a session and its agent), as changes a program of that session's
        shell call made, in that session (with no agent: in that session, whose open turn
        holds them, as any change)."""
        session = program_of[0] if program_of is not None else self.session_id()
        done = Recorded(session)
        agent_of_call = program_of[1] if program_of is not None else ""
        source = PROGRAM if agent_of_call else EXTERNAL
        with self.store.lock(), Settled(self.store, session) as head:
            self._refresh_base(head)
            entry = head.current
            starting = entry is None or not entry.is_open
            if starting:
                prompt, agent = (
                    ("", agent_of_call) if agent_of_call else (WATCH_PROMPT, WATCH_AGENT)
                )
                entry = Entry(
                    session,
                    head.next_number,
                    new_entry_id(),
                    TURN,
                    prompt,
                    agent,
                    started=time.time(),
                )
            assert entry is not None
            in_turn = {change.path: change for change in entry.files}
            for change in changes:
                if not self._still(change):
                    continue  # changed again since it was read: its next event brings it
                letter = self._apply(entry, in_turn, change, source)
                if letter:
                    done.changes.append((letter, change.path))
            if unrecorded:
                entry.unrecorded.extend(unrecorded)
            if done.changes or unrecorded:
                save_entry(self.store, head, entry, replace_tip=not starting)
            self._open = {c.path: c.latest for c in entry.files if c.latest is not None}
        return done

    def open_turn_owners(self, paths: set[bytes]) -> dict[bytes, str]:
        """The session whose open turn holds each of ``paths`` (its agent's hooks recorded it),
        when one does."""
        from rewind.history.index.sync import open_turns

        if not paths:
            return {}
        return {
            change.path: entry.session
            for entry in open_turns(self.store)
            if entry.is_open
            for change in entry.files
            if change.path in paths
        }

    def _still(self, change: Change) -> bool:
        """Whether the path still holds what was read before the lock was taken: a restore or
        an undo may have written it since (and recorded that, which the session now says)."""
        now = capture(self.store.root.absolute(change.path), self.store.config.max_file_size)
        if now.kind != change.state.kind:
            return False
        return now.kind in NOT_COMPARED or now.same_as(change.state)

    def _apply(
        self, entry: Entry, in_turn: dict[bytes, FileChange], change: Change, source: str
    ) -> str:
        """Adds or refreshes one path; returns a letter for people ('' when nothing changed)."""
        state = change.state
        if state.kind in NOT_RECORDED:
            return ""
        if state.kind == TOO_LARGE:
            self.store.log_problem(
                f"watch: {self.store.root.display(change.path)} is larger than max_file_size: "
                "recorded without its content, so this change cannot be rewound"
            )
        existing = in_turn.get(change.path)
        if existing is not None:
            latest = existing.latest
            if latest is not None and latest.same_as(state):
                return ""
            existing.after = state
            return "~"
        recorded = self._base.get(change.path)
        if recorded is not None and recorded.same_as(state):
            return ""
        before = self.preimages.before(
            change.path, change.created, recorded, change.missing_dirs, change.first
        )
        if before.same_as(state):
            return ""
        added = FileChange(change.path, before, state, at=time.time(), source=source)
        entry.files.append(added)
        in_turn[change.path] = added
        if before.kind == "absent":
            return "A"
        return "D" if state.kind == "absent" else "M"

    def _refresh_base(self, head: SessionHead) -> None:
        """The last state of every path in the session's entries but the open turn, read
        again only when the session has moved on since the last batch."""
        is_open = head.current is not None and head.current.is_open
        key = (head.session_id, head.parent if is_open else head.tip, is_open)
        if key == self._base_key:
            return
        self._base = recorded_before_open_turn(self.store, head)
        self._base_key = key
