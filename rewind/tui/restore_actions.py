"""The TUI's bridge to the action layer (rewind.actions.changes): the same plans and the same
carrying out as ``rewind restore`` and ``rewind undo``, with every refusal turned into an
outcome the interface can show.

No Textual here: this module is plain calls, testable without a screen.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewind.actions.changes import (
    PERSON,
    REDO_STEP,
    UNDO_STEP,
    FileHunks,
    NoHunks,
    Outcome,
    PartialPlan,
    Policy,
    RestorePlan,
    Selection,
    Version,
    VersionPlan,
    carry_out,
    hunks_between,
    hunks_of,
    plan_hunks,
    plan_step,
    plan_turn,
    plan_version,
    replan,
    still_apply,
)
from rewind.errors import UserError
from rewind.history.entry import REDO, RESTORE, UNDO, Entry
from rewind.store.repository import Store


@dataclass(frozen=True)
class RestoreOutcome:
    """What a restore or an undo did, as one sentence, and whether ``undo_last`` reverses it;
    ``resume``: the turn whose conversation is to be resumed once the TUI has closed."""

    message: str
    undoable: bool = False
    resume: Entry | None = None


def plan_for(
    store: Store, session_id: str, entry_number_or_id: int | str, paths: list[bytes] | None = None
) -> RestorePlan:
    """The plan for restoring ``paths`` (all by default) to before a turn, after closing the
    session's open turn as ``rewind restore`` does. Raises UserError as the CLI would."""
    return plan_turn(store, session_id, str(entry_number_or_id), paths)


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
        final = replan(store, plan, kept)
        unforced = [f for f in final.conflicts if f.path not in force_paths]
        if unforced:
            return RestoreOutcome(
                f"{store.root.display(unforced[0].path)} changed while the restore was being "
                "prepared; nothing was written."
            )
        result = carry_out(store, final, Policy(force=bool(force_paths)))
    except UserError as error:
        return RestoreOutcome(_sentence(str(error)))
    return _outcome(store, final, result, left_alone)


def redo_last(store: Store, session_id: str) -> RestoreOutcome:
    """Puts back the restore the session's newest undo took back, as ``rewind redo --yes``
    does."""
    return _step(store, session_id, REDO_STEP)


def undo_last(store: Store, session_id: str) -> RestoreOutcome:
    """Takes back the session's newest restore still in effect, as ``rewind undo --yes``
    does."""
    return _step(store, session_id, UNDO_STEP)


def _step(store: Store, session_id: str, step: str) -> RestoreOutcome:
    try:
        plan = plan_step(store, session_id, step)
        result = carry_out(store, plan, PERSON)
    except UserError as error:
        return RestoreOutcome(_sentence(str(error)))
    return _outcome(store, plan, result, 0)


