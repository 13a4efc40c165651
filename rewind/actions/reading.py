"""Reading the history: what ``rewind log``, ``show``, ``diff``, ``history`` and ``blame``
answer, as typed outcomes. The command line prints them (or their records, with ``--json``),
the MCP server answers them to the agent; both read them here, in the same process.

A request names the project by a directory in it (``cwd``, the current one when None), and its
paths are relative to that directory. Nothing here writes to a file of the project; a read may
finish a restore that was interrupted (rewind.history.restoring.opening), as any command does.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from rewind.actions.projects import (
    has_session,
    local_session,
    project_root,
    recorded_store,
    store_to_read,
)
from rewind.actions.when import parse_since
from rewind.errors import StoreError, UserError
from rewind.history.attribution.note_blame import NotedLine
from rewind.history.checkpoint import states_between
from rewind.history.conversation.cut_point import CutPoint
from rewind.history.entry import REDO, RESTORE, TURN, WATCH_AGENT, Entry, FileChange
from rewind.history.index.queries import EntryIndex
from rewind.history.insight.blame import Blame, blame_file
from rewind.history.insight.diffs import FileDiff, diff_states, diff_to_disk, entry_diffs
from rewind.history.insight.file_history import OUTSIDE, Version, file_versions
from rewind.history.insight.line_counts import LineCounts
from rewind.history.kept_conversation import kept_reply
from rewind.history.lookup import entries_between, find
from rewind.history.restoring.extract import extract
from rewind.history.restoring.opening import open_store
from rewind.history.restoring.partial import FileHunks, turn_hunks
from rewind.history.restoring.undo_stack import UndoStack, session_undo_stack, undo_stack
from rewind.history.session import SessionHead, load_head, require_existing
from rewind.history.sessions import (
    all_labels,
    labels_of,
    refuse_damaged,
)
from rewind.store.repository import Store

# Above this many entries, every known line count is read from the index at once.
PRELOAD_COUNTS_FROM = 200


# -- log --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LogRequest:
    """``rewind log``: a session's entries (``path``: every session's entries that recorded
    it), the newest ``max_count``, since a time people type (rewind.actions.when), with a
    prompt or label holding ``grep``. ``missing_ok``: nothing recorded yet is no entries."""

    session: str | None = None
    since: str | None = None
    grep: str | None = None
    path: str | None = None
    max_count: int | None = None
    remote: str | None = None
    cwd: bytes | None = None
    missing_ok: bool = False


@dataclass(frozen=True)
class LoggedEntry:
    """One entry of a log: its labels, whether an undo took it back, its files' diffs (their
    line counts, kept in the index once counted)."""

    entry: Entry
    labels: list[str]
    undone: bool
    counts: LineCounts

    def diffs(self) -> list[FileDiff]:
        return self.counts.diffs(self.entry)

    def diff(self, change: FileChange) -> FileDiff:
        return self.counts.diff(change.path, change.before, change.after)


@dataclass
class Log:
    """What ``rewind log`` lists. ``entries`` is read as it is iterated, while the log is open
    (:func:`read_log`); a path's log names no session (``head`` is None)."""

    store: Store | None
    title: str
    only: bytes | None
    head: SessionHead | None
    damaged: list[int]
    entries: Iterable[LoggedEntry]
    _undone: _Undone | None = None

    def redo(self) -> tuple[Entry, Entry] | None:
        """What ``rewind redo`` would put back (the restore, and the undo that took it back),
        when anything."""
        if self.head is None or self._undone is None:
            return None
        stack = self._undone.stack(self.head)
        undo = stack.next_redo()
        return None if undo is None else (stack.restore_of(undo), undo)


@contextmanager
def read_log(request: LogRequest) -> Iterator[Log]:
    """The log asked for, open for reading (its line counts saved to the index at the end)."""
    after = parse_since(request.since) if request.since is not None else None
    chosen: str | None = None
    if request.remote is not None:
        if request.path is not None:
            raise UserError("--path reads this project's own sessions; leave out --remote.")
        store, chosen = store_to_read(request.session, request.remote, request.cwd)
    elif request.missing_ok:
        recorded = recorded_store(request.cwd)
        if recorded is None or (
            request.path is None and not has_session(recorded, request.session)
        ):
            yield Log(None, "", None, None, [], ())
            return
        store = recorded
    else:
        store = open_store(project_root(request.cwd))
    with EntryIndex(store) as index:
        labels = _Labels(store)
        undone = _Undone(store, index)
        preload = request.max_count is None or request.max_count > PRELOAD_COUNTS_FROM
        counts = LineCounts(store, index, preload=preload)
        rows: Iterable[Entry]
        if request.path is not None:
            name = store.root.stored_name(request.path, cwd=request.cwd)
            rows = _path_history(index, labels, name, after, request.grep, request.max_count)
            log = Log(
                store,
                f"every entry that recorded {store.root.display(name)}",
                name,
                None,
                [],
                (),
                undone,
            )
        else:
            head = require_existing(store, chosen or local_session(store, request.session))
            index.sync(head)
            damaged = index.damaged_numbers(head, -(2**62))
            current = head.current
            assert current is not None
            grep = request.grep
            ids = labels.matching(head.session_id, grep) if grep is not None else ()
            found = index.query(
                [head.session_id], since=after, grep=grep, ids=ids, newest=request.max_count
            )
            rows = (current if entry.number == current.number else entry for entry in found)
            agent = index.agent(head, WATCH_AGENT)
            title = f"session {head.session_id}" + (f" ({agent})" if agent else "")
            log = Log(store, title, None, head, damaged, (), undone)
        log.entries = (
            LoggedEntry(entry, labels.of(entry), undone.of(entry), counts) for entry in rows
        )
        try:
            yield log
        finally:
            counts.save()


