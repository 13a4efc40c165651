"""``rewind log``: a session's entries, or every entry that recorded a path
(rewind.actions.reading), as text or as ``--json``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable

from rewind.actions.reading import Log, LoggedEntry, LogRequest, read_log
from rewind.actions.records import logged_json
from rewind.commands.output.render import PROMPT_WIDTH, file_summary, local_time, paint, use_colour
from rewind.commands.output.terminal_safe import print_fetched_safely
from rewind.errors import UserError
from rewind.history.entry import TURN, first_line
from rewind.history.insight.renames import renamed_change, renamed_in


def run(
    *,
    session: str | None,
    as_json: bool,
    max_count: int | None = None,
    since: str | None = None,
    grep: str | None = None,
    path: str | None = None,
    remote: str | None = None,
    commit: str | None = None,
) -> int:
    if commit is not None:
        given = [
            name
            for name, value in (
                ("--session", session),
                ("-n", max_count),
                ("--since", since),
                ("--grep", grep),
                ("--path", path),
                ("--remote", remote),
            )
            if value is not None
        ]
        if given:
            raise UserError(
                f"--commit takes no {given[0]}: it lists the prompts behind one commit."
            )
        from rewind.commands.commit_log import run as commit_log

        return commit_log(commit, as_json)
    request = LogRequest(
        session=session,
        since=since,
        grep=grep,
        path=path,
        max_count=max_count,
        remote=remote,
        # with --json, nothing recorded yet is an empty list, not an error
        missing_ok=as_json and remote is None,
    )
    with read_log(request) as log:
        if remote is not None:
            print_fetched_safely()
        if log.store is not None and log.damaged:
            _warn_damaged(log)
        if as_json:
            _print_json(log.entries)
        else:
            _print_text(log)
    return 0


def _warn_damaged(log: Log) -> None:
    assert log.store is not None and log.head is not None
    damaged = log.damaged
    numbers = ", ".join(str(number) for number in damaged)
    print(
        f"rewind: entr{'y' if len(damaged) == 1 else 'ies'} {numbers} of session "
        f"{log.head.session_id} cannot be read; '{log.store.check_command}' says why.",
        file=sys.stderr,
    )


def _print_json(rows: Iterable[LoggedEntry]) -> None:
    """The list ``json.dumps(..., indent=2)`` would print, one element at a time."""
    write = sys.stdout.write
    separator = "[\n"
    for row in rows:
        element = json.dumps(logged_json(row), indent=2)
        write(separator + "  " + element.replace("\n", "\n  "))
        separator = ",\n"
    write("[]\n" if separator == "[\n" else "\n]\n")


def _print_text(log: Log) -> None:
    store, only = log.store, log.only
    assert store is not None
    colour = use_colour()
    print(paint(log.title, "bold", colour))
    for row in log.entries:
        entry = row.entry
        text = first_line(entry.prompt, PROMPT_WIDTH) if entry.kind == TURN else entry.prompt
        state = " (open)" if entry.is_open else " (undone)" if row.undone else ""
        tags = f" [{', '.join(row.labels)}]" if row.labels else ""
        started = local_time(entry.started) if not entry.is_damaged else "?".ljust(19)
        heading = f"{entry.number:>4}  {entry.id}  {started}  "
        if only is not None:
            heading += f"{entry.session}  "
        if entry.kind != TURN:
            text = paint(text, "yellow", colour)
        print(paint(heading, "cyan", colour) + text + tags + state)
        renames = renamed_in(entry) if only is None else {}
        for change in entry.files:
            if change.path in renames.values():
                continue  # shown with the name it went to
            old = renames.get(change.path)
            if old is not None:
                paired = row.diff(renamed_change(entry, change, old))
                print("        " + file_summary(store, paired, change.source, renamed_from=old))
            elif only is None or change.path == only:
                print("        " + file_summary(store, row.diff(change), change.source))
        for storm in entry.unrecorded if only is None else ():
            print("        " + paint(storm.describe(), "yellow", colour))
    redo = log.redo()
    if redo is not None:
        restore, undo = redo
        print(
            f"'rewind redo' puts back {restore.kind} {restore.number} "
            f"(taken back by {undo.kind} {undo.number})"
        )
