from __future__ import annotations

import sys

from rewind.errors import UserError
from rewind.history import commits
from rewind.history.entry import Entry
from rewind.history.index import EntryIndex
from rewind.history.opening import open_current_store
from rewind.history.session import SessionHead, last_known_tip
from rewind.history.sessions import list_sessions, read_entries_with_commits
from rewind.store.repository import DamagedRef, Store


def run() -> int:
    """Reads every entry of every session and every blob they name."""
    store = open_current_store()
    problems = []
    checked = 0
    damaged: list[DamagedRef] = []
    summaries = list_sessions(store, damaged)
    problems += [f"{error} {_ref_repair_hint(store, error)}" for error in damaged]
    with EntryIndex(store) as index:
        for summary in summaries:
            try:
                pairs = read_entries_with_commits(store, summary.head)
            except UserError as error:
                problems.append(f"session {summary.head.session_id}: history unreadable: {error}")
                continue
            mismatch = index.verify(summary.head, _as_committed(store, summary.head, pairs))
            if mismatch:  # a cache, repaired: worth saying, not a problem of the history
                print(f"rewind: {mismatch}", file=sys.stderr)
            for entry, commit in pairs:
                if entry.is_damaged:
                    problems.append(
                        f"session {entry.session} entry {entry.number} (commit {commit}): "
                        f"{entry.prompt}"
                    )
                    continue
                count, missing = _check_states(store, entry)
                checked += count
                problems += missing
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"checked {checked} stored file versions: {len(problems)} problem(s)")
    return 1 if problems else 0


def _as_committed(
    store: Store, head: SessionHead, pairs: list[tuple[Entry, str]]
) -> list[tuple[Entry, str]]:
    """The history as its commits hold it: the open turn without its journal's records."""
    if not pairs or head.journal is None or head.tip is None:
        return pairs
    return [*pairs[:-1], (commits.read_entry(store, head.tip)[0], head.tip)]


def _check_states(store: Store, entry: Entry) -> tuple[int, list[str]]:
    """How many stored states of ``entry`` were read, and those that could not be."""
    checked = 0
    problems = []
    for change in entry.files:
        for side, state in (("before", change.before), ("after", change.after)):
            if state is None or state.oid is None:
                continue
            checked += 1
            try:
                store.reader.read_blob(state.oid)
            except UserError:
                problems.append(
                    f"session {entry.session} turn {entry.number}: the {side}-state of "
                    f"{store.root.display(change.path)} ({state.oid}) is missing or corrupted"
                )
    return checked, problems


def _ref_repair_hint(store: Store, error: DamagedRef) -> str:
    """How to point a damaged session ref back at the tip rewind last knew (its cache)."""
    tip = last_known_tip(store, error.ref)
    if not tip:
        return "No earlier tip is known; the session's history cannot be found again."
    return (
        f"The last tip rewind knew is {tip}: 'git --git-dir={store.git_dir} update-ref "
        f"{error.ref} {tip}' points it there again."
    )
