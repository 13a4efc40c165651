from __future__ import annotations

import json
import sys

from rewind.commands.render import file_summary, first_line, local_time, paint, use_colour
from rewind.history.entry import TURN, WATCH_AGENT
from rewind.history.opening import open_current_store
from rewind.history.session import require_existing
from rewind.history.sessions import all_labels, labels_of, read_entries, resolve_session
from rewind.history.summary import entry_diffs, entry_json
from rewind.watch.bursts import describe_unrecorded


def run(*, session: str | None, as_json: bool) -> int:
    store = open_current_store()
    head = require_existing(store, resolve_session(store, session))
    entries = read_entries(store, head)
    attached = labels_of(store, head.session_id)
    damaged = [str(entry.number) for entry in entries if entry.is_damaged]
    if damaged:
        print(
            f"rewind: entr{'y' if len(damaged) == 1 else 'ies'} {', '.join(damaged)} of session "
            f"{head.session_id} cannot be read; 'rewind check' says why.",
            file=sys.stderr,
        )
    if as_json:
        data = [
            entry_json(entry, entry_diffs(store, entry), all_labels(entry, attached))
            for entry in entries
        ]
        print(json.dumps(data, indent=2))
        return 0
    colour = use_colour()
    agents = [
        entry.agent
        for entry in entries
        if entry.kind == TURN and entry.agent and entry.agent != WATCH_AGENT
    ]
    agent = f" ({agents[-1]})" if agents else ""
    print(paint(f"session {head.session_id}{agent}", "bold", colour))
    for entry in entries:
        title = first_line(entry.prompt) if entry.kind == TURN else entry.prompt
        state = " (open)" if entry.is_open else ""
        names = all_labels(entry, attached)
        labels = f" [{', '.join(names)}]" if names else ""
        started = local_time(entry.started) if not entry.is_damaged else "?".ljust(19)
        heading = f"{entry.number:>4}  {entry.id}  {started}  "
        if entry.kind != TURN:
            title = paint(title, "yellow", colour)
        print(paint(heading, "cyan", colour) + title + labels + state)
        for change, diff in zip(entry.files, entry_diffs(store, entry), strict=True):
            print("        " + file_summary(store, diff, change.source))
        for storm in entry.unrecorded:
            print("        " + paint(describe_unrecorded(storm), "yellow", colour))
    return 0
