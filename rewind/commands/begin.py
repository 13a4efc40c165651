from __future__ import annotations

import sys

from rewind.actions.stores import open_current_store
from rewind.history.recording.turns import begin_with_drift
from rewind.history.sessions import resolve_session


def run(*, session: str | None, prompt: str, agent: str, labels: list[str]) -> int:
    store = open_current_store(create=True)
    session_id = resolve_session(store, session, create=True)
    entry, drift = begin_with_drift(store, session_id, prompt, agent, labels)
    print(f"turn {entry.number} of session {entry.session} ({entry.id})")
    if drift is not None:
        names = ", ".join(store.root.display(change.path) for change in drift.files)
        print(
            f"changed outside rewind since it last recorded them (kept as entry {drift.number}, "
            f"'rewind show {drift.number}' shows how): {names}",
            file=sys.stderr,
        )
    return 0
