from __future__ import annotations

from rewind.labels import add_label, remove_label
from rewind.session import resolve_session
from rewind.store import Store


def run(*, session: str | None, turn: str, name: str, remove: bool) -> int:
    store = Store.of_current_project()
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
