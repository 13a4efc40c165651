"""``rewind fetch [REMOTE]``: bring the sessions pushed for this project
(rewind.history.remote.fetched)."""

from __future__ import annotations

import sys

from rewind.actions.records import FORMAT
from rewind.actions.stores import open_current_store
from rewind.commands.output.json_output import print_json
from rewind.errors import UserError
from rewind.history.remote.fetched import FetchReport, fetch
from rewind.store.remotes import list_remotes, remote_url
from rewind.store.repository import Store


def run(*, remote_name: str | None, as_json: bool) -> int:
    store = open_current_store(create=True)
    remotes = [remote_name] if remote_name else list(list_remotes(store))
    if not remotes:
        raise UserError("there is no remote yet; add one with 'rewind remote add NAME URL'.")
    reports = [(name, fetch(store, name, interactive=sys.stdin.isatty())) for name in remotes]
    notes = (
        [_fetch_notes(store, name) for name in remotes] if store.config.attribution_notes else []
    )
    if as_json:
        print_json(
            {
                "format": FORMAT,
                "remotes": [
                    {
                        "remote": name,
                        "project": report.project,
                        "machines": report.machines,
                        "sessions": len(report.sessions),
                        "updated": len(report.changed_sessions),
                        "gone": len(report.gone_sessions),
                    }
                    for name, report in reports
                ],
            }
        )
        return 0
    for name, report in reports:
        print(_summary(name, report))
    for line in notes:
        if line:
            print(line)
    return 0


def _fetch_notes(store: Store, name: str) -> str:
    """The remote's authorship notes, merged into the project's ([attribution] notes = true);
    a failure is a warning on standard error (the sessions came)."""
    from rewind.history.attribution.notes_sync import SyncFailed, fetch_notes

    try:
        found = fetch_notes(
            store.root.path, name, remote_url(store, name), interactive=sys.stdin.isatty()
        )
    except SyncFailed as error:
        print(
            f"rewind: {error}; the sessions were fetched, the authorship notes were not.",
            file=sys.stderr,
        )
        return ""
    return (
        f"authorship notes (refs/notes/ai) of {name} merged into this repository" if found else ""
    )


def _summary(name: str, report: FetchReport) -> str:
    sessions = len(report.sessions)
    if not sessions:
        return (
            f"{name} has no sessions of this project (id {report.project}) yet; they appear "
            "once a machine pushes some."
        )
    machines = len(report.machines)
    changed = len(report.changed_sessions)
    gone = f", {len(report.gone_sessions)} gone" if report.gone_sessions else ""
    return (
        f"fetched from {name}: {sessions} session(s) of {machines} machine(s), {changed} new or "
        f"updated{gone}; 'rewind sessions --remote {name}' lists them."
    )
