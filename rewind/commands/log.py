from __future__ import annotations

import json
import sys
from collections.abc import Iterable

from rewind.commands.output.json_output import FORMAT, has_session, recorded_store
from rewind.commands.output.records_json import entry_json
from rewind.commands.output.render import PROMPT_WIDTH, file_summary, local_time, paint, use_colour
from rewind.commands.parsing.reading import local_session, print_fetched_safely, session_to_read
from rewind.commands.parsing.when import parse_since
from rewind.errors import UserError
from rewind.history.entry import REDO, RESTORE, TURN, WATCH_AGENT, Entry, first_line
from rewind.history.index.queries import EntryIndex
from rewind.history.insight.line_counts import LineCounts
from rewind.history.restoring.opening import open_current_store
from rewind.history.restoring.undo_stack import UndoStack
from rewind.history.session import SessionHead, load_head, require_existing
from rewind.history.sessions import all_labels, labels_of
from rewind.store.repository import Store
from rewind.watch.bursts import describe_unrecorded

# Above this many entries, every known line count is read from the index at once.
PRELOAD_COUNTS_FROM = 200


def run(
    *,
    session: str | None,
    as_json: bool,
    max_count: int | None = None,
    since: str | None = None,
    grep: str | None = None,
    path: str | None = None,
    remote: str | None = None,
) -> int:
    after = parse_since(since) if since is not None else None
    chosen: str | None = None
    if remote is not None:
        if path is not None:
            raise UserError("--path reads this project's own sessions; leave out --remote.")
        store, chosen = session_to_read(session, remote)
        print_fetched_safely()
    elif as_json:  # nothing recorded yet is an empty list, not an error
        recorded = recorded_store()
        if recorded is None or (path is None and not has_session(recorded, session)):
            print("[]")
            return 0
        store = recorded
    else:
        store = open_current_store()
    entries: Iterable[Entry]
    with EntryIndex(store) as index:
        labels = _Labels(store)
        undone = _Undone(store, index)
        if path is not None:
            name = store.root.stored_name(path)
            entries = _path_history(index, labels, name, after, grep, max_count)
            title = f"every entry that recorded {store.root.display(name)}"
            only: bytes | None = name
        else:
            head = require_existing(store, chosen or local_session(store, session))
            index.sync(head)
            _warn_damaged(store, head.session_id, index.damaged_numbers(head, -(2**62)))
            current = head.current
            assert current is not None
            ids = labels.matching(head.session_id, grep) if grep is not None else ()
            rows = index.query([head.session_id], since=after, grep=grep, ids=ids, newest=max_count)
            entries = (current if entry.number == current.number else entry for entry in rows)
            agent = index.agent(head, WATCH_AGENT)
            title = f"session {head.session_id}" + (f" ({agent})" if agent else "")
            only = None
        preload = max_count is None or max_count > PRELOAD_COUNTS_FROM
        counts = LineCounts(store, index, preload=preload)
        try:
            if as_json:
                _print_json(entries, counts, labels, undone)
            else:
                _print_text(store, title, entries, counts, labels, undone, only)
                if only is None:
                    _print_redo(undone.stack(head))
        finally:
            counts.save()
    return 0


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
            self.stacks[head.session_id] = UndoStack(self.index.restoring_entries(head))
        return self.stacks[head.session_id]

    def of(self, entry: Entry) -> bool:
        """Whether ``entry`` is a restore (or redo) an undo took back."""
        if entry.kind not in (RESTORE, REDO):
            return False
        if entry.session not in self.stacks:
            self.stack(load_head(self.store, entry.session))
        return entry.number in self.stacks[entry.session].undone_restores()


def _print_redo(stack: UndoStack) -> None:
    """Says what 'rewind redo' would put back, when anything."""
    undo = stack.next_redo()
    if undo is not None:
        restore = stack.restore_of(undo)
        print(
            f"'rewind redo' puts back {restore.kind} {restore.number} "
            f"(taken back by {undo.kind} {undo.number})"
        )


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


def _warn_damaged(store: Store, session: str, damaged: list[int]) -> None:
    if damaged:
        numbers = ", ".join(str(number) for number in damaged)
        print(
            f"rewind: entr{'y' if len(damaged) == 1 else 'ies'} {numbers} of session "
            f"{session} cannot be read; '{store.check_command}' says why.",
            file=sys.stderr,
        )


def _print_json(
    entries: Iterable[Entry], counts: LineCounts, labels: _Labels, undone: _Undone
) -> None:
    """The list ``json.dumps(..., indent=2)`` would print, one element at a time."""
    write = sys.stdout.write
    separator = "[\n"
    for entry in entries:
        shown = {"format": FORMAT, **entry_json(entry, counts.diffs(entry), labels.of(entry))}
        shown["undone"] = undone.of(entry)
        element = json.dumps(shown, indent=2)
        write(separator + "  " + element.replace("\n", "\n  "))
        separator = ",\n"
    write("[]\n" if separator == "[\n" else "\n]\n")


def _print_text(
    store: Store,
    title: str,
    entries: Iterable[Entry],
    counts: LineCounts,
    labels: _Labels,
    undone: _Undone,
    only: bytes | None,
) -> None:
    colour = use_colour()
    print(paint(title, "bold", colour))
    for entry in entries:
        text = first_line(entry.prompt, PROMPT_WIDTH) if entry.kind == TURN else entry.prompt
        state = " (open)" if entry.is_open else " (undone)" if undone.of(entry) else ""
        names = labels.of(entry)
        tags = f" [{', '.join(names)}]" if names else ""
        started = local_time(entry.started) if not entry.is_damaged else "?".ljust(19)
        heading = f"{entry.number:>4}  {entry.id}  {started}  "
        if only is not None:
            heading += f"{entry.session}  "
        if entry.kind != TURN:
            text = paint(text, "yellow", colour)
        print(paint(heading, "cyan", colour) + text + tags + state)
        for change in entry.files:
            if only is None or change.path == only:
                diff = counts.diff(change.path, change.before, change.after)
                print("        " + file_summary(store, diff, change.source))
        for storm in entry.unrecorded if only is None else ():
            print("        " + paint(describe_unrecorded(storm), "yellow", colour))
