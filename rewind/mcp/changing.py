"""The tools that change files: a restore (a whole turn, some files, some hunks of one), an
undo, a redo. Each is asked for twice: without ``plan_id`` it changes nothing and answers the
plan (every file, what would be written, what conflicts) with its id; called again with that
id, it applies the plan, made again from the files as they are then, only when its id is still
the same (a file changed in between gives a new plan, not a surprise). The person thus sees,
in the client's own approval of the second call, exactly what will change.

The rules are the command line's (rewind.actions.changes): a file changed outside rewind is a
conflict, refused unless ``force`` (its content then saved for undo); every change is an entry
that ``rewind_undo`` takes back. A plan that would write a file the session's open turn (the
agent's current one) has touched is refused: that turn is still editing it.

Asking for a plan reads the session as it is and records nothing: the agent's open turn stays
open. Applying one closes that turn (its after-states recorded) under the restore, then opens
its continuation, a turn with the same prompt, so that what the agent does next for that prompt
is recorded as its work, not as an entry without a prompt.
"""

from __future__ import annotations

import hashlib
import os

from rewind.actions.changes import (
    REDO_STEP,
    UNDO_STEP,
    Policy,
    RestorePlan,
    carry_out,
    open_project,
    parse_hunks,
    plan_hunks,
    plan_step,
    plan_turn,
)
from rewind.actions.records import plan_json
from rewind.errors import UserError
from rewind.mcp import arguments
from rewind.mcp.reading import Answer
from rewind.store.repository import Store

# What a second call says when its plan_id is not the plan's any more.
STALE = "The files changed since that plan (or it was another one); nothing was changed. "


def restore(
    root: str,
    turn: str,
    paths: list[str] | None = None,
    hunks: str | None = None,
    session: str | None = None,
    plan_id: str | None = None,
    force: bool = False,
) -> Answer:
    """Puts files back as they were before ``turn`` (only ``paths``; with ``hunks``, only those
    hunks of the one path's diff in ``turn``)."""
    turn = arguments.turn(turn)
    given = arguments.paths(paths) or []
    hunks = arguments.optional_text(hunks, "hunks")
    plan_id = arguments.optional_text(plan_id, "plan_id", arguments.PLAN_ID_LIMIT)
    session = arguments.session(session)
    policy = Policy(force=force, agent=True)
    store = open_project(os.fsencode(root))
    # Relative to the project, whatever directory the client started the server in.
    names = [store.root.stored_name(path, cwd=os.fsencode(root)) for path in given]
    plan: RestorePlan
    if hunks is not None:
        if len(names) != 1:
            raise UserError("hunks are put back into one file: give exactly one path.")
        choice = parse_hunks(hunks, turn, store.root.display(names[0]))
        plan = plan_hunks(store, session, turn, {names[0]: choice}, policy)
    else:
        plan = plan_turn(store, session, turn, names or None, policy)
    return _plan_or_apply(store, plan, plan_id, policy)


def undo(
    root: str, session: str | None = None, plan_id: str | None = None, force: bool = False
) -> Answer:
    """Takes back the session's newest restore still in effect."""
    return _step(root, session, plan_id, force, UNDO_STEP)


def redo(
    root: str, session: str | None = None, plan_id: str | None = None, force: bool = False
) -> Answer:
    """Puts back the restore the session's newest undo took back."""
    return _step(root, session, plan_id, force, REDO_STEP)


def _step(root: str, session: str | None, plan_id: str | None, force: bool, step: str) -> Answer:
    plan_id = arguments.optional_text(plan_id, "plan_id", arguments.PLAN_ID_LIMIT)
    policy = Policy(force=force, agent=True)
    store = open_project(os.fsencode(root))
    plan = plan_step(store, arguments.session(session), step, policy)
    return _plan_or_apply(store, plan, plan_id, policy)


def plan_id_of(plan: RestorePlan) -> str:
    """What identifies a plan: the kind, the entry, and for each file its target and what is
    there now (any change to a file makes another id)."""
    digest = hashlib.sha256(f"{plan.kind} {plan.session} {plan.subject.id}".encode())
    for planned in plan.files:
        digest.update(planned.path + b"\0")
        for state in (planned.target, planned.current):
            digest.update(repr(state.to_json()).encode() + b"\0")
        digest.update((planned.content or b"") + b"\0")
    return digest.hexdigest()[:16]


def _plan_or_apply(store: Store, plan: RestorePlan, plan_id: str | None, policy: Policy) -> Answer:
    """The plan (nothing recorded, nothing written), or, given its id, the plan carried out
    (rewind.actions.changes: its conflicts refused unless forced, the agent's turn continued)."""
    identity = plan_id_of(plan)
    shown = _plan_data(plan, identity)
    if plan_id != identity:
        lead = STALE if plan_id is not None else ""
        text = lead + _plan_text(store, plan, identity)
        return Answer(text, {**shown, "applied": False})
    if not plan.changes:
        return Answer(
            "Nothing to change: every file is already as the plan would leave it.",
            {**shown, "applied": False},
        )
    outcome = carry_out(store, plan, policy)
    if outcome.entry is None:
        raise UserError("nothing was written; ask for the plan again.")
    failed = [store.root.display(path) for path, _ in outcome.failed]
    entry = outcome.entry
    text = (
        f"Done: {outcome.written} file(s) changed, recorded as {entry.kind} {entry.number} "
        f"({entry.id}); rewind_undo takes it back."
    )
    if failed:
        text += f" Not written (the next rewind command tries again): {', '.join(failed)}."
    if outcome.skipped:
        left = "; ".join(
            f"{store.root.display(planned.path)} ({planned.reason()})"
            for planned in outcome.skipped
        )
        text += f" Left as they are: {left}."
    recorded = {"kind": entry.kind, "turn": entry.number, "id": entry.id}
    return Answer(text, {**shown, "applied": True, "entry": recorded, "failed": failed})


def _plan_data(plan: RestorePlan, identity: str) -> dict[str, object]:
    """The plan as ``restore --dry-run --json`` gives it (rewind.actions.records), with its id
    and title."""
    return {"plan_id": identity, "title": plan.title(), **plan_json(plan)}


def _plan_text(store: Store, plan: RestorePlan, identity: str) -> str:
    lines = [f"Plan {identity}: {plan.title()}"]
    for planned in plan.files:
        conflict = " (changed outside rewind: a conflict)" if planned.conflict else ""
        lines.append(f"  {planned.action:<9} {store.root.display(planned.path)}{conflict}")
    if not plan.changes:
        lines.append("Nothing would change.")
    elif plan.conflicts:
        lines.append(
            f"{len(plan.conflicts)} conflict(s): applying needs force=true (their content is saved "
            "for undo)."
        )
    lines.append(f"To apply it, call again with plan_id={identity!r}.")
    return "\n".join(lines)
