from __future__ import annotations

import json

from rewind.commands.render import local_time
from rewind.history.opening import open_current_store
from rewind.history.sessions import list_sessions
from rewind.history.summary import iso_time


def run(*, as_json: bool) -> int:
    store = open_current_store()
    summaries = list_sessions(store)
    if as_json:
        print(
            json.dumps(
                [
                    {
                        "session": s.head.session_id,
                        "agent": s.head.current.agent if s.head.current else "",
                        "entries": s.head.current.number if s.head.current else 0,
                        "last_active": iso_time(s.mtime),
                        "recent": s.is_recent,
                    }
                    for s in summaries
                ],
                indent=2,
            )
        )
        return 0
    if not summaries:
        print("no sessions yet")
    for summary in summaries:
        entry = summary.head.current
        assert entry is not None
        marker = "*" if summary.is_recent else " "
        print(
            f"{marker} {summary.head.session_id}  {local_time(summary.mtime)}  "
            f"{entry.number} entr{'y' if entry.number == 1 else 'ies'}  {entry.agent}".rstrip()
        )
    return 0
