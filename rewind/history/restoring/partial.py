"""Partial rewinds: putting back some hunks, or some lines, of what a turn did to a file.

The hunks are those of the diff from the file's recorded before-state to its after-state for
the turn (:mod:`rewind.history.restoring.hunks`); the chosen ones are put back into the file as it
is now by a three-way merge, so later edits elsewhere in the file survive, and a hunk that no longer
applies refuses the whole rewind. The result is written by the restore engine as a restore entry, so
``rewind undo`` gives back the exact bytes. The file is re-checked under the store lock: if it
changed after the merge was computed, nothing is written.

    hunks = turn_hunks(store, entry, path)           # what to show, numbered 1..n
    plan = plan_partial(store, session, entry, {path: {1: None, 2: frozenset({1, 2})}})
    apply_plan(store, plan)                          # rewind.history.restoring.restore
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rewind.errors import ConflictError, UserError
from rewind.history.entry import RESTORE, Entry
from rewind.history.filestate import ABSENT, FILE, LINK, FileState, capture, fingerprint
from rewind.history.insight.file_history import MAX_RENAMES
from rewind.history.restoring.hunks import (
    Choice,
    Hunk,
    HunksDoNotApply,
    Refusal,
    Selection,
    describe_selection,
    hunks_between,
    is_binary,
    put_back_hunks,
    refusals,
    resolve_choice,
)
from rewind.history.restoring.restore_plan import PlannedFile, RestorePlan
from rewind.store.repository import Store


class FileHunks:
    """The hunks of one file's diff between two recorded states, with both contents.

    ``path`` is the file the hunks are put back into (its name now); ``recorded_as`` the name
    the states were recorded under, another one when the file was renamed since (or before:
    the name asked about may be the new one)."""

    __slots__ = ("after", "before", "hunks", "path", "recorded_as")

    def __init__(self, path: bytes, before: bytes, after: bytes) -> None:
        self.path = path
        self.recorded_as = path
        self.before = before
        self.after = after
        self.hunks = hunks_between(before, after)


def file_hunks(
    store: Store, path: bytes, before: FileState | None, after: FileState | None
) -> FileHunks:
    """The hunks from ``before`` to ``after`` (any two recorded states of ``path``; an absent
    one counts as empty). Raises UserError unless both are text files whose content was
    recorded."""
    return FileHunks(path, _text_of(store, path, before), _text_of(store, path, after))


def turn_hunks(store: Store, entry: Entry, path: bytes) -> FileHunks:
    """The hunks of what ``entry`` did to the file ``path`` names: its name in ``entry``, or
    its name now, followed through the renames recorded in between, either way."""
    then, now = renamed(store, entry, path)
    change = entry.file(then)
    shown = store.root.display(path)
    if change is None:
        raise UserError(
            f"{entry.kind} {entry.number} did not change {shown}; 'rewind show "
            f"{entry.number}' lists the files it changed."
        )
    if change.after is None:
        raise UserError(
            f"{entry.kind} {entry.number} is still open, so {shown} as it leaves it is not "
            "recorded yet; end the turn first ('rewind end')."
        )
    found = file_hunks(store, then, change.before, change.after)
    found.path = now
    return found


def renamed(store: Store, entry: Entry, path: bytes) -> tuple[bytes, bytes]:
    """The name the file ``path`` names had in ``entry``, and the name it has now. ``path`` is
    either: a name ``entry`` changed, which later entries may have moved (followed forwards
    while no file is there now), or the name now of a file ``entry`` changed under an older
    name (its versions, which follow renames, say which). Unchanged when neither applies."""
    from rewind.history.index.queries import EntryIndex
    from rewind.history.insight.file_history import file_versions, moved_to, touch_key

    change = entry.file(path)
    with EntryIndex(store) as index:
        if change is None:
            for version in file_versions(store, path, index, count_lines=False):
                same = version.entry.session == entry.session
                if same and version.entry.number == entry.number and version.path != path:
                    return version.path, path
            return path, path
        now, key = path, touch_key(entry, change)
        for _ in range(MAX_RENAMES):
            if os.path.lexists(store.root.absolute(now)):
                break
            moved = moved_to(index, now, key)
            if moved is None:
                break
            now, key = moved
        return path, now


class NoHunks(UserError):
    """A file that has no hunks to choose (binary, a symlink, not recorded, gone now).

    ``why`` says what the file is, without the command line's advice, for other front ends
    to add their own."""

    def __init__(self, why: str, advice: str) -> None:
        super().__init__(f"{why}; {advice}")
        self.why = why


_WHOLE_FILE = "restore the whole file instead (without --hunks or --patch)."


def _text_of(store: Store, path: bytes, state: FileState | None) -> bytes:
    shown = store.root.display(path)
    if state is not None and state.kind == ABSENT:
        return b""
    if state is not None and state.kind == LINK:
        raise NoHunks(f"{shown} is a symlink there", f"hunks are for text files, {_WHOLE_FILE}")
    if state is None or state.kind != FILE or state.oid is None:
        kind = state.kind if state is not None else "unknown"
        raise NoHunks(
            f"the content of {shown} was not recorded there ({kind}), so it has no hunks",
            "'rewind show' shows what was recorded.",
        )
    data = store.reader.read_blob(state.oid)
    if is_binary(data):
        raise NoHunks(f"{shown} is a binary file", f"hunks are for text files, {_WHOLE_FILE}")
    return data


def read_now(store: Store, path: bytes) -> tuple[FileState, bytes]:
    """The text file ``path`` as it is now: its state and its content, read once."""
    shown = store.root.display(path)
    blocked_by = store.root.why_not_writable(path)
    if blocked_by:  # never read through a folder that leads out of the project
        raise NoHunks(f"{shown} {blocked_by}", "rewind never writes it, nor reads it, there.")
    absolute = store.root.absolute(path)
    state = capture(absolute, store.config.max_file_size)
    if state.kind != FILE:
        what = "does not exist" if state.kind == ABSENT else f"is a {state.kind}"
        raise NoHunks(f"{shown} {what} now, so no hunk can be put back into it", _WHOLE_FILE)
    with open(absolute, "rb") as handle:
        data = handle.read()
    if fingerprint(data) != state.xxh:
        raise ConflictError(f"{shown} changed while it was being read; run the command again.")
    if is_binary(data):
        raise NoHunks(f"{shown} is a binary file now", "hunks are for text files.")
    return state, data


class PartialRefused(ConflictError):
    """Chosen hunks that no longer apply, file by file: nothing was written."""

    def __init__(self, refused: list[tuple[bytes, Refusal]], message: str) -> None:
        super().__init__(message)
        self.refused = refused


class PartialPlan(RestorePlan):
    """A restore of some hunks (or lines) of what one turn did to some files."""

    __slots__ = ("chosen", "hunks", "now")

    def __init__(
        self,
        session: str,
        subject: Entry,
        files: list[PlannedFile],
        hunks: dict[bytes, FileHunks],
        chosen: dict[bytes, Selection],
        now: dict[bytes, bytes],
    ) -> None:
        super().__init__(RESTORE, session, subject, files)
        self.hunks = hunks  # per path, the hunks of the turn's diff
        self.chosen = chosen  # per path, the hunks and lines put back
        self.now = now  # per path, the content the merge was computed against

    def resulting_diff(self, planned: PlannedFile) -> str:
        """The unified diff from the file as it is now to what the rewind writes."""
        from rewind.store.line_diffs import unified_diff

        name = planned.path.decode("utf-8", "backslashreplace")
        return unified_diff(self.now[planned.path], planned.content, name).text

    def title(self) -> str:
        return (
            f"put back hunks of {self.subject.kind} {self.subject.number} of session {self.session}"
        )

    def prompt(self) -> str:
        chosen = "; ".join(
            f"{os.fsdecode(path)} {describe_selection(selection)}"
            for path, selection in self.chosen.items()
        )
        return f"put back hunks of turn {self.subject.number}: {chosen}"

    def entry_target(self) -> dict[str, object]:
        return {
            "entry": self.subject.id,
            "number": self.subject.number,
            "hunks": {
                os.fsdecode(path): describe_selection(selection)
                for path, selection in self.chosen.items()
            },
        }

    def review_hint(self) -> str:
        return f"rewind show {self.subject.number}"


def plan_partial(
    store: Store,
    session: str,
    subject: Entry,
    chosen: Mapping[bytes, Choice],
    sources: Mapping[bytes, FileHunks] | None = None,
) -> PartialPlan:
    """The plan that puts back the ``chosen`` hunks (per path: a Selection, or Ranges as
    ``--hunks`` writes them) of ``subject``'s diff into the files as they are now, recorded in
    ``session`` (whose open turn the caller has closed).

    The hunks are numbered in ``sources[path]`` when given (a diff between any two recorded
    states, from :func:`file_hunks`: two versions of a file, say), else in what ``subject``
    did to the file (:func:`turn_hunks`); ``subject`` is the entry the restore names.

    Raises :class:`PartialRefused`, naming every chosen hunk that no longer applies, unless
    they all do; UserError for a file or a choice that has no such hunks.
    """
    planned = []
    hunks = {}
    now = {}
    resolved: dict[bytes, Selection] = {}
    refused: list[tuple[bytes, Refusal]] = []
    for named, choice in chosen.items():
        given = sources.get(named) if sources is not None else None
        found = given if given is not None else turn_hunks(store, subject, named)
        path = found.path  # the file now, which a rename since may have moved
        selection = resolve_choice(found.hunks, choice, store.root.display(path), subject.number)
        resolved[path] = selection
        hunks[path] = found
        current, data = read_now(store, path)
        now[path] = data
        try:
            merged = put_back_hunks(data, found.after, found.hunks, selection)
        except HunksDoNotApply as error:
            refused += [(path, refusal) for refusal in error.refusals]
            continue
        target = FileState(FILE, mode=current.mode, size=len(merged), xxh=fingerprint(merged))
        # Expected is what is there now: the merge keeps every change made since, so only a
        # change after it was computed (checked under the store lock) is a conflict.
        item = PlannedFile(path, target, current, current)
        item.content = merged
        planned.append(item)
    if refused:
        path, first = refused[0]
        names = ", ".join(
            f"{store.root.display(path)} hunk {refusal.hunk.number}" for path, refusal in refused
        )
        raise PartialRefused(
            refused,
            f"{len(refused)} chosen hunk(s) no longer apply ({names}: {first.reason}); nothing "
            f"was written. Compare 'rewind show {subject.number} --path "
            f"{store.root.display(path)}' with the file, and leave those hunks out.",
        )
    return PartialPlan(session, subject, planned, hunks, resolved, now)


def applicable(store: Store, found: FileHunks) -> dict[int, str]:
    """For each hunk of ``found`` that could not be put back into the file now, why."""
    _, data = read_now(store, found.path)
    every: Selection = {hunk.number: None for hunk in found.hunks}
    return {
        refusal.hunk.number: refusal.reason
        for refusal in refusals(data, found.after, found.hunks, every)
    }


__all__ = [
    "FileHunks",
    "Hunk",
    "NoHunks",
    "PartialPlan",
    "PartialRefused",
    "applicable",
    "file_hunks",
    "plan_partial",
    "read_now",
    "turn_hunks",
]
