from __future__ import annotations

import sys

from rewind.actions.changes import (
    PartialPlan,
    Policy,
    RestorePlan,
    open_current_store,
    plan_turn,
    plan_version,
    refuse_conflicts,
)
from rewind.actions.changes import (
    carry_out as carried_out,
)
from rewind.actions.records import plan_json
from rewind.actions.resuming import check as check_resume
from rewind.commands.output.asking import asked_yes
from rewind.commands.output.json_output import print_json, refuse_json_without_dry_run
from rewind.commands.output.render import colour_diff, paint, plan_text, use_colour
from rewind.commands.restore_hunks import partial_plan
from rewind.errors import ExitCode, UserError
from rewind.history.entry import REDO, UNDO, Entry
from rewind.history.filestate import TOO_LARGE
from rewind.store.repository import Store


def run(
    *,
    session: str | None,
    turn: str | None,
    paths: list[str] | None,
    dry_run: bool,
    force: bool,
    yes: bool,
    as_json: bool = False,
    list_all: bool = False,
    version: str | None = None,
    patch: bool = False,
    hunks: list[str] | None = None,
    conversation: bool = False,
) -> int:
    refuse_json_without_dry_run(as_json, dry_run, "restore TURN")
    _check_options(turn, paths, version, patch, hunks, as_json)
    if conversation and (paths or version or patch or hunks):
        raise UserError(
            "--conversation goes back to before a whole turn; restore the files of one turn "
            "without --path, --version, --patch or --hunks ('rewind restore TURN --conversation')."
        )
    store = open_current_store()
    options = {"dry_run": dry_run, "force": force, "yes": yes, "as_json": as_json}
    if version is not None:
        assert paths is not None
        path = store.root.stored_name(paths[0])
        plan: RestorePlan = plan_version(store, session, path, version)
        return carry_out(store, plan, list_all=list_all, **options)
    assert turn is not None
    if patch or hunks:
        assert paths is not None
        names = [store.root.stored_name(path) for path in paths]
        partial = partial_plan(store, session, turn, names, hunks)
        if partial is None:
            print("No hunk was chosen; nothing was changed.")
            return ExitCode.USER_ERROR
        # With --patch on a terminal, the chosen hunks' summary and resulting diff are shown and
        # confirmed once more, as for any restore (an answer to the last hunk is not a 'go').
        return carry_out(store, partial, list_all=list_all, **options)
    only = [store.root.stored_name(path) for path in paths] if paths else None
    plan = plan_turn(store, session, turn, only)
    chosen = plan.subject
    if conversation:  # refused before any file changes when it cannot be resumed
        check_resume(store, chosen, check_client=not dry_run)
    code = carry_out(store, plan, list_all=list_all, **options)
    if conversation and code == ExitCode.OK and not dry_run:
        from rewind.commands.resume import resume_from

        return resume_from(store, chosen, "", print_only=False, as_json=False, extra=[])
    if conversation and dry_run and not as_json:
        print(f"Then the conversation would be resumed from before turn {chosen.number}.")
    if conversation and code == ExitCode.INCOMPLETE:
        print(
            "rewind: the conversation was not resumed, since some files are not as before the "
            f"turn; once they are, run 'rewind resume {chosen.number}'.",
            file=sys.stderr,
        )
    return code


