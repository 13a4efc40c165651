from __future__ import annotations

import sys

from rewind.actions.stores import open_current_store
from rewind.history.recording.turns import TRACK_PROBLEMS, track
from rewind.history.sessions import resolve_session


def run(*, session: str | None, paths: list[str], agent: str) -> int:
    store = open_current_store(create=True)
    names = [store.root.stored_name(path) for path in paths]
    session_id = resolve_session(store, session, create=True)
    states = track(store, session_id, names, agent=agent)
    failed = False
    for name, state in states.items():
        problem = TRACK_PROBLEMS.get(state.kind)
        if problem:
            failed = True
            print(f"rewind: {store.root.display(name)} {problem}.", file=sys.stderr)
    return 1 if failed else 0
