"""What an adapter works with: the event's payload, the project's store, and the actions that
map events onto turns, all tolerant of events that arrive out of order. A shell call's before-
and after-event find each other through :mod:`rewind.hooks.pending_shell_calls`, and tell the
project's watcher when the call begins and ends (:mod:`rewind.watch.capture`), so that what
its programs change is recorded in the turn too."""

from __future__ import annotations

import os

from rewind.actions.stores import open_store
from rewind.errors import UserError
from rewind.history.entry import EDIT, SHELL, TURN, valid_text
from rewind.history.recording.turns import (
    TRACK_PROBLEMS,
    begin,
    name_open_turn,
    record_after,
    record_after_states,
    track,
)
from rewind.history.session import load_head
from rewind.hooks.project import project_root
from rewind.store import hook_calls
from rewind.store.event_log import STATS_DIR
from rewind.store.failure_log import STORE_LOG, describe_hook_failure, log_hook_problem
from rewind.store.fastjson import load_object
from rewind.store.repository import Store, StoreBusy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from rewind.history.conversation.cut_point import CutPoint
    from rewind.history.filestate import FileState


# Agents kill hooks that outlive their timeout (Claude Code's default for ours: 30 s); waiting
# for the store lock gives up sooner (and the journal's lock after 5 s more, at worst), so that
# the records are spooled and the wait logged rather than the hook killed and the records lost.
LOCK_TIMEOUT = 15.0


