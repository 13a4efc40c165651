"""The TUI's bridge to the restore engine: the same functions ``rewind restore`` and ``rewind
undo`` use, with every refusal turned into an outcome the interface can show.

No Textual here: this module is plain engine calls, testable without a screen.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewind.commands.restore import settled_head
from rewind.errors import UserError
from rewind.history.entry import UNDO
from rewind.history.lookup import entries_from, entries_to_undo
from rewind.history.restore import RestoreResult, apply_plan
from rewind.history.restore_plan import RestorePlan, plan_restore, plan_undo
from rewind.store.repository import Store


@dataclass(frozen=True)
class RestoreOutcome:
    """What a restore or an undo did, as one sentence, and whether ``undo_last`` reverses it."""

    message: str
    undoable: bool = False


def plan_for(
    store: Store, session_id: str, entry_number_or_id: int | str, paths: list[bytes] | None = None
) -> RestorePlan:
    """The plan for restoring ``paths`` (all by default) to before a turn, after closing the
    session's open turn as ``rewind restore`` does. Raises UserError as the CLI would."""
    chosen, entries = entries_from(store, settled_head(store, session_id), str(entry_number_or_id))
    return plan_restore(store, entries, chosen, paths)


def restore(
    store: Store,
    plan: RestorePlan,
    force_paths: set[bytes],
    chosen: set[bytes] | None = None,
) -> RestoreOutcome:
    """Carries out ``plan`` for the ``chosen`` paths (all of its files by default), leaving the
    files changed outside since alone unless they are in ``force_paths``."""
    wanted = {f.path for f in plan.files} if chosen is None else chosen
    conflicts = {f.path for f in plan.conflicts}
    excluded = conflicts - force_paths
    kept = [f.path for f in plan.files if f.path in wanted and f.path not in excluded]
    left_alone = len(wanted & excluded)
    if not kept:
        return RestoreOutcome(_nothing(plan, left_alone))
    try:
        final = _replan(store, plan, kept)
        unforced = [f for f in final.conflicts if f.path not in force_paths]
        if unforced:
            return RestoreOutcome(
                f"{store.root.display(unforced[0].path)} changed while the restore was being "
                "prepared; nothing was written."
            )
        result = apply_plan(store, final, force=bool(force_paths))
    except UserError as error:
        return RestoreOutcome(_sentence(str(error)))
    return _outcome(store, final, result, left_alone)


def undo_last(store: Store, session_id: str) -> RestoreOutcome:
    """Undoes the session's last restore or undo, as ``rewind undo --yes`` does."""
    try:
        plan = plan_undo(store, entries_to_undo(store, settled_head(store, session_id)))
        result = apply_plan(store, plan)
    except UserError as error:
        return RestoreOutcome(_sentence(str(error)))
    return _outcome(store, plan, result, 0)


def _replan(store: Store, plan: RestorePlan, kept: list[bytes]) -> RestorePlan:
    """The plan again, for ``kept`` only, from what is on disk now."""
    if plan.kind == UNDO:
        return plan  # an undo plan is carried out whole (undo_last makes it)
    chosen, entries = entries_from(store, settled_head(store, plan.session), plan.subject.id)
    return plan_restore(store, entries, chosen, kept)


def _outcome(
    store: Store, plan: RestorePlan, result: RestoreResult, left_alone: int
) -> RestoreOutcome:
    entry = result.entry
    if entry is None:
        return RestoreOutcome(_nothing(plan, left_alone))
    done = len(entry.files) - len(result.failed)
    files = _files(done)
    if plan.kind == UNDO:
        message = f"Undid {plan.subject.kind} {plan.subject.number}: {files} put back"
    else:
        message = f"Restored {files} to before turn {plan.subject.number}"
    message += f" ({entry.kind} {entry.number})"
    if left_alone:
        message += f"; left {_files(left_alone)} changed outside alone"
    if result.failed:
        message += (
            f"; {_files(len(result.failed))} could not be written, the next rewind command "
            "tries again"
        )
    return RestoreOutcome(message + ".", undoable=True)


def _nothing(plan: RestorePlan, left_alone: int) -> str:
    if left_alone:
        return f"Nothing was restored: {_files(left_alone)} changed outside were left alone."
    if plan.kind == UNDO:
        return f"Nothing to undo: every file is already as it was before {plan.subject.kind}."
    return f"Nothing to restore: every file is already as it was before turn {plan.subject.number}."


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


def _sentence(text: str) -> str:
    """An engine message as a sentence: capitalised and ending in a full stop."""
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."
