"""Putting files back: a restore to before a turn (all its files, some, or some hunks of one),
a version of one file, an undo, a redo. Each is a plan first (what would be written, what
conflicts, what cannot be), then carried out under a :class:`Policy`.

The rules, once for every interface:

- **Who asks.** A person (the command line, the TUI, the API) asks from outside the agent's
  turn: the session's open turn is closed first (its changes so far recorded), and the plan is
  made on top. The agent asking mid-turn (the MCP server) must not close its own turn by asking:
  a plan is made from the session as it is, and refused when it would write a file the open turn
  has touched (that turn is still editing it); carried out, the restore closes the turn under it
  and opens its continuation (the same prompt), so the agent's next edits stay that prompt's.
- **Conflicts.** A file changed outside rewind since it last recorded it is not overwritten
  unless the policy forces it (its content is saved first, so an undo brings it back); a refusal
  is counted in the stats (``rewind stats``), whoever asked.
- **The journal.** Carrying out goes through the restore engine (rewind.history.restoring.
  restore), which records the entry before writing and finishes what a killed process left.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rewind.errors import ConflictError, UserError
from rewind.history.entry import RESTORE, TURN, Entry
from rewind.history.filestate import FileState
from rewind.history.insight.file_history import Version
from rewind.history.lookup import entries_from, find
from rewind.history.recording.turns import begin, closed_head
from rewind.history.remote.fetched import open_fetched
from rewind.history.restoring.apply import (
    ALREADY,
    CONFLICT,
    DELETE,
    MERGE,
    WRITE,
    ApplyPlan,
    Source,
    fetched_name,
    plan_apply,
    turn_range,
)
from rewind.history.restoring.apply import (
    REFUSED as NOT_APPLIED,
)
from rewind.history.restoring.hunks import (
    ADDED,
    Choice,
    Hunk,
    Ranges,
    Selection,
    describe_selection,
    parse_ranges,
)
from rewind.history.restoring.opening import open_current_store, open_store
from rewind.history.restoring.partial import (
    FileHunks,
    NoHunks,
    PartialPlan,
    PartialRefused,
    applicable,
    file_hunks,
    plan_partial,
    turn_hunks,
)
from rewind.history.restoring.restore import RestoreResult, apply_plan, conflict_message
from rewind.history.restoring.restore_events import (
    REFUSED,
    RestoreCounts,
    note_restore,
    restore_counts,
)
from rewind.history.restoring.restore_plan import (
    CANNOT,
    RECREATE,
    RESTORE_FILE,
    UNCHANGED,
    PlannedFile,
    RestorePlan,
    plan_redo,
    plan_restore,
    plan_undo,
)
from rewind.history.restoring.versions import VersionPlan, find_version
from rewind.history.restoring.versions import plan_version as _plan_version
from rewind.history.session import SessionHead, load_head, require_existing
from rewind.history.sessions import resolve_session
from rewind.store.repository import Store

UNDO_STEP = "undo"
REDO_STEP = "redo"


@dataclass(frozen=True)
class Policy:
    """How a plan is made and carried out. ``force``: files changed outside rewind are
    overwritten (their content saved first). ``agent``: the agent itself asks, during its own
    turn (the MCP server): see the module's doc."""

    force: bool = False
    agent: bool = False


PERSON = Policy()


@dataclass
class Outcome:
    """What carrying out a plan did: the entry recorded (None when nothing had to change), the
    files written, those that could not be (and why), those the plan left as they are."""

    plan: RestorePlan
    entry: Entry | None
    failed: list[tuple[bytes, str]] = field(default_factory=list)
    skipped: list[PlannedFile] = field(default_factory=list)

    @property
    def written(self) -> int:
        return len(self.entry.files) - len(self.failed) if self.entry is not None else 0


class Conflicts(ConflictError):
    """Files changed outside rewind since it last recorded them: nothing was written. Its
    message is the command line's, or the MCP tools' (``for_tool``)."""

    def __init__(self, store: Store, plan: RestorePlan, for_tool: bool = False) -> None:
        super().__init__(conflict_message(store, plan, for_tool=for_tool))
        self.plan = plan


# plans ---------------------------------------------------------------------------------------


def open_project(root: bytes, create: bool = False) -> Store:
    """The store of the project at ``root`` (made with ``create``), any restore a killed
    process left half done finished first."""
    return open_store(root, create=create)


