from __future__ import annotations

import sys

from rewind.recording import record_after
from rewind.session import resolve_session
from rewind.store import Store


def run(*, session: str | None) -> int:
    store = Store.of_current_project()
    session_id = resolve_session(store, session)
    entry = record_after(store, session_id, close=True)
    if entry is None:
        print(f"rewind: session {session_id} has no open turn; nothing to end.", file=sys.stderr)
    return 0
