from __future__ import annotations

import sys

from rewind.actions.stores import open_current_store
from rewind.history.recording.turns import record_after
from rewind.history.sessions import resolve_session


def run(*, session: str | None) -> int:
    store = open_current_store()
    session_id = resolve_session(store, session)
    entry = record_after(store, session_id, close=True)
    if entry is None:
        print(f"rewind: session {session_id} has no open turn; nothing to end.", file=sys.stderr)
    return 0