class HookContext:
    """One hook invocation: ``payload`` is the event, ``store`` the project's once opened."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self.payload: dict[str, object] = {}
        self.store: Store | None = None
        # Set by the resident recorder for an event a hook's process handed over
        # (rewind.resident.server): called once the event is known to be a tool call's end,
        # which no agent is answered anything for, so that the process can end while the
        # after-states are recorded.
        self.on_tool_call_end: Callable[[], None] | None = None

    def read_payload(self, text: str) -> None:
        if not text.strip():
            raise ValueError("the event had no payload")
        self.payload = load_object(text)

    # payload fields ------------------------------------------------------------------------

    def text(self, *keys: str) -> str:
        """The first of ``keys`` that holds a non-empty string (payload shapes vary)."""
        for key in keys:
            value = self.payload.get(key)
            if isinstance(value, str) and value:
                return value
        return ""

    def mapping(self, key: str) -> dict[str, object]:
        value = self.payload.get(key)
        return value if isinstance(value, dict) else {}

    def session_id(self, *keys: str, given: str = "") -> str:
        """The agent's session id (``given``, else the first of ``keys``); without one, the
        project's most recent session (or a new one), so that events of an agent that sends
        no id still land in one session."""
        found = valid_text(given or self.text(*keys))  # an id that is not Unicode cannot be stored
        if found:
            return found
        assert self.store is not None
        from rewind.history.sessions import resolve_session

        return resolve_session(self.store, None, create=True)

    # the store -----------------------------------------------------------------------------

    def open_store(
        self,
        directory: str,
        project_dirs: Iterable[str] = (),
        session_keys: Iterable[str] = (),
        session: str = "",
    ) -> Store:
        """Opens the store of the project the event belongs to (:mod:`rewind.hooks.project`):
        ``project_dirs`` are the directories the agent names as its project, ``session_keys``
        the payload keys of its session id (or ``session``, the id the adapter read)."""
        start = os.fsencode(directory) if directory else os.getcwdb()
        if not os.path.isdir(start):
            raise UserError(f"the event's directory {directory!r} does not exist")
        root = project_root(start, project_dirs, valid_text(session or self.text(*session_keys)))
        self.store = open_store(root, create=True, lock_timeout=LOCK_TIMEOUT)
        return self.store

    def stored_names(self, paths: list[str], base: str) -> list[bytes]:
        """The recordable names of ``paths`` (relative ones are relative to ``base``); a path
        rewind must not record (outside the root, inside .git) is logged and left out."""
        assert self.store is not None
        names = []
        for path in paths:
            try:
                names.append(self.store.root.stored_name(path, cwd=os.fsencode(base or ".")))
            except UserError as error:
                self.log(f"{self.agent}: not recorded: {error}")
        return names

    def stored_moves(
        self, moves: dict[str, str] | dict[bytes, bytes], base: str, names: list[bytes]
    ) -> dict[bytes, bytes]:
        """``moves`` (destination: source) by recorded names, both ends among ``names``."""
        assert self.store is not None
        found = {}
        cwd = os.fsencode(base or ".")
        for destination, source in moves.items():
            try:
                pair = [self.store.root.stored_name(end, cwd=cwd) for end in (destination, source)]
            except UserError:
                continue
            if pair[0] in names and pair[1] in names and pair[0] != pair[1]:
                found[pair[0]] = pair[1]
        return found

    # actions -------------------------------------------------------------------------------

    def start_turn(
        self,
        session: str,
        prompt: str,
        cut: Callable[[HookContext], CutPoint | None] | None = None,
        unless_open: bool = False,
        unless_begun_since: float | None = None,
    ) -> None:
        """Starts the next turn; the same prompt delivered again (rewind's hooks installed twice,
        or run by two agents) starts nothing. ``cut`` takes where the agent's conversation
        stands (rewind.hooks.conversation_cuts); one that cannot be taken is logged. What the
        project's watcher saw change since the last turn is recorded first (by hand, between
        the prompts: a turn of its own). ``unless_open``: for an event that begins a turn only
        when none is open (a run's first tool call, where the agent sends no prompt), an
        agent's turn another process opened meanwhile (the same hook installed twice, run at
        once) is kept: the check is made again under the store's lock. ``unless_begun_since``:
        for an event that begins a turn for a prompt sent at that time, an agent's turn begun
        since (by the same event delivered twice, open or ended already) is kept, also decided
        under the lock."""
        from rewind.watch import capture  # not for the edit tools' events

        assert self.store is not None
        capture.turn_begins(self.store, session, self.log)
        point = None
        if cut is not None:
            try:
                point = cut(self)
            except (OSError, ValueError) as error:
                self.log(f"the conversation's cut point was not taken: {error}")
        entry = begin(
            self.store,
            session,
            prompt=prompt,
            agent=self.agent,
            merge_copies=True,
            conversation=point.to_json() if point is not None else None,
            unless_open=unless_open,
            unless_begun_since=unless_begun_since,
        )
        if point is not None and self.store.config.conversation_keep:
            self._keep_slice(session, entry.id, point)
        from rewind.hooks import pending_shell_calls

        pending_shell_calls.remove_stale(self.store)

    def session_starts(self) -> None:
        """An agent's session begins: the project's watcher is started now, before any
        command runs, when none runs (never waited for)."""
        assert self.store is not None
        from rewind.watch import capture

        capture.ensure_watching(self.store, self.log)

    def _keep_slice(self, session: str, entry_id: str, point: CutPoint) -> None:
        """With ``[conversation] keep``: the transcript up to the cut, from where the last
        slice kept ends (rewind.history.kept_conversation). Copilot CLI's file has no offset
        (it writes late): nothing is kept of it. A failure is logged, never the hook's."""
        assert self.store is not None
        from rewind.history.kept_conversation import SLICED_AGENTS, keep_slice

        if point.offset is None or point.agent not in SLICED_AGENTS:
            return
        try:
            keep_slice(self.store, session, entry_id, point.transcript, point.offset)
        except Exception as error:  # keeping is never worth a failed hook
            self.log(f"the conversation was not kept: {error}")

    def name_turn(self, session: str, entry_id: str, prompt: str) -> None:
        """Names the open turn ``entry_id``, if it is still open and has no prompt yet."""
        assert self.store is not None
        name_open_turn(self.store, session, entry_id, prompt)

    def before_change(
        self,
        session: str,
        names: list[bytes],
        known: dict[bytes, FileState] | None = None,
        source: str = EDIT,
        moves: dict[bytes, bytes] | None = None,
    ) -> dict[bytes, FileState]:
        """Records the paths before they change; with no open turn, one is started. A path
        recorded without its content, or not at all (a directory), is logged. ``moves``: the
        path each destination of a move is moved from."""
        assert self.store is not None
        if not names:
            return {}
        states = track(
            self.store, session, names, agent=self.agent, known=known, source=source, moves=moves
        )
        for name, state in states.items():
            problem = TRACK_PROBLEMS.get(state.kind)
            if problem:
                self.log(f"{self.store.root.display(name)} {problem}")
        return states

    def has_open_turn(self, session: str) -> bool:
        """Whether an agent's turn is open in ``session``. The entry the watcher opens for
        changes made outside the agent (by hand, between two prompts) is none: the agent's
        next turn closes it and begins."""
        assert self.store is not None
        entry = load_head(self.store, session).current
        return entry is not None and entry.is_open and not entry.is_outside_agent

    def last_recorded(self, session: str, name: bytes) -> FileState | None:
        """The last state this session recorded for ``name``, in any turn."""
        from rewind.history.recording.drift import recorded_before_open_turn

        assert self.store is not None
        head = load_head(self.store, session)
        change = head.current.file(name) if head.current is not None else None
        if change is not None and change.latest is not None:
            return change.latest
        return recorded_before_open_turn(self.store, head).get(name)

    def is_tracked(self, session: str, name: bytes) -> bool:
        """Whether the open turn has already recorded ``name``."""
        assert self.store is not None
        entry = load_head(self.store, session).current
        return entry is not None and entry.is_open and entry.file(name) is not None

    def before_shell(
        self,
        session: str,
        command: str,
        directory: str,
        call: str,
        powershell: bool = False,
        pairing: str = "",
    ) -> None:
        """Records every file ``command`` may create, overwrite or delete (the quicksave), and
        leaves them for the matching after-event (:mod:`rewind.hooks.pending_shell_calls`):
        under ``call``, the tool call's id, or, for an agent that sends none, in a queue under
        ``pairing`` (the tool's name and input: its ``pairing_key``), so that each after-event
        takes the oldest before-event of the same call. ``powershell``: the command is
        PowerShell (rewind.quicksave.powershell)."""
        from rewind.quicksave import limits_from, paths_at_risk
        from rewind.watch import capture

        assert self.store is not None
        capture.shell_begins(self.store, session, call or pairing, self.agent, self.log)
        read, warnings = command, list[str]()
        if powershell:
            from rewind.quicksave.powershell import posix_equivalent

            read, warnings = posix_equivalent(command)
        plan = paths_at_risk(read, os.fsencode(directory or "."), limits_from(self.store.config))
        warnings.extend(plan.warnings)
        if warnings:
            self.log(f"quicksave of {_shortened(command)}: {'; '.join(warnings)}")
        names = self.stored_names([os.fsdecode(path) for path in plan.paths], directory)
        if not names:
            return
        self.before_change(
            session, names, source=SHELL, moves=self.stored_moves(plan.moves, directory, names)
        )
        if call or pairing:
            from rewind.hooks import pending_shell_calls

            pending_shell_calls.leave_for_after_event(self.store, names, call, pairing)

    def after_shell(self, session: str, call: str, pairing: str = "") -> None:
        """Records the after-states of what :meth:`before_shell` saved for ``call`` (or for
        the oldest waiting call of ``pairing``; with neither, of every file of the open
        turn)."""
        from rewind.watch import capture

        assert self.store is not None
        self._tool_call_ends()
        capture.shell_ends(self.store, session, call or pairing, self.log)
        if not call and not pairing:
            self.after_change(session)
            return
        from rewind.hooks import pending_shell_calls

        claimed = pending_shell_calls.claim(self.store, call, pairing)
        if claimed is None:
            return  # the command needed no quicksave
        self.after_change(session, claimed.names)
        claimed.release()

    def after_change(
        self,
        session: str,
        names: list[bytes] | None = None,
        candidates: dict[bytes, FileState] | None = None,
    ) -> None:
        """Records after-states (of ``names``, or of every file of the open turn).

        ``candidates`` are pre-images the agent reported only afterwards: each is kept only
        for a path the turn has no earlier record of.
        """
        assert self.store is not None
        self._tool_call_ends()
        if names is None:
            record_after(self.store, session)
        elif names:
            record_after_states(self.store, session, names, candidates)

    def _tool_call_ends(self) -> None:
        release, self.on_tool_call_end = self.on_tool_call_end, None
        if release is not None:
            release()

    def end_turn(self, session: str, reply: str = "", barrier: float | None = None) -> None:
        """Closes the open turn; with ``[conversation] keep``, keeps ``reply``, the agent's
        final reply to it (a failure to keep it is logged, never the hook's). ``barrier``: the
        most the watcher's barrier is waited for (rewind.watch.capture's bound by default),
        for an event the agent gives little time."""
        assert self.store is not None
        head = load_head(self.store, session)
        entry = head.current
        if head.journal is None and (entry is None or not entry.is_open):
            return  # ended already (a session's end after its last turn's): no barrier to wait
        if (
            reply
            and self.store.config.conversation_keep
            and entry is not None
            and entry.kind == TURN
        ):
            from rewind.history.kept_conversation import keep_reply

            try:
                keep_reply(self.store, session, entry.id, reply)
            except Exception as error:  # keeping is never worth a failed hook
                self.log(f"the reply was not kept: {error}")
        from rewind.watch import capture

        if barrier is None:
            capture.turn_ends(self.store, session, self.log)
        else:
            capture.turn_ends(self.store, session, self.log, barrier)
        record_after(self.store, session, close=True)

    # the log -------------------------------------------------------------------------------

    def log(self, message: str) -> None:
        """Writes ``message`` to the store's log, else to the first fallback that takes it
        (rewind.store.failure_log); never raises."""
        store_log = self.store.state_path(STORE_LOG) if self.store is not None else None
        log_hook_problem(f"hook {self.agent}: {message}", store_log)

    def log_failure(self, error: BaseException) -> None:
        """Logs why the event could not be handled, and counts it in the call's stats; never
        raises."""
        if self.store is not None:
            self.store.note(_failure_kind(error))
        try:
            event = self.text(*EVENT_KEYS) or "?"
            self.log(describe_hook_failure(event, error))
        except Exception:
            log_hook_problem(f"hook {self.agent}: an event failed: {error!r}")

    def record_call(self, seconds: float, via: str = "") -> None:
        """Appends this call's line to the stats of the store it used (none when it found no
        store): how long it took, what it could not do in full, and ``via``, how the event came
        when not as a process of its own. Never raises."""
        try:
            if self.store is None:
                return
            path = self.store.state_path(STATS_DIR, hook_calls.HOOK_CALLS)
            event = self.text(*EVENT_KEYS)[:EVENT_NAME_LENGTH]
            hook_calls.write_hook_call(
                path, seconds * 1000, self.agent, event, self.store.noted, via
            )
        except Exception:
            pass


def _failure_kind(error: BaseException) -> str:
    """How the stats count an event that failed: a lock not had in time, an event refused as
    given, or an error."""
    if isinstance(error, StoreBusy):
        return hook_calls.LOCK_TIMEOUT
    if isinstance(error, UserError | ValueError):
        return hook_calls.IGNORED
    return hook_calls.ERROR


# The payload keys that name the event, per agent's shape: Claude Code's and its followers',
# Codex notify's, Cline's, Windsurf's, and the events rewind's own plugins and extensions make
# (OpenCode's, Pi's).
EVENT_KEYS = ("hook_event_name", "type", "hookName", "agent_action_name", "event")
# How much of an agent's event name a stats line keeps.
EVENT_NAME_LENGTH = 40
# How much of a shell command a log line quotes (a command can be megabytes long).
LOGGED_COMMAND_LENGTH = 200


def _shortened(command: str) -> str:
    if len(command) <= LOGGED_COMMAND_LENGTH:
        return repr(command)
    rest = len(command) - LOGGED_COMMAND_LENGTH
    return f"{command[:LOGGED_COMMAND_LENGTH]!r} (and {rest} more characters)"
