from __future__ import annotations

from rewind.history.labels import add_label, remove_label
from rewind.history.opening import open_current_store
from rewind.history.sessions import resolve_session


def run(*, session: str | None, turn: str, name: str, remove: bool) -> int:
    store = open_current_store()
    session_id = resolve_session(store, session)
    if remove:
        entry = remove_label(store, session_id, turn, name)
        print(f"removed label {name} from {entry.kind} {entry.number} ({entry.id})")
    else:
        entry = add_label(store, session_id, turn, name)
        print(
            f"labelled {entry.kind} {entry.number} ({entry.id}) {name}; "
            "'rewind gc' keeps it while the label lasts"
        )
    return 0