class HunkChoice:
    """The hunks of one file's diff to choose from, and how to put the chosen ones back.

    What the hunk picker needs, whichever diff the hunks come from: what a turn did to the
    file (:func:`turn_choice`) or, for a file's history, a version against the one before it
    (``HunkChoice(store, session_id, entry, file_hunks(store, path, before, after), title)``).
    """

    def __init__(
        self, store: Store, session_id: str, subject: Entry, found: FileHunks, title: str
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.subject = subject  # the entry the restore names
        self.found = found
        self.title = title  # what the diff is, for people: "f.txt: what turn 2 changed"

    @property
    def name(self) -> str:
        return self.store.root.display(self.found.path)

    def blocked(self) -> dict[int, str]:
        """The hunks that could not be put back into the file as it is now, and why. Raises
        UserError (in the TUI's words) when the file is gone or binary now."""
        try:
            return still_apply(self.store, self.found)
        except NoHunks as error:
            raise UserError(_whole_file(error)) from None

    def plan(self, selection: Selection) -> PartialPlan:
        """The plan for the ``selection``, after closing the session's open turn as ``rewind
        restore`` does. Raises PartialRefused (hunks that no longer apply) or UserError."""
        path = self.found.path
        try:
            return plan_hunks(
                self.store,
                self.session_id,
                self.subject.id,
                {path: selection},
                sources={path: self.found},
            )
        except NoHunks as error:
            raise UserError(_whole_file(error)) from None


def turn_choice(store: Store, session_id: str, entry: Entry, path: bytes) -> HunkChoice:
    """The hunks of what ``entry`` did to ``path``. Raises UserError saying why there are none
    to choose (an open turn, a binary file, a symlink, a content not recorded)."""
    shown = store.root.display(path)
    if entry.is_open:
        raise UserError(
            f"{entry.kind} {entry.number} is still open, so {shown} as it leaves it is not "
            "recorded yet; its hunks can be put back once it ends."
        )
    try:
        found = hunks_of(store, entry, path)
    except NoHunks as error:
        raise UserError(_whole_file(error)) from None
    if not found.hunks:
        raise UserError(f"{entry.kind} {entry.number} changed no line of {shown}.")
    return HunkChoice(
        store, session_id, entry, found, f"{shown}: what {entry.kind} {entry.number} changed"
    )


def version_plan(store: Store, session_id: str, version: Version, path: bytes) -> VersionPlan:
    """The plan that writes ``version`` at ``path`` (the file's name now), after closing the
    session's open turn as ``rewind restore --version`` does."""
    return plan_version(store, session_id, path, version)


def restore_version(store: Store, plan: VersionPlan, force: bool) -> RestoreOutcome:
    """Carries out ``plan``: ``Restored config.yaml to version 31120ebfe7e1^ (restore 4); 'u'
    undoes it.``, or the sentence saying why nothing was written. A file changed since rewind
    last saw it is written only with ``force``; the plan is made again from what is on disk
    now, so a change made while the person was reading the confirmation is refused too."""
    name = store.root.display(plan.path)
    try:
        final = plan_version(store, plan.session, plan.path, plan.version)
        if final.conflicts and not force:
            return RestoreOutcome(
                f"{name} {final.conflicts[0].reason()}, so it was left alone: press r again "
                "and check it in the confirmation to overwrite it (u would bring it back)."
            )
        if final.blocked:
            return RestoreOutcome(f"{name} cannot be restored: {final.blocked[0].reason()}.")
        result = carry_out(store, final, Policy(force=force))
    except UserError as error:
        return RestoreOutcome(_full_stop(str(error)))
    entry = result.entry
    if entry is None:
        return RestoreOutcome(f"Nothing to restore: {name} already is version {plan.version.id}.")
    if result.failed:
        return RestoreOutcome(
            f"{name} could not be written ({entry.kind} {entry.number}); the next rewind "
            "command tries again."
        )
    return RestoreOutcome(
        f"Restored {name} to version {plan.version.id} ({entry.kind} {entry.number}); "
        "'u' undoes it.",
        undoable=True,
    )


def step_choice(
    store: Store, session_id: str, older: Version, newer: Version, path: bytes
) -> HunkChoice:
    """The hunks of one step of a file's history (``older`` to ``newer``), to put back into
    the file as it is now at ``path``. Raises UserError saying why there are none."""
    shown = store.root.display(path)
    try:
        found = hunks_between(store, path, older.state, newer.state)
    except NoHunks as error:
        raise UserError(
            f"No hunks to choose: {error.why}; press r to restore a whole version instead."
        ) from None
    if not found.hunks:
        raise UserError(f"Version {newer.id} changed no line of {shown}.")
    title = f"{shown}: version {newer.id} against {older.id}"
    return HunkChoice(store, session_id, newer.entry, found, title)


def _whole_file(error: NoHunks) -> str:
    """Why a file has no hunks, with the TUI's advice instead of the command line's."""
    return (
        f"No hunks to choose: {error.why}; restore the whole file from the rewind menu "
        "(Esc Esc, then Choose files) instead."
    )


def put_back(store: Store, plan: PartialPlan) -> RestoreOutcome:
    """Carries out a partial rewind: ``Put back 2 hunks of f.txt (restore 7); 'u' undoes it.``,
    or the sentence saying why nothing was written."""
    try:
        result = carry_out(store, plan, PERSON)
    except UserError as error:
        return RestoreOutcome(_full_stop(str(error)))  # it may begin with a file's name
    entry = result.entry
    names = ", ".join(store.root.display(path) for path in plan.chosen)
    if entry is None:
        return RestoreOutcome(f"Nothing to put back: {names} already reads as it would.")
    chosen = "; ".join(
        f"{_chosen_words(selection)} of {store.root.display(path)}"
        for path, selection in plan.chosen.items()
    )
    return RestoreOutcome(
        f"Put back {chosen} ({entry.kind} {entry.number}); 'u' undoes it.", undoable=True
    )


def _chosen_words(selection: Selection) -> str:
    """``2 hunks``, ``1 hunk and 2 lines of hunk 3``."""
    whole = sum(1 for lines in selection.values() if lines is None)
    words = [f"{whole} hunk" + ("" if whole == 1 else "s")] if whole else []
    for number, lines in sorted(selection.items()):
        if lines is not None:
            words.append(
                f"{len(lines)} line" + ("" if len(lines) == 1 else "s") + f" of hunk {number}"
            )
    return " and ".join(words)


def _outcome(store: Store, plan: RestorePlan, result: Outcome, left_alone: int) -> RestoreOutcome:
    entry = result.entry
    if entry is None:
        return RestoreOutcome(_nothing(plan, left_alone))
    files = _files(result.written)
    if plan.kind == UNDO:
        message = f"Took back {plan.restore.kind} {plan.restore.number}: {files} put back"
    elif plan.kind == REDO:
        message = f"Put back {plan.restore.kind} {plan.restore.number}: {files} written"
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
    if plan.kind != RESTORE:
        restore = f"{plan.restore.kind} {plan.restore.number}"
        where = f"before {restore}" if plan.kind == UNDO else f"{restore} left it"
        return f"Nothing to {plan.kind}: every file is already as it was {where}."
    return f"Nothing to restore: every file is already as it was before turn {plan.subject.number}."


def _full_stop(text: str) -> str:
    text = text.strip()
    return text if text.endswith(".") else text + "."


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


def _sentence(text: str) -> str:
    """An engine message as a sentence: capitalised and ending in a full stop."""
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."
