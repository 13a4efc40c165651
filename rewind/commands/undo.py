"""``rewind undo``: take back the newest restore still in effect (again: the one before it);
``rewind redo`` (rewind.commands.redo) steps forward with the same options."""

from __future__ import annotations

from rewind.actions.changes import UNDO_STEP, open_current_store, plan_step
from rewind.commands.output.json_output import refuse_json_without_dry_run
from rewind.commands.restore import carry_out


def run(
    *,
    session: str | None,
    dry_run: bool,
    force: bool,
    yes: bool,
    as_json: bool = False,
    list_all: bool = False,
) -> int:
    return step(UNDO_STEP, session, dry_run, force, yes, as_json, list_all)


def step(
    name: str,
    session: str | None,
    dry_run: bool,
    force: bool,
    yes: bool,
    as_json: bool,
    list_all: bool,
) -> int:
    """One step back (undo) or forward (redo) through the session's restores."""
    refuse_json_without_dry_run(as_json, dry_run, name)
    store = open_current_store()
    plan = plan_step(store, session, name)
    return carry_out(
        store, plan, dry_run=dry_run, force=force, yes=yes, as_json=as_json, list_all=list_all
    )