def _check_options(
    turn: str | None,
    paths: list[str] | None,
    version: str | None,
    patch: bool,
    hunks: list[str] | None,
    as_json: bool,
) -> None:
    """Refuses the combinations that mean nothing, each with what to give instead."""
    if version is not None:
        if turn is not None:
            raise UserError(
                "give either TURN or --version VERSION, not both: --version names the entry "
                "itself ('rewind restore --path P --version ID^')."
            )
        if patch or hunks:
            raise UserError(
                "--version restores a whole version; --patch and --hunks take a TURN instead "
                "('rewind restore TURN --path P --hunks 1')."
            )
        if not paths or len(paths) != 1:
            raise UserError("--version needs exactly one --path: the file to bring back.")
        return
    if turn is None:
        raise UserError(
            "give the TURN to restore to ('rewind log' lists them), or --path P --version ID."
        )
    if patch and hunks:
        raise UserError("give either --patch (to choose hunk by hunk) or --hunks, not both.")
    if hunks and (not paths or len(paths) != 1):
        raise UserError(
            "--hunks needs exactly one --path, the file whose hunks are numbered; run it once "
            "per file, or use --patch."
        )
    if patch and not paths:
        raise UserError("--patch needs --path P (repeatable): the files to go through.")
    if patch and as_json:
        raise UserError("--patch asks about each hunk; use --hunks N with --dry-run --json.")


def carry_out(
    store: Store,
    plan: RestorePlan,
    *,
    dry_run: bool,
    force: bool,
    yes: bool,
    as_json: bool = False,
    list_all: bool = False,
) -> int:
    colour = use_colour()
    if as_json:  # only with --dry-run (refuse_json_without_dry_run)
        print_json(plan_json(plan))
    else:
        print(plan_text(store, plan, colour, full=list_all or not sys.stdout.isatty()))
        if isinstance(plan, PartialPlan):
            for planned in plan.changes:
                print(colour_diff(plan.resulting_diff(planned), colour), end="")
    policy = Policy(force=force)
    refuse_conflicts(store, plan, policy, counted=not dry_run)
    if dry_run:
        return 0
    if not plan.changes:
        return _incomplete(store, plan)
    if (
        not yes
        and sys.stdin.isatty()
        and not asked_yes(f"Change these {len(plan.changes)} file(s)?")
    ):
        print("Nothing was changed.")
        return 1
    outcome = carried_out(store, plan, policy)
    for path, error in outcome.failed:
        print(f"rewind: could not write {store.root.display(path)}: {error}", file=sys.stderr)
    if outcome.entry is None:
        return _incomplete(store, plan)
    print(paint(done_message(plan, outcome.entry, outcome.written), "green", colour))
    if outcome.failed:
        raise UserError(
            f"{len(outcome.failed)} file(s) could not be written; the restore will be finished "
            "by the next rewind command once the cause is fixed, or 'rewind undo' takes it back "
            "(see 'rewind status' for the log)."
        )
    return _incomplete(store, plan)


def done_message(plan: RestorePlan, entry: Entry, done: int) -> str:
    """What a restore, an undo or a redo that was carried out says, with the way back."""
    recorded = f"{done} file(s), as {entry.kind} {entry.number} ({entry.id})"
    restore = f"{plan.restore.kind} {plan.restore.number}"
    if plan.kind == UNDO:
        return f"Took back {restore}: {recorded}; 'rewind redo' puts it back."
    if plan.kind == REDO:
        return f"Put back {restore}: {recorded}; 'rewind undo' takes it back."
    return f"Restored {recorded}; 'rewind undo' takes it back."


def _incomplete(store: Store, plan: RestorePlan) -> int:
    """Says which files could not be brought back (their earlier content was never recorded,
    or what is there now is never replaced) and gives INCOMPLETE, else OK."""
    blocked = plan.blocked
    if not blocked:
        return ExitCode.OK
    named = "; ".join(
        f"{store.root.display(planned.path)}: {planned.reason()}" for planned in blocked[:3]
    )
    extra = len(blocked) - 3
    more = f"; and {extra} more (--dry-run --list shows them)" if extra > 0 else ""
    others = " (the other files were)" if plan.changes else ""
    hint = (
        " raise max_file_size in rewind.toml to record such files in full from now on."
        if any(planned.target.kind == TOO_LARGE for planned in blocked)
        else " they are left as they are."
    )
    print(
        f"rewind: {len(blocked)} file(s) could not be brought back{others}: {named}{more};" + hint,
        file=sys.stderr,
    )
    return ExitCode.INCOMPLETE
