from __future__ import annotations

from rewind.commands.output.json_output import FORMAT, print_json
from rewind.commands.output.records_json import diff_json, entry_key_json
from rewind.commands.output.render import colour_diff, use_colour
from rewind.commands.parsing.reading import print_fetched_safely, session_to_read
from rewind.history.checkpoint import states_between
from rewind.history.entry import Entry
from rewind.history.insight.diffs import FileDiff, diff_states, diff_to_disk
from rewind.history.lookup import entries_between, find
from rewind.history.session import require_existing
from rewind.history.sessions import refuse_damaged
from rewind.store.repository import Store


def run(
    *,
    session: str | None,
    turn: str | None,
    turn2: str | None,
    as_json: bool = False,
    remote: str | None = None,
) -> int:
    store, session_id = session_to_read(session, remote)
    if remote is not None:
        print_fetched_safely()
    head = require_existing(store, session_id)
    assert head.current is not None
    newest = head.current.number
    first = find(store, head, turn).number if turn else newest
    second = find(store, head, turn2).number if turn2 is not None else first
    entries = entries_between(store, head, min(first, second), newest)
    numbers = [entry.number for entry in entries]
    start = stop = numbers.index(first)
    if turn2 is None and store.read_only:  # a fetched session: to where it ended, not to
        # this work tree, which is not the one it changed
        refuse_damaged(store, entries, start, "this diff")
        diffs = [
            diff_states(store, path, old, new)
            for path, (old, new) in states_between(entries, start, len(entries)).items()
        ]
    elif turn2 is None:
        refuse_damaged(store, entries, start, "this diff")
        diffs = [
            diff_to_disk(store, path, old)
            for path, (old, _) in states_between(entries, start, len(entries)).items()
        ]
    else:
        stop = numbers.index(second)
        start, stop = min(start, stop), max(start, stop)
        refuse_damaged(store, entries, start, "this diff")
        diffs = [
            diff_states(store, path, old, new)
            for path, (old, new) in states_between(entries, start, stop).items()
        ]
    if as_json:
        print_json(
            {
                "format": FORMAT,
                "session": head.session_id,
                "from": _checkpoint(entries[start]),
                "to": _checkpoint(entries[stop]) if turn2 is not None else None,
                "files": [diff_json(diff, with_text=True) for diff in diffs],
            }
        )
        return 0
    _print(store, diffs)
    return 0


def _checkpoint(entry: Entry) -> dict[str, object]:
    """The checkpoint before ``entry``, named by it."""
    return entry_key_json(entry)


def _print(store: Store, diffs: list[FileDiff]) -> None:
    colour = use_colour()
    for diff in diffs:
        if diff.text:
            print(colour_diff(diff.text, colour), end="")
        elif diff.status not in ("unchanged", "pending"):
            print(f"{store.root.display(diff.path)}: {diff.status}")
