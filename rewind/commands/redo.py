"""``rewind redo``: put back the restore the last ``rewind undo`` took back."""

from __future__ import annotations

from rewind.actions.changes import REDO_STEP
from rewind.commands.undo import step


def run(
    *,
    session: str | None,
    dry_run: bool,
    force: bool,
    yes: bool,
    as_json: bool = False,
    list_all: bool = False,
) -> int:
    return step(REDO_STEP, session, dry_run, force, yes, as_json, list_all)
