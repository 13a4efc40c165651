"""The tools that change files: a restore (a whole turn, some files, some hunks of one), an
undo, a redo. Each is asked for twice: without ``plan_id`` it changes nothing and answers the
plan (every file, what would be written, what conflicts) with its id; called again with that
id, it applies the plan, made again from the files as they are then, only when its id is still
the same (a file changed in between gives a new plan, not a surprise). The person thus sees,
in the client's own approval of the second call, exactly what will change.

The rules are the command line's (rewind.history.restoring): a file changed outside rewind is a
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
from collections.abc import Callable

from rewind.errors import ConflictError, UserError
from rewind.history.entry import TURN, Entry
from rewind.history.lookup import entries_from
from rewind.history.recording.turns import begin
from rewind.history.restoring.hunks import parse_ranges
from rewind.history.restoring.opening import open_store
from rewind.history.restoring.partial import plan_partial
from rewind.history.restoring.restore import apply_plan, conflict_message
from rewind.history.restoring.restore_plan import (
    RestorePlan,
    plan_redo,
    plan_restore,
    plan_undo,
)
from rewind.history.restoring.undo_stack import UndoStack, undo_stack
from rewind.history.session import SessionHead, load_head
from rewind.history.sessions import resolve_session
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
    store = open_store(os.fsencode(root))
    session_id = resolve_session(store, arguments.session(session))
    # Relative to the project, whatever directory the client started the server in.
    names = [store.root.stored_name(path, cwd=os.fsencode(root)) for path in given]
    if hunks is not None and len(names) != 1:
        raise UserError("hunks are put back into one file: give exactly one path.")
    # The session as it is: asking for a plan must not close the agent's open turn.
    head = load_head(store, session_id)
    chosen, entries = entries_from(store, head, turn)
    touched = {
        change.path
        for entry in entries
        for change in entry.files
        if not names or change.path in names
    }
    _refuse_the_open_turns(head, store, touched)
    plan: RestorePlan
    if hunks is not None:
        ranges = parse_ranges(hunks, chosen.number, store.root.display(names[0]))
        plan = plan_partial(store, session_id, chosen, {names[0]: ranges})
    else:
        plan = plan_restore(store, entries, chosen, names or None)
    return _plan_or_apply(store, head, plan, plan_id, force)


def undo(
    root: str, session: str | None = None, plan_id: str | None = None, force: bool = False
) -> Answer:
    """Takes back the session's newest restore still in effect."""
    return _step(root, session, plan_id, force, UndoStack.next_undo, plan_undo)


def redo(
    root: str, session: str | None = None, plan_id: str | None = None, force: bool = False
) -> Answer:
    """Puts back the restore the session's newest undo took back."""
    return _step(root, session, plan_id, force, UndoStack.next_redo, plan_redo)


def _step(
    root: str,
    session: str | None,
    plan_id: str | None,
    force: bool,
    reversed_next: Callable[[UndoStack], Entry | None],
    planned: Callable[[Store, SessionHead], RestorePlan],
) -> Answer:
    """An undo or a redo: the entry it reverses must not write a file of the open turn."""
    plan_id = arguments.optional_text(plan_id, "plan_id", arguments.PLAN_ID_LIMIT)
    store = open_store(os.fsencode(root))
    session_id = resolve_session(store, arguments.session(session))
    head = load_head(store, session_id)
    entry = reversed_next(undo_stack(store, head))
    _refuse_the_open_turns(head, store, {c.path for c in entry.files} if entry else set())
    return _plan_or_apply(store, head, planned(store, head), plan_id, force)


def _refuse_the_open_turns(head: SessionHead, store: Store, paths: set[bytes]) -> None:
    """Refuses a change to a file the session's open turn has touched."""
    current = head.current
    if current is None or not current.is_open:
        return
    editing = sorted(paths & {change.path for change in current.files})
    if editing:
        shown = ", ".join(store.root.display(path) for path in editing[:5])
        raise UserError(
            f"turn {current.number} is still open and has changed {shown}: the turn is still "
            "editing it, so nothing was changed; leave those files out (paths), or ask again "
            "in the next turn."
        )


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


def _plan_or_apply(
    store: Store, head: SessionHead, plan: RestorePlan, plan_id: str | None, force: bool
) -> Answer:
    """The plan (nothing recorded, nothing written), or, given its id, the plan applied."""
    identity = plan_id_of(plan)
    shown = _plan_data(store, plan, identity)
    if plan_id != identity:
        lead = STALE if plan_id is not None else ""
        text = lead + _plan_text(store, plan, identity)
        return Answer(text, {**shown, "applied": False})
    if plan.conflicts and not force:
        raise ConflictError(conflict_message(store, plan, for_tool=True))
    if not plan.changes:
        return Answer(
            "Nothing to change: every file is already as the plan would leave it.",
            {**shown, "applied": False},
        )
    result = apply_plan(store, plan, force=force)
    if result.entry is None:
        raise UserError("nothing was written; ask for the plan again.")
    _continue_the_open_turn(store, head)
    failed = [store.root.display(path) for path, _ in result.failed]
    text = (
        f"Done: {len(result.entry.files) - len(failed)} file(s) changed, recorded as "
        f"{result.entry.kind} {result.entry.number} ({result.entry.id}); rewind_undo takes it back."
    )
    if failed:
        text += f" Not written (the next rewind command tries again): {', '.join(failed)}."
    if result.skipped:
        left = "; ".join(
            f"{store.root.display(planned.path)} ({planned.reason()})" for planned in result.skipped
        )
        text += f" Left as they are: {left}."
    entry = {"kind": result.entry.kind, "turn": result.entry.number, "id": result.entry.id}
    return Answer(text, {**shown, "applied": True, "entry": entry, "failed": failed})


def _continue_the_open_turn(store: Store, head: SessionHead) -> None:
    """Opens, after the restore, the continuation of the turn that was open when it was asked
    for (the agent's, which the restore closed): the same prompt and agent. A continuation that
    cannot start (a restore still waiting to be finished) is logged; the restore stands."""
    interrupted = head.current
    if interrupted is None or not interrupted.is_open or interrupted.kind != TURN:
        return
    try:
        begin(store, head.session_id, interrupted.prompt, interrupted.agent)
    except UserError as refused:
        store.log_problem(
            f"turn {interrupted.number} was not continued after the restore: {refused}"
        )


def _plan_data(store: Store, plan: RestorePlan, identity: str) -> dict[str, object]:
    return {
        "plan_id": identity,
        "kind": plan.kind,
        "title": plan.title(),
        "files": [
            {
                "path": store.root.display(planned.path),
                "action": planned.action,
                "conflict": planned.conflict,
                "reason": planned.reason() if planned.action == "cannot" else None,
            }
            for planned in plan.files
        ],
    }


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
