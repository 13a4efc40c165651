from __future__ import annotations

from rewind.actions.projects import recorded_store
from rewind.actions.records import FORMAT, iso_time
from rewind.commands.output.json_output import print_json
from rewind.commands.output.render import local_time
from rewind.commands.output.terminal_safe import print_fetched_safely
from rewind.history.index.queries import EntryIndex
from rewind.history.remote.fetched import FetchedSession, fetched_sessions
from rewind.history.sessions import SessionSummary, list_sessions


def run(*, as_json: bool, remote: str | None = None, ids: bool = False) -> int:
    if remote is not None:
        return _fetched(remote or None, as_json, ids)
    store = recorded_store()
    summaries = list_sessions(store) if store is not None else []
    if ids:
        for summary in reversed(summaries):
            print(summary.head.session_id)
        return 0
    if as_json:
        details: list[tuple[float, int]] = []
        if store is not None and summaries:
            with EntryIndex(store) as index:
                details = [index.started_and_paths(s.head) for s in summaries]
        print_json([_session_json(s, *d) for s, d in zip(summaries, details, strict=True)])
        return 0
    if not summaries:
        print(
            "no sessions yet; let your agent record its turns with 'rewind install AGENT' (or "
            "record by hand with 'rewind begin')"
        )
    for summary in summaries:
        entry = summary.head.current
        assert entry is not None
        marker = "*" if summary.is_recent else " "
        print(
            f"{marker} {summary.head.session_id}  {local_time(summary.mtime)}  "
            f"{entry.number} entr{'y' if entry.number == 1 else 'ies'}  {entry.agent}".rstrip()
        )
    return 0


def _session_json(summary: SessionSummary, started: float, files: int) -> dict[str, object]:
    """One element of ``rewind sessions --json`` (format 1, docs/cli.md)."""
    current = summary.head.current
    return {
        "format": FORMAT,
        "session": summary.head.session_id,
        "agent": current.agent if current else "",
        "entries": current.number if current else 0,
        "started": iso_time(started) if started else None,
        "last_active": iso_time(summary.mtime),
        "files": files,
        "recent": summary.is_recent,
    }


def _fetched(remote: str | None, as_json: bool, ids: bool) -> int:
    """``rewind sessions --remote [NAME]``: what was fetched, least recently active first."""
    print_fetched_safely()
    store = recorded_store()
    found = fetched_sessions(store, remote) if store is not None else []
    if ids:
        for session in reversed(found):
            print(session.name)
        return 0
    if as_json:
        print_json([_fetched_json(session) for session in found])
        return 0
    if not found:
        where = remote or "any remote"
        print(f"no sessions fetched from {where}; 'rewind fetch' brings them.")
    for session in found:
        entry = session.summary.head.current
        assert entry is not None
        print(
            f"  {session.remote}  {session.name}  {local_time(session.last_active)}  "
            f"{entry.number} entr{'y' if entry.number == 1 else 'ies'}  {entry.agent}".rstrip()
        )
    return 0


def _fetched_json(session: FetchedSession) -> dict[str, object]:
    current = session.summary.head.current
    return {
        "format": FORMAT,
        "remote": session.remote,
        "machine": session.machine,
        "session": session.summary.head.session_id,
        "agent": current.agent if current else "",
        "entries": current.number if current else 0,
        "last_active": iso_time(session.last_active),
    }
