from __future__ import annotations

import sys

from rewind.actions.stores import open_current_store
from rewind.history.session import forget_session, label_ref_prefix, require_existing
from rewind.history.sessions import list_sessions


def run(*, session: str, yes: bool) -> int:
    store = open_current_store()
    head = require_existing(store, session)
    assert head.current is not None
    labels = len(store.ref_names(label_ref_prefix(session)))
    with_labels = f" and {labels} label(s)" if labels else ""
    if not yes and sys.stdin.isatty():
        answer = input(
            f"Forget session {session}, its {head.current.number} entries{with_labels}? [y/N] "
        )
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing was changed.")
            return 1
    removed = forget_session(store, head)
    left = len(list_sessions(store))
    gone = f" and its {removed} label(s)" if removed else ""
    print(f"forgot session {session}{gone} ({left} left); 'rewind gc' frees its space.")
    return 0