class _Labels:
    """The labels given with 'rewind label', read once per session."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.by_session: dict[str, dict[str, list[str]]] = {}

    def attached(self, session: str) -> dict[str, list[str]]:
        if session not in self.by_session:
            self.by_session[session] = labels_of(self.store, session)
        return self.by_session[session]

    def of(self, entry: Entry) -> list[str]:
        return all_labels(entry, self.attached(entry.session))

    def matching(self, session: str, text: str) -> list[str]:
        wanted = text.lower()
        return [
            entry_id
            for entry_id, names in self.attached(session).items()
            if any(wanted in name.lower() for name in names)
        ]


class _Undone:
    """Where each session stands among its restores (rewind.history.restoring.undo_stack),
    read once per session."""

    def __init__(self, store: Store, index: EntryIndex) -> None:
        self.store = store
        self.index = index
        self.stacks: dict[str, UndoStack] = {}

    def stack(self, head: SessionHead) -> UndoStack:
        if head.session_id not in self.stacks:
            self.stacks[head.session_id] = session_undo_stack(self.index, head)
        return self.stacks[head.session_id]

    def of(self, entry: Entry) -> bool:
        """Whether ``entry`` is a restore (or redo) an undo took back."""
        if entry.kind not in (RESTORE, REDO):
            return False
        if entry.session not in self.stacks:
            self.stack(load_head(self.store, entry.session))
        return entry.number in self.stacks[entry.session].undone_restores()


def _path_history(
    index: EntryIndex,
    labels: _Labels,
    name: bytes,
    since: float | None,
    grep: str | None,
    count: int | None,
) -> list[Entry]:
    """Every entry of every session that recorded ``name``, oldest first; open turns as their
    journals have them."""
    open_turns = {(entry.session, entry.number): entry for entry in index.sync_all()}
    found = {
        (entry.session, entry.number): entry
        for entry in index.query(None, since=since, grep=grep, path=name)
    }
    for key, entry in open_turns.items():
        if key in found or entry.file(name) is not None:
            found[key] = entry
    entries = [
        entry
        for entry in found.values()
        if entry.file(name) is not None
        and (since is None or entry.started >= since)
        and (grep is None or _matches(entry, grep, labels))
    ]
    entries.sort(key=lambda entry: (entry.started, entry.session, entry.number))
    return entries[-count:] if count is not None else entries


def _matches(entry: Entry, grep: str, labels: _Labels) -> bool:
    wanted = grep.lower()
    return wanted in entry.prompt.lower() or any(
        wanted in label.lower() for label in labels.of(entry)
    )


# -- show -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShowRequest:
    """``rewind show TURN``: what one entry did (``path``: to that file, as numbered hunks)."""

    turn: str
    session: str | None = None
    path: str | None = None
    remote: str | None = None
    cwd: bytes | None = None


@dataclass(frozen=True)
class Shown:
    """One entry: its labels, its files' diffs with their text, the agent's conversation where
    it stood (``resume``), and the agent's final reply when it was kept."""

    store: Store
    session: str
    entry: Entry
    labels: list[str]
    diffs: list[FileDiff]
    conversation: CutPoint | None
    reply: str | None


@dataclass(frozen=True)
class ShownHunks:
    """One file of one entry as numbered hunks: what ``restore --hunks`` takes."""

    store: Store
    entry: Entry
    path: bytes
    hunks: FileHunks


def show(request: ShowRequest) -> Shown | ShownHunks:
    store, session_id = store_to_read(request.session, request.remote, request.cwd)
    head = require_existing(store, session_id)
    entry = find(store, head, request.turn)
    if entry.is_damaged:
        raise StoreError(
            f"entry {entry.number} of session {entry.session} cannot be shown, it is a "
            f"{entry.prompt}; '{store.check_command}' lists every damaged entry."
        )
    if request.path is not None:
        name = store.root.stored_name(request.path, cwd=request.cwd)
        return ShownHunks(store, entry, name, turn_hunks(store, entry, name))
    return Shown(
        store,
        session_id,
        entry,
        all_labels(entry, labels_of(store, head.session_id)),
        entry_diffs(store, entry, with_text=True),
        CutPoint.from_json(entry.conversation),
        _reply(store, entry),
    )