def head_for(store: Store, session: str | None, policy: Policy = PERSON) -> SessionHead:
    """The session's head to plan from: with its open turn closed for a person; as it is for
    the agent asking during its own turn."""
    session_id = resolve_session(store, session)
    if policy.agent:
        return load_head(store, session_id)
    return closed_head(store, session_id)


def plan_turn(
    store: Store,
    session: str | None,
    turn: str,
    paths: list[bytes] | None = None,
    policy: Policy = PERSON,
) -> RestorePlan:
    """Every file ``turn`` and the later entries touched (or only ``paths``), back as before
    ``turn``."""
    head = head_for(store, session, policy)
    chosen, entries = entries_from(store, head, turn)
    if policy.agent:
        touched = {c.path for entry in entries for c in entry.files if not paths or c.path in paths}
        refuse_the_open_turns(store, head, touched)
    return plan_restore(store, entries, chosen, paths)


def plan_hunks(
    store: Store,
    session: str | None,
    turn: str,
    chosen: dict[bytes, Choice],
    policy: Policy = PERSON,
    sources: dict[bytes, FileHunks] | None = None,
) -> PartialPlan:
    """Some hunks (or lines) of what ``turn`` did to files, put back into them as they are now.
    ``chosen``: per path, the hunks as ``--hunks`` writes them, or a Selection; ``sources``:
    per path, the hunks to number them in, when not the turn's (a step of a file's history)."""
    head = head_for(store, session, policy)
    entry = find(store, head, turn)
    if policy.agent:
        refuse_the_open_turns(store, head, set(chosen))
    return plan_partial(store, head.session_id, entry, chosen, sources)


def turn_of(store: Store, session: str | None, turn: str, policy: Policy = PERSON) -> Entry:
    """The entry ``turn`` names (a number, or an id or a prefix of it) in the session."""
    return find(store, head_for(store, session, policy), turn)


def hunks_of(store: Store, entry: Entry, path: bytes) -> FileHunks:
    """The numbered hunks of what ``entry`` did to the text file ``path`` (NoHunks: a binary
    file, a symlink, a content not recorded)."""
    return turn_hunks(store, entry, path)


def hunks_between(store: Store, path: bytes, before: FileState, after: FileState) -> FileHunks:
    """The numbered hunks from one recorded state of ``path`` to another (NoHunks as above)."""
    return file_hunks(store, path, before, after)


def still_apply(store: Store, found: FileHunks) -> dict[int, str]:
    """The hunks of ``found`` that could no longer be put back into the file as it is now, and
    why."""
    return applicable(store, found)


def refuse_conflicts(store: Store, plan: RestorePlan, policy: Policy, counted: bool = True) -> None:
    """Refuses a plan with conflicts its policy does not force, writing nothing (``counted``:
    in the stats, as a refused restore; a dry run is not one)."""
    if plan.conflicts and not policy.force:
        if counted:
            note_restore(store, plan.kind, REFUSED, len(plan.conflicts))
        raise Conflicts(store, plan, for_tool=policy.agent)


def parse_hunks(text: str, entry_number: int | str, shown: str) -> Ranges:
    """``--hunks`` as people write it (``1,3``, ``2:1-3``): a UserError naming what is wrong."""
    return parse_ranges(text, entry_number, shown)


def plan_version(
    store: Store,
    session: str | None,
    path: bytes,
    version: str | Version,
    policy: Policy = PERSON,
) -> VersionPlan:
    """``path`` back to one version: ``ID`` (as entry ID left it) or ``ID^`` (as it was just
    before), from any session of the project, or a Version of its history."""
    head = head_for(store, session, policy)
    if policy.agent:
        refuse_the_open_turns(store, head, {path})
    found = find_version(store, path, version) if isinstance(version, str) else version
    return _plan_version(store, head.session_id, found, path)


def plan_step(store: Store, session: str | None, step: str, policy: Policy = PERSON) -> RestorePlan:
    """An undo (the newest restore still in effect, taken back) or a redo (the newest undo's
    restore, put back)."""
    head = head_for(store, session, policy)
    planned = plan_undo if step == UNDO_STEP else plan_redo
    plan = planned(store, head)
    if policy.agent:
        refuse_the_open_turns(store, head, {c.path for c in plan.subject.files})
    return plan


