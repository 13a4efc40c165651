"""``rewind diff [TURN [TURN2]]``: what changed since a checkpoint (rewind.actions.reading), as
text or ``--json``."""

from __future__ import annotations

from rewind.actions.reading import DiffRequest, diff
from rewind.actions.records import diff_between_json
from rewind.commands.output.json_output import print_json
from rewind.commands.output.render import colour_diff, use_colour
from rewind.commands.output.terminal_safe import print_fetched_safely


def run(
    *,
    session: str | None,
    turn: str | None,
    turn2: str | None,
    as_json: bool = False,
    remote: str | None = None,
) -> int:
    found = diff(DiffRequest(turn=turn, turn2=turn2, session=session, remote=remote))
    if remote is not None:
        print_fetched_safely()
    if as_json:
        print_json(diff_between_json(found))
        return 0
    colour = use_colour()
    for file_diff in found.files:
        if file_diff.text:
            print(colour_diff(file_diff.text, colour), end="")
        elif file_diff.status not in ("unchanged", "pending"):
            print(f"{found.store.root.display(file_diff.path)}: {file_diff.status}")
    return 0