def _reply(store: Store, entry: Entry) -> str | None:
    """The agent's final reply to the turn, when it was kept ([conversation] keep; in a
    fetched session, when its machine shared it: [conversation] share, with what is private
    on this machine taken out)."""
    if entry.kind != TURN:
        return None
    reply = kept_reply(store, entry.session, entry.id)
    if reply is None or not store.read_only:
        return reply
    from rewind.history.remote.shared_conversation import redacted_reply  # fetched only

    return redacted_reply(store, entry.session, reply)


# -- diff -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffRequest:
    """``rewind diff [TURN [TURN2]]``: from the checkpoint before ``turn`` (the newest entry
    when None) to the one before ``turn2``, or to the files now (for a fetched session, to
    where it ended)."""

    turn: str | None = None
    turn2: str | None = None
    session: str | None = None
    remote: str | None = None
    cwd: bytes | None = None


@dataclass(frozen=True)
class Diff:
    store: Store
    session: str
    start: Entry
    stop: Entry | None  # None: to the files as they are
    files: list[FileDiff]


def diff(request: DiffRequest) -> Diff:
    store, session_id = store_to_read(request.session, request.remote, request.cwd)
    head = require_existing(store, session_id)
    assert head.current is not None
    newest = head.current.number
    first = find(store, head, request.turn).number if request.turn else newest
    second = find(store, head, request.turn2).number if request.turn2 is not None else first
    entries = entries_between(store, head, min(first, second), newest)
    numbers = [entry.number for entry in entries]
    start = numbers.index(first)
    if request.turn2 is None:
        refuse_damaged(store, entries, start, "this diff")
        between = states_between(entries, start, len(entries))
        if store.read_only:  # a fetched session: to where it ended, not to this work tree,
            # which is not the one it changed
            files = [diff_states(store, path, old, new) for path, (old, new) in between.items()]
        else:
            files = [diff_to_disk(store, path, old) for path, (old, _) in between.items()]
        return Diff(store, head.session_id, entries[start], None, files)
    stop = numbers.index(second)
    start, stop = min(start, stop), max(start, stop)
    refuse_damaged(store, entries, start, "this diff")
    files = [
        diff_states(store, path, old, new)
        for path, (old, new) in states_between(entries, start, stop).items()
    ]
    return Diff(store, head.session_id, entries[start], entries[stop], files)


# -- history and blame --------------------------------------------------------------------------


@dataclass(frozen=True)
class FileHistory:
    """Every recorded version of one file, newest first (``store`` None: nothing recorded
    yet)."""

    store: Store | None
    path: bytes
    versions: list[Version]


def file_history(
    path: str, max_count: int | None = None, cwd: bytes | None = None, missing_ok: bool = False
) -> FileHistory:
    """``rewind history PATH``; ``missing_ok``: nothing recorded yet is no versions."""
    store = recorded_store(cwd) if missing_ok else open_store(project_root(cwd))
    if store is None:
        return FileHistory(None, os.fsencode(path), [])
    name = store.root.stored_name(path, cwd=cwd)
    versions = file_versions(store, name)
    return FileHistory(store, name, versions[:max_count] if max_count is not None else versions)


@dataclass(frozen=True)
class Blamed:
    store: Store
    blame: Blame
    # The lines rewind's record does not explain that a commit's authorship note does, by
    # number (rewind.history.attribution.note_blame); empty where the repository has no notes.
    noted: dict[int, NotedLine] = field(default_factory=dict)


def blame(path: str, cwd: bytes | None = None) -> Blamed:
    """``rewind blame PATH``: for every line of the file now, the version that last changed
    it; the lines no recorded version explains, from the commits' authorship notes."""
    from rewind.history.attribution.note_blame import has_notes, noted_lines

    root = project_root(cwd)
    notes = has_notes(root)
    store = open_store(root, create=notes)  # notes answer where nothing was recorded here
    name = store.root.stored_name(path, cwd=cwd)
    blamed = blame_file(store, name, allow_unrecorded=notes)
    if not notes:
        return Blamed(store, blamed)
    wanted = {
        number
        for run in blamed.runs
        if run.version is None or run.version.source == OUTSIDE
        for number in range(run.start, run.start + run.count)
    }
    return Blamed(store, blamed, noted_lines(root, name, wanted))


__all__ = [
    "Blamed",
    "Diff",
    "DiffRequest",
    "FileHistory",
    "Log",
    "LogRequest",
    "LoggedEntry",
    "ShowRequest",
    "Shown",
    "ShownHunks",
    "UndoStack",
    "blame",
    "diff",
    "extract",
    "file_history",
    "read_log",
    "session_undo_stack",
    "show",
    "undo_stack",
]
