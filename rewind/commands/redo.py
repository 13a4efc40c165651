"""``rewind redo``: put back the restore the last ``rewind undo`` took back."""

from __future__ import annotations

from rewind.commands.output.json_output import refuse_json_without_dry_run
from rewind.commands.restore import carry_out
from rewind.history.recording.turns import settled_head
from rewind.history.restoring.opening import open_current_store
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
    refuse_json_without_dry_run(as_json, dry_run, "redo")
    store = open_current_store()
    plan = plan_redo(store, settled_head(store, session))
    return carry_out(
        store, plan, dry_run=dry_run, force=force, yes=yes, as_json=as_json, list_all=list_all
    )
