from __future__ import annotations

import sys

from rewind.history import list_sessions
from rewind.session import forget_session, require_existing
from rewind.store import Store


def run(*, session: str, yes: bool) -> int:
    store = Store.of_current_project()
    head = require_existing(store, session)
    assert head.current is not None
    if not yes and sys.stdin.isatty():
        answer = input(f"Forget session {session} and its {head.current.number} entries? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing was changed.")
            return 1
    forget_session(store, head)
    left = len(list_sessions(store))
    print(f"forgot session {session} ({left} left); 'rewind gc' frees its space.")
    return 0