def plan_applying(
    store: Store,
    into: str | None,
    source_session: str,
    turns: str,
    remote: str | None = None,
    paths: list[bytes] | None = None,
    hint: str = "",
) -> ApplyPlan:
    """Another session's turns (``TURN`` or ``TURN..TURN2``, of this project's sessions or one
    fetched from ``remote``) merged into this work tree, recorded in session ``into`` (whose
    open turn is closed first); ``hint`` is the command that shows the plan again."""
    if remote is None:
        head = require_existing(store, source_session)
        source = Source(store, head, f"session {head.session_id}")
    else:
        view, session = open_fetched(store, remote, source_session)
        name = fetched_name(remote, view, session)
        source = Source(view, require_existing(view, session), name, remote)
    entries = turn_range(source.store, source.head, turns)
    session_id = resolve_session(store, into, create=True)
    if load_head(store, session_id).current is not None:
        closed_head(store, session_id)  # its last changes recorded, for the check against them
    return plan_apply(store, session_id, source, entries, paths, hint)


def replan(store: Store, plan: RestorePlan, paths: list[bytes]) -> RestorePlan:
    """A restore's plan again, for ``paths`` only, from what is on disk now (a person chose
    some of its files); an undo or a redo is carried out whole."""
    if type(plan) is not RestorePlan or plan.kind != RESTORE:
        return plan
    return plan_turn(store, plan.session, plan.subject.id, paths)


def refuse_the_open_turns(store: Store, head: SessionHead, paths: set[bytes]) -> None:
    """Refuses a change to a file the session's open turn has touched: that turn is still
    editing it."""
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


# carrying out --------------------------------------------------------------------------------


def carry_out(store: Store, plan: RestorePlan, policy: Policy = PERSON) -> Outcome:
    """Carries ``plan`` out: refused, counted and changing nothing when it has conflicts the
    policy does not force (:class:`Conflicts`); else recorded, then written (files already as
    the plan leaves them are not an entry). The agent's open turn is continued afterwards."""
    refuse_conflicts(store, plan, policy)
    interrupted = load_head(store, plan.session).current if policy.agent else None
    result: RestoreResult = apply_plan(store, plan, force=policy.force)
    if result.entry is not None and interrupted is not None:
        _continue(store, interrupted)
    return Outcome(plan, result.entry, list(result.failed), list(result.skipped))


def _continue(store: Store, interrupted: Entry) -> None:
    """Opens, after the restore, the continuation of the agent's turn the restore closed: the
    same prompt and agent. One that cannot start (a restore still waiting to be finished) is
    logged; the restore stands."""
    if not interrupted.is_open or interrupted.kind != TURN:
        return
    try:
        begin(store, interrupted.session, interrupted.prompt, interrupted.agent)
    except UserError as refused:
        store.log_problem(
            f"turn {interrupted.number} was not continued after the restore: {refused}"
        )


# What a planned file's action is (PlannedFile.action): RESTORE_FILE, RECREATE, UNCHANGED,
# CANNOT, and DELETE, the same word as an apply's outcome of that name.
__all__ = [
    "ADDED",
    "ALREADY",
    "CANNOT",
    "CONFLICT",
    "DELETE",
    "MERGE",
    "NOT_APPLIED",
    "PERSON",
    "RECREATE",
    "REDO_STEP",
    "RESTORE_FILE",
    "UNCHANGED",
    "UNDO_STEP",
    "WRITE",
    "ApplyPlan",
    "Choice",
    "Conflicts",
    "FileHunks",
    "Hunk",
    "NoHunks",
    "Outcome",
    "PartialPlan",
    "PartialRefused",
    "PlannedFile",
    "Policy",
    "RestoreCounts",
    "RestorePlan",
    "Selection",
    "Version",
    "VersionPlan",
    "carry_out",
    "describe_selection",
    "head_for",
    "hunks_between",
    "hunks_of",
    "open_current_store",
    "open_project",
    "parse_hunks",
    "plan_applying",
    "plan_hunks",
    "plan_step",
    "plan_turn",
    "plan_version",
    "refuse_conflicts",
    "refuse_the_open_turns",
    "replan",
    "restore_counts",
    "still_apply",
    "turn_of",
]
