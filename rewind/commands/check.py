from __future__ import annotations

import sys

from rewind.commands.output.json_output import FORMAT, print_json
from rewind.errors import UserError
from rewind.history import commits
from rewind.history.entry import Entry
from rewind.history.index.queries import EntryIndex
from rewind.history.restoring.opening import open_current_store
from rewind.history.session import SessionHead, damaged_ref_hint
from rewind.history.sessions import list_sessions, read_entries_with_commits
from rewind.history.upkeep import drill as recovery_drill
from rewind.history.upkeep.drill import DrillReport, SessionDrill
from rewind.store.repository import DamagedRef, Store


def run(*, drill: bool = False, session: str | None = None, as_json: bool = False) -> int:
    """Reads every entry of every session and every blob they name; with ``drill``, rebuilds
    every state in a scratch directory and verifies it (rewind.history.upkeep.drill)."""
    if not drill and session is not None:
        raise UserError("--session goes with --drill: run 'rewind check --drill --session ID'.")
    store = open_current_store()
    if drill:
        return _run_drill(store, session, as_json)
    return _check_objects(store, as_json)


def _run_drill(store: Store, session: str | None, as_json: bool) -> int:
    report = recovery_drill.drill(store, sessions=None if session is None else [session])
    if as_json:
        print_json({"format": FORMAT, **report.to_json()})
    else:
        for problem in report.problems:
            print(problem.message, file=sys.stderr)
        for tally in report.sessions:
            print(session_line(tally))
        print(summary_line(report))
    return 0 if report.restorable else 1


def session_line(tally: SessionDrill) -> str:
    entries = f"{tally.entries} entr{'y' if tally.entries == 1 else 'ies'}"
    parts = [f"{tally.verified} verified"]
    if tally.never_restorable:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(tally.never_restorable.items()))
        parts.append(f"{sum(tally.never_restorable.values())} never restorable by design ({kinds})")
    if tally.failed:
        parts.append(f"{tally.failed} NOT restorable")
    if tally.damaged_entries:
        parts.append(
            f"{tally.damaged_entries} damaged entr{'y' if tally.damaged_entries == 1 else 'ies'}"
        )
    states = f"{tally.states} state{'' if tally.states == 1 else 's'}"
    return f"session {tally.session}: {entries}, {states}: {', '.join(parts)}"


def summary_line(report: DrillReport) -> str:
    contents = f"{report.contents} distinct content{'' if report.contents == 1 else 's'}"
    done = f"drill: rebuilt {contents} in a scratch directory, checked {report.states} states"
    if report.restorable:
        return f"{done}: everything recorded is restorable"
    count = len(report.problems)
    return f"{done}: {count} problem{'' if count == 1 else 's'} (listed on standard error)"


def _check_objects(store: Store, as_json: bool = False) -> int:
    problems = []
    checked = 0
    repaired: list[str] = []  # the index's mismatches, mended
    damaged: list[DamagedRef] = []
    summaries = list_sessions(store, damaged)
    problems += [f"{error} {damaged_ref_hint(store, error.ref)}" for error in damaged]
    with EntryIndex(store) as index:
        for summary in summaries:
            try:
                pairs = read_entries_with_commits(store, summary.head)
            except UserError as error:
                problems.append(f"session {summary.head.session_id}: history unreadable: {error}")
                continue
            mismatch = index.verify(summary.head, _as_committed(store, summary.head, pairs))
            if mismatch:  # a cache, repaired: worth saying, not a problem of the history
                repaired.append(mismatch)
                if not as_json:
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
    if as_json:
        print_json(
            {
                "format": FORMAT,
                "sessions": len(summaries),
                "checked": checked,
                "problems": problems,
                "repaired": repaired,
            }
        )
        return 1 if problems else 0
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
    return [*pairs[:-1], (commits.read_entry(store, head.tip, head.session_id)[0], head.tip)]


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
