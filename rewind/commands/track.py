from __future__ import annotations

import sys

from rewind.actions.stores import open_current_store
from rewind.history.entry import Entry
from rewind.history.recording.turns import TRACK_PROBLEMS, track
from rewind.history.session import load_head
from rewind.history.sessions import resolve_session
from rewind.store.repository import Store


def run(*, session: str | None, paths: list[str], agent: str) -> int:
    store = open_current_store(create=True)
    names = [store.root.stored_name(path) for path in paths]
    session_id = resolve_session(store, session, create=True)
    before = load_head(store, session_id).current
    states = track(store, session_id, names, agent=agent)
    _say_a_turn_started(store, session_id, before)
    failed = False
    for name, state in states.items():
        problem = TRACK_PROBLEMS.get(state.kind)
        if problem:
            failed = True
            print(f"rewind: {store.root.display(name)} {problem}.", file=sys.stderr)
    return 1 if failed else 0


def _say_a_turn_started(store: Store, session_id: str, before: Entry | None) -> None:
    """No turn was open: the one track started has no prompt; standard error says so (the
    command's output stays empty for scripts)."""
    if before is not None and before.is_open:
        return
    now = load_head(store, session_id).current
    if now is not None and now.is_open and (before is None or now.id != before.id):
        print(
            f"rewind: no turn was open in session {session_id}: started turn {now.number} "
            "without a prompt ('rewind begin --prompt TEXT' starts one with its prompt).",
            file=sys.stderr,
        )
