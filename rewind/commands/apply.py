"""``rewind apply [--remote NAME] SESSION TURN[..TURN2]``: another session's changes, merged
into this work tree and recorded so that ``rewind undo`` takes them back
(rewind.history.restoring.apply)."""

from __future__ import annotations

import sys

from rewind.actions.changes import (
    ALREADY,
    CONFLICT,
    DELETE,
    MERGE,
    NOT_APPLIED,
    WRITE,
    ApplyPlan,
    Policy,
    carry_out,
    open_current_store,
    plan_applying,
)
from rewind.actions.records import apply_plan_json
from rewind.commands.output.asking import asked_yes
from rewind.commands.output.json_output import print_json, refuse_json_without_dry_run
from rewind.commands.output.render import paint, use_colour
from rewind.errors import ConflictError, ExitCode, UserError
from rewind.store.repository import Store

_WORDS = {
    WRITE: "write   ",
    DELETE: "delete  ",
    MERGE: "merge   ",
    ALREADY: "already ",
    CONFLICT: "conflict",
    NOT_APPLIED: "refused ",
}


def run(
    *,
    source_session: str,
    turns: str,
    remote: str | None = None,
    paths: list[str] | None = None,
    into: str | None = None,
    skip_conflicts: bool = False,
    dry_run: bool = False,
    force: bool = False,
    yes: bool = False,
    as_json: bool = False,
    list_all: bool = False,
) -> int:
    refuse_json_without_dry_run(as_json, dry_run, "apply SESSION TURN")
    store = open_current_store()
    only = [store.root.stored_name(path) for path in paths] if paths else None
    on = f"--remote {remote} " if remote is not None else ""
    hint = f"rewind apply {on}{source_session} {turns} --dry-run"
    plan = plan_applying(store, into, source_session, turns, remote, only, hint)
    session = plan.session
    if as_json:
        print_json(apply_plan_json(plan))
    elif dry_run or list_all or plan.not_applied:
        print(_plan_text(store, plan, use_colour()))
    left_out = plan.not_applied
    if left_out and not skip_conflicts:
        raise UserError(_refusal(store, plan))
    plan.skip_not_applied()
    if plan.conflicts and not force:
        raise ConflictError(_changed_message(store, plan))
    if dry_run:
        return ExitCode.INCOMPLETE if left_out else ExitCode.OK
    if not plan.changes:
        print(f"Nothing to apply: {plan.title()} is in the work tree already.")
        return _left_out(store, plan)
    if (
        not yes
        and sys.stdin.isatty()
        and not asked_yes(f"Change these {len(plan.changes)} file(s)?")
    ):
        print("Nothing was changed.")
        return ExitCode.USER_ERROR
    result = carry_out(store, plan, Policy(force=force))
    for path, error in result.failed:
        print(f"rewind: could not write {store.root.display(path)}: {error}", file=sys.stderr)
    if result.entry is not None:
        done = len(result.entry.files) - len(result.failed)
        print(
            paint(
                f"Applied {done} file(s) of {plan.title()[len('apply ') :]} as "
                f"{result.entry.kind} {result.entry.number} ({result.entry.id}) of session "
                f"{session}; 'rewind undo' reverses it.",
                "green",
                use_colour(),
            )
        )
    if result.failed:
        raise UserError(
            f"{len(result.failed)} file(s) could not be written; the apply will be finished by "
            "the next rewind command once the cause is fixed, or 'rewind undo' takes it back (see "
            "'rewind status' for the log)."
        )
    return _left_out(store, plan)


def _refusal(store: Store, plan: ApplyPlan) -> str:
    left_out = plan.not_applied
    named = ", ".join(
        f"{store.root.display(item.path)} ({item.outcome}: {item.reason})" for item in left_out[:5]
    )
    more = f" and {len(left_out) - 5} more" if len(left_out) > 5 else ""
    return (
        f"{len(left_out)} file(s) cannot be applied: {named}{more}; nothing was written: use "
        "--path to apply the others, or --skip-conflicts."
    )


def _changed_message(store: Store, plan: ApplyPlan) -> str:
    changed = plan.conflicts
    names = ", ".join(store.root.display(planned.path) for planned in changed[:5])
    return (
        f"{len(changed)} file(s) changed outside rewind since it last recorded them ({names}); "
        "nothing was written. Review them, then rerun with --force to apply anyway (their "
        "current content is saved, so 'rewind undo' brings it back)."
    )


def _left_out(store: Store, plan: ApplyPlan) -> int:
    left_out = plan.not_applied
    if not left_out:
        return ExitCode.OK
    named = "; ".join(
        f"{store.root.display(item.path)} ({item.outcome}: {item.reason})" for item in left_out
    )
    print(f"rewind: {len(left_out)} file(s) were not applied: {named}.", file=sys.stderr)
    return ExitCode.INCOMPLETE


def _plan_text(store: Store, plan: ApplyPlan, colour: bool) -> str:
    lines = [f"{plan.title()}:"]
    changed = {planned.path for planned in plan.conflicts}
    for item in plan.applied:
        reason = item.reason
        if item.path in changed:
            reason = "changed outside rewind since it last recorded it: needs --force"
        line = f"  {_WORDS[item.outcome]}  {store.root.display(item.path)}"
        if reason:
            line += f"  ({reason})"
        if item.outcome in (CONFLICT, NOT_APPLIED) or item.path in changed:
            line = paint(line, "yellow", colour)
        lines.append(line)
    if not plan.applied:
        lines.append("  nothing to apply: the turns changed no file.")
    return "\n".join(lines)
