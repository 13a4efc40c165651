from __future__ import annotations

import sys

from rewind.actions.records import FORMAT
from rewind.actions.stores import open_current_store
from rewind.commands.output.json_output import print_json
from rewind.errors import UserError
from rewind.history import commits
from rewind.history.entry import Entry
from rewind.history.index.queries import EntryIndex
from rewind.history.remote.fetched import machine_views
from rewind.history.session import SessionHead, damaged_ref_hint
from rewind.history.sessions import list_sessions, read_entries_with_commits
from rewind.history.upkeep import drill as recovery_drill
from rewind.history.upkeep.drill import DrillReport, SessionDrill
from rewind.store.remotes import list_remotes, remote_url
from rewind.store.repository import DamagedRef, Store


def run(
    *,
    drill: bool = False,
    session: str | None = None,
    as_json: bool = False,
    remote: str | None = None,
) -> int:
    """Reads every entry of every session and every blob they name; with ``drill``, rebuilds
    every state in a scratch directory and verifies it (rewind.history.upkeep.drill); with
    ``remote``, reads the sessions fetched from it ("": from every remote) instead."""
    if not drill and session is not None:
        raise UserError("--session goes with --drill: run 'rewind check --drill --session ID'.")
    if drill and remote is not None:
        raise UserError(
            "the drill rebuilds this project's own sessions; run 'rewind check --remote' "
            "without --drill to read the fetched ones."
        )
    store = open_current_store()
    if drill:
        return _run_drill(store, session, as_json)
    if remote is not None:
        return _check_fetched(store, remote, as_json)
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


class CheckTally:
    """What reading the sessions found: how many, the stored states read, the problems, and
    the index's mismatches mended."""

    def __init__(self) -> None:
        self.sessions = 0
        self.checked = 0
        self.problems: list[str] = []
        self.repaired: list[str] = []

    def to_json(self) -> dict[str, object]:
        return {
            "sessions": self.sessions,
            "checked": self.checked,
            "problems": self.problems,
            "repaired": self.repaired,
        }


def _check_objects(store: Store, as_json: bool = False) -> int:
    tally = CheckTally()
    _read_sessions(store, tally, "", as_json)
    if as_json:
        print_json({"format": FORMAT, **tally.to_json()})
        return 1 if tally.problems else 0
    for problem in tally.problems:
        print(problem, file=sys.stderr)
    print(f"checked {tally.checked} stored file versions: {len(tally.problems)} problem(s)")
    return 1 if tally.problems else 0


def _check_fetched(store: Store, remote: str, as_json: bool) -> int:
    """Reads the sessions fetched from ``remote`` (every remote: ""), each named
    ``REMOTE:MACHINE/SESSION``: what is damaged there is listed, never mended (they are
    read-only; the remote holds them so)."""
    if remote:
        remote_url(store, remote)  # a remote that does not exist is named as such
    names = [remote] if remote else list(list_remotes(store))
    views = [(name, machine, view) for name in names for machine, view in _views(store, name)]
    if not views:
        fetch = f"rewind fetch {remote}" if remote else "rewind fetch NAME"
        where = f" from {remote}" if remote else ""
        raise UserError(f"nothing has been fetched{where} for this project; run '{fetch}' first.")
    tally = CheckTally()
    for name, machine, view in views:
        _read_sessions(view, tally, f"{name}:{machine}/", as_json)
    if as_json:
        print_json({"format": FORMAT, "remote": remote or None, **tally.to_json()})
        return 1 if tally.problems else 0
    for problem in tally.problems:
        print(problem, file=sys.stderr)
    print(
        f"checked {tally.checked} stored file versions of {tally.sessions} fetched session(s): "
        f"{len(tally.problems)} problem(s)"
    )
    return 1 if tally.problems else 0


def _views(store: Store, remote: str) -> list[tuple[str, Store]]:
    return list(machine_views(store, remote).items())


def _read_sessions(store: Store, tally: CheckTally, prefix: str, as_json: bool) -> None:
    """Reads every session of ``store`` into ``tally``; ``prefix`` goes before each session's
    name (a fetched one's remote and machine)."""
    damaged: list[DamagedRef] = []
    summaries = list_sessions(store, damaged)
    tally.sessions += len(summaries)
    tally.problems += [f"{error} {damaged_ref_hint(store, error.ref)}" for error in damaged]
    with EntryIndex(store) as index:
        for summary in summaries:
            name = prefix + summary.head.session_id
            try:
                pairs = read_entries_with_commits(store, summary.head)
            except UserError as error:
                tally.problems.append(f"session {name}: history unreadable: {error}")
                continue
            mismatch = index.verify(summary.head, _as_committed(store, summary.head, pairs))
            if mismatch:  # a cache, repaired: worth saying, not a problem of the history
                tally.repaired.append(mismatch)
                if not as_json:
                    print(f"rewind: {mismatch}", file=sys.stderr)
            for entry, commit in pairs:
                if entry.is_damaged:
                    tally.problems.append(
                        f"session {name} entry {entry.number} (commit {commit}): {entry.prompt}"
                    )
                    continue
                count, missing = _check_states(store, entry, name)
                tally.checked += count
                tally.problems += missing


def _as_committed(
    store: Store, head: SessionHead, pairs: list[tuple[Entry, str]]
) -> list[tuple[Entry, str]]:
    """The history as its commits hold it: the open turn without its journal's records."""
    if not pairs or head.journal is None or head.tip is None:
        return pairs
    return [*pairs[:-1], (commits.read_entry(store, head.tip, head.session_id)[0], head.tip)]


def _check_states(store: Store, entry: Entry, session: str) -> tuple[int, list[str]]:
    """How many stored states of ``entry`` (of the session named ``session``) were read, and
    those that could not be."""
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
                    f"session {session} turn {entry.number}: the {side}-state of "
                    f"{store.root.display(change.path)} ({state.oid}) is missing or corrupted"
                )
    return checked, problems
