"""The data behind the TUI's views, built from the engine and kept out of the widgets.

A session is read once and then only its new commits (an entry's commit never changes; the
tip is replaced), so a refresh after a hook wrote costs what the hook added. +/- line counts
are computed on demand and cached by the states they compare, because a 1,000-turn session
has thousands of file versions and diffing them all would hold up the first paint.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewind.actions.reading import session_undo_stack
from rewind.history.checkpoint import checkpoint_states, states_between
from rewind.history.entry import (
    EDIT,
    EXTERNAL,
    PROGRAM,
    RESTORING,
    SHELL,
    TURN,
    WATCH_AGENT,
    Entry,
    FileChange,
    first_line,
)
from rewind.history.filestate import TOO_LARGE, UNREADABLE, FileState
from rewind.history.index.queries import EntryIndex
from rewind.history.insight.diffs import (
    NO_PRE_IMAGE,
    PENDING,
    UNCHANGED,
    FileDiff,
    diff_states,
    diff_to_disk,
)
from rewind.history.insight.renames import renamed_change, renamed_in
from rewind.history.remote.fetched import fetched_sessions
from rewind.history.session import SessionHead, load_head
from rewind.history.sessions import all_labels, labels_of, list_sessions
from rewind.store.repository import Store

TURN_DIFF = "turn"  # what the turn changed
TO_NOW = "now"  # from the checkpoint before the turn to the files on disk now

SAFETY_NET_SESSIONS = {"git": "pre-commit"}
# How a file's change was caught, when not by an edit tool.
SOURCE_TAGS = {SHELL: "quicksave", EXTERNAL: "external", PROGRAM: "program"}


@dataclass(frozen=True)
class SessionRow:
    session_id: str
    agent: str
    last_active: float
    entries: int
    is_recent: bool


@dataclass(frozen=True)
class TurnRow:
    """One line of the timeline."""

    index: int  # position in the session's entries
    number: int
    entry_id: str
    started: float
    kind: str  # "turn", "restore", "undo", "redo", "pre-commit"
    title: str
    labels: tuple[str, ...]
    files: int
    is_open: bool
    paths: tuple[str, ...]  # for searching by path
    sources: tuple[str, ...] = ()  # SOURCE_TAGS of files not recorded by an edit tool


@dataclass(frozen=True)
class Counts:
    added: int
    removed: int
    binary: bool


@dataclass(frozen=True)
class FileRow:
    path: bytes
    shown: str
    status: str
    counts: Counts | None
    note: str  # why there is no diff, when there is none
    source: str = EDIT  # how rewind learnt of the change (an edit tool, the quicksave, ...)
    moved_from: bytes | None = None  # a rename: the path the file had (shown as one row)


@dataclass(frozen=True)
class DiffText:
    title: str
    text: str  # a unified diff, empty when ``note`` says why there is none
    note: str
    path: bytes = b""  # the diffed file, for the diff view to tell its language


def agent_of(index: EntryIndex, head: SessionHead) -> str:
    """The session's agent as ``rewind log`` names it: that of its newest turn naming one
    other than watch mode (``pre-commit`` for the git safety net's session)."""
    return index.agent(head, WATCH_AGENT) or SAFETY_NET_SESSIONS.get(head.session_id, "")


def session_agent(store: Store, session_id: str) -> str:
    with EntryIndex(store) as index:
        return agent_of(index, load_head(store, session_id))


def session_rows(store: Store) -> list[SessionRow]:
    """The project's sessions, the most recently active first."""
    rows = []
    with EntryIndex(store) as index:
        summaries = list(reversed(list_sessions(store)))
        agents = [agent_of(index, summary.head) for summary in summaries]
    for summary, agent in zip(summaries, agents, strict=True):
        entry = summary.head.current
        assert entry is not None
        rows.append(
            SessionRow(
                summary.head.session_id,
                agent,
                summary.mtime,
                entry.number,
                summary.is_recent,
            )
        )
    return rows


@dataclass(frozen=True)
class FetchedRow:
    """A session fetched from a remote, for the sessions screen."""

    remote: str
    machine: str
    view: Store  # the read-only view it is read through
    row: SessionRow


def fetched_rows(store: Store) -> list[FetchedRow]:
    """The sessions fetched from every remote of ``store``'s project, by remote (in name
    order), the most recently active first in each."""
    found = fetched_sessions(store)
    rows = []
    for fetched in sorted(reversed(found), key=lambda fetched: fetched.remote):  # stable
        head = fetched.summary.head
        assert head.current is not None
        with EntryIndex(fetched.view) as index:
            agent = agent_of(index, head)
        row = SessionRow(head.session_id, agent, fetched.last_active, head.current.number, False)
        rows.append(FetchedRow(fetched.remote, fetched.machine, fetched.view, row))
    return rows


@dataclass(frozen=True)
class SessionDetails:
    started: float
    files: int


def session_details(store: Store, session_id: str) -> SessionDetails:
    """When a session started and how many files it touched (from the index)."""
    with EntryIndex(store) as index:
        started, files = index.started_and_paths(load_head(store, session_id))
    return SessionDetails(started, files)


def entry_kind(entry: Entry) -> str:
    if entry.kind == TURN and entry.session in SAFETY_NET_SESSIONS:
        return SAFETY_NET_SESSIONS[entry.session]
    return entry.kind


def _title(entry: Entry) -> str:
    if entry.kind in RESTORING:
        return entry.prompt or entry.kind
    return first_line(entry.prompt) or "(no prompt)"


# How many of a session's newest entries are read at first; older ones are read a window at a
# time as the cursor reaches the top (so that a 10,000-entry session opens like a 1,000-entry one).
WINDOW = 1000


class SessionHistory:
    """One session's entries, the newest ``window`` of them at first, read incrementally, with
    cached diff counts."""

    def __init__(self, store: Store, session_id: str, window: int | None = None) -> None:
        self.store = store
        self.session_id = session_id
        self.window = window or WINDOW
        self.older = 0  # how many of the session's entries are older than those read
        self.entries: list[Entry] = []
        self._tip: tuple[str | None, str, int] | None = None  # the tip and the journal's size
        self.attached: dict[str, list[str]] = {}  # labels given later ('rewind label')
        self._counts: dict[tuple[object, ...], Counts] = {}
        self.undone: set[int] = set()  # the restores (and redos) an undo took back

    def reload(self) -> bool:
        """Reads what changed since the last call; True when anything did."""
        head = load_head(self.store, self.session_id)
        attached = labels_of(self.store, self.session_id)
        records = head.journal  # what hooks appended to the open turn since its commit
        tip = (head.tip, records.journal if records else "", len(records.records) if records else 0)
        if tip == self._tip and attached == self.attached:
            return False
        self._tip, self.attached = tip, attached
        with EntryIndex(self.store) as index:
            self.entries = self._read(index, head)
            self.undone = session_undo_stack(index, head).undone_restores()
        return True

    def _read(self, index: EntryIndex, head: SessionHead) -> list[Entry]:
        """The session's entries from the index: only those from the newest one read last
        time on, while the older ones are still the same; at first the newest window."""
        known = self.entries
        first = index.first_number(head)
        if known and first is not None and first <= known[0].number:
            tail = index.entries(head, known[-1].number)
            if tail and tail[0].number == known[-1].number:
                self.older = known[0].number - first
                return [*known[:-1], *tail]
        entries = index.newest(head, self.window)
        self.older = entries[0].number - first if entries and first is not None else 0
        return entries

    def load_older(self, everything: bool = False) -> int:
        """Reads a window more of the older entries (all of them with ``everything``), in front
        of those read; returns how many were added."""
        if not self.older or not self.entries:
            return 0
        head = load_head(self.store, self.session_id)
        oldest = self.entries[0].number
        with EntryIndex(self.store) as index:
            first = index.first_number(head) or oldest
            start = first if everything else max(first, oldest - self.window)
            added = index.entries(head, start, oldest - 1)
        self.entries = [*added, *self.entries]
        self.older = max(start - first, 0)
        return len(added)

    def rows(self) -> list[TurnRow]:
        return [self._row(index, entry) for index, entry in enumerate(self.entries)]

    def _row(self, index: int, entry: Entry) -> TurnRow:
        return TurnRow(
            index,
            entry.number,
            entry.id,
            entry.started,
            entry_kind(entry),
            ("(undone) " if entry.number in self.undone else "") + _title(entry),
            tuple(all_labels(entry, self.attached)),
            len(entry.files),
            entry.is_open,
            tuple(self.store.root.display(change.path) for change in entry.files),
            tuple(
                SOURCE_TAGS[source]
                for source in SOURCE_TAGS
                if any(change.source == source for change in entry.files)
            ),
        )

    # counts ------------------------------------------------------------------------------

    def change_counts(self, change: FileChange) -> Counts | None:
        """+/- lines of one change (None when there is nothing to count)."""
        key = (change.path, _state_key(change.before), _state_key(change.after))
        cached = self._counts.get(key)
        if cached is not None:
            return cached
        status_only = FileDiff(change.path, change.before, change.after)
        if no_diff_note(change.before, change.after, status_only):
            return None
        diff = diff_states(self.store, change.path, change.before, change.after, with_text=False)
        counts = Counts(diff.added, diff.removed, diff.binary)
        self._counts[key] = counts
        return counts

    def entry_counts(self, index: int) -> Counts:
        """+/- lines over every file of an entry."""
        added = removed = 0
        binary = False
        for change in self.entries[index].files:
            counts = self.change_counts(change)
            if counts is not None:
                added += counts.added
                removed += counts.removed
                binary = binary or counts.binary
        return Counts(added, removed, binary)

    # files and diffs ---------------------------------------------------------------------

    def file_rows(self, index: int) -> list[FileRow]:
        """One row per file the entry touched; a rename (a file created with the name it was
        moved from, which the entry deleted) is one row, ``R``, diffed old to new."""
        entry = self.entries[index]
        renames = renamed_in(entry)
        rows = []
        for change in entry.files:
            if change.path in renames.values():
                continue  # shown with the name it went to
            old = renames.get(change.path)
            if old is not None:
                change = renamed_change(entry, change, old)
            diff = FileDiff(change.path, change.before, change.after)
            shown = self.store.root.display(change.path)
            rows.append(
                FileRow(
                    change.path,
                    f"{self.store.root.display(old)} → {shown}" if old is not None else shown,
                    RENAMED if old is not None else diff.status,
                    self.change_counts(change),
                    no_diff_note(change.before, change.after, diff),
                    change.source,
                    old,
                )
            )
        return rows

    def diff_text(self, index: int, path: bytes, mode: str) -> DiffText:
        entry = self.entries[index]
        change = entry.file(path)
        shown = self.store.root.display(path)
        if change is None:
            return DiffText(shown, "", "this entry did not touch the file", path)
        if mode == TO_NOW and self.store.read_only:
            # A fetched session changed another work tree than this one (as 'rewind diff
            # --remote'): from the checkpoint to where the session ended.
            title = f"{shown}: from before {entry.kind} {entry.number} to the session's end"
            start, end = states_between(self.entries, index, len(self.entries))[path]
            diff = diff_states(self.store, path, start, end, with_text=True)
            return diff_text_of(title, start, end, diff)
        if mode == TO_NOW:
            old = checkpoint_states(self.entries, index).get(path, change.before)
            title = f"{shown}: from before {entry.kind} {entry.number} to now"
            if old is None:
                return DiffText(
                    title,
                    "",
                    "no pre-image, not rewindable: rewind saw this file only afterwards",
                    path,
                )
            diff = diff_to_disk(self.store, path, old)
            return diff_text_of(title, old, diff.new, diff)
        title = f"{shown}: what {entry.kind} {entry.number} changed"
        old_path = renamed_in(entry).get(path)
        if old_path is not None:
            change = renamed_change(entry, change, old_path)
            title = f"{shown}: renamed from {self.store.root.display(old_path)} by "
            title += f"{entry.kind} {entry.number}"
        diff = diff_states(self.store, path, change.before, change.after, with_text=True)
        return diff_text_of(title, change.before, change.after, diff)


# The status of a rename's one row (rewind.tui.file_list shows it as R).
RENAMED = "renamed"


def diff_text_of(
    title: str, old: FileState | None, new: FileState | None, diff: FileDiff
) -> DiffText:
    note = no_diff_note(old, new, diff)
    if note:
        return DiffText(title, "", note, diff.path)
    if diff.binary:
        return DiffText(title, "", f"binary file ({diff.status}): no text diff to show", diff.path)
    if not diff.text:
        return DiffText(title, "", "no difference", diff.path)
    return DiffText(title, diff.text, "", diff.path)


def _state_key(state: FileState | None) -> tuple[object, ...] | None:
    if state is None:
        return None
    return (state.kind, state.oid, state.mode, state.xxh, state.size)


def no_diff_note(old: FileState | None, new: FileState | None, diff: FileDiff) -> str:
    """Why a change has no diff to show, or ''."""
    status = diff.status
    if status == PENDING:
        return "the turn is still open: its after-state is not recorded yet"
    if status == NO_PRE_IMAGE:
        return "no pre-image, not rewindable: rewind saw this file only after it changed"
    if status == UNCHANGED:
        return "unchanged"
    for state in (old, new):
        if state is not None and state.kind == TOO_LARGE:
            return "too large: recorded without its content (max_file_size), so no diff"
        if state is not None and state.kind == UNREADABLE:
            return "unreadable: recorded without its content, so no diff"
    return ""
