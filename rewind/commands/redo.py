"""``rewind redo``: put back the restore the last ``rewind undo`` took back."""

from __future__ import annotations

from rewind.commands.undo import step
from rewind.history.restoring.restore_plan import plan_redo


def run(
    *,
    session: str | None,
    dry_run: bool,
    force: bool,
    yes: bool,
    as_json: bool = False,
    list_all: bool = False,
) -> int:
    return step("redo", plan_redo, session, dry_run, force, yes, as_json, list_all)
