from __future__ import annotations

import json

from rewind.history import list_sessions
from rewind.render import iso_time, local_time
from rewind.store import Store


def run(*, as_json: bool) -> int:
    store = Store.of_current_project()
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
