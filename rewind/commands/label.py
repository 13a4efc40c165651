from __future__ import annotations

from rewind.actions.records import FORMAT, entry_json
from rewind.actions.stores import open_current_store
from rewind.commands.output.json_output import print_json
from rewind.history.insight.diffs import entry_diffs
from rewind.history.insight.labels import add_label, remove_label
from rewind.history.sessions import all_labels, labels_of, resolve_session


def run(*, session: str | None, turn: str, name: str, remove: bool, as_json: bool = False) -> int:
    store = open_current_store()
    session_id = resolve_session(store, session)
    if remove:
        entry = remove_label(store, session_id, turn, name)
        if not as_json:
            print(f"removed label {name} from {entry.kind} {entry.number} ({entry.id})")
    else:
        entry = add_label(store, session_id, turn, name)
        if not as_json:
            print(
                f"labelled {entry.kind} {entry.number} ({entry.id}) {name}; "
                "'rewind gc' keeps it while the label lasts"
            )
    if as_json:
        labels = all_labels(entry, labels_of(store, session_id))
        print_json(
            {
                "format": FORMAT,
                "label": name,
                "removed": remove,
                "entry": entry_json(entry, entry_diffs(store, entry), labels),
            }
        )
    return 0
