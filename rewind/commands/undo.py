"""``rewind undo``: take back the newest restore still in effect (again: the one before it);
``rewind redo`` (rewind.commands.redo) steps forward with the same options."""

from __future__ import annotations

from collections.abc import Callable

from rewind.commands.output.json_output import refuse_json_without_dry_run
from rewind.commands.restore import carry_out
from rewind.history.recording.turns import settled_head
from rewind.history.restoring.opening import open_current_store
from rewind.history.restoring.restore_plan import RestorePlan, plan_undo
from rewind.history.session import SessionHead
from rewind.store.repository import Store


def run(
    *,
    session: str | None,
    dry_run: bool,
    force: bool,
    yes: bool,
    as_json: bool = False,
    list_all: bool = False,
) -> int:
    return step("undo", plan_undo, session, dry_run, force, yes, as_json, list_all)


def step(
    name: str,
    planned: Callable[[Store, SessionHead], RestorePlan],
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
    plan = planned(store, settled_head(store, session))
    return carry_out(
        store, plan, dry_run=dry_run, force=force, yes=yes, as_json=as_json, list_all=list_all
    )
