"""Carrying out a restore plan so that it can always be undone and never half-done.

Order of work, all under the store lock:
1. every file about to change is saved as it is now (the new entry's before-states);
2. a journal naming the new entry is written;
3. the entry is committed to the session (so ``rewind undo`` can reverse it);
4. each file is replaced atomically (temporary file in the same directory, then rename);
5. the journal is removed.
A process that dies between 2 and 5 leaves the journal behind; the next rewind command to open
the store finishes the restore (each file still at its before-state is put at its after-state;
a file someone changed meanwhile is left alone and reported) and removes the temporary files the
dead process left beside the files it was replacing.

What a record asks for must be something this system can write: every path and symlink target
is checked (rewind.store.limits) before anything is recorded. A write that still fails because
of what it writes, not because of the disk's state now (a name the file system refuses), will
not succeed later either: the restore is rolled back at once (the files written so far get their
before-states again and the entry is taken off the session), never left for the next command.
Only a failure the disk may get over (no space, no permission) leaves the journal, and 'rewind
undo' takes back what was written if the cause cannot be fixed.
"""

from __future__ import annotations

import errno
import os
import sys
import time

from rewind.errors import ConflictError, UserError
from rewind.history.background import start_push
from rewind.history.entry import RESTORE, Entry, FileChange
from rewind.history.filestate import ABSENT, LINK, FileState, capture
from rewind.history.recording.turns import close_open_turn
from rewind.history.restore_journal import read_journal
from rewind.history.restoring.restore_events import DONE, REFUSED, note_restore
from rewind.history.restoring.restore_plan import CANNOT, UNCHANGED, PlannedFile, RestorePlan
from rewind.history.session import (
    SessionHead,
    Settled,
    drop_newest,
    load_head,
    new_entry_id,
    save_entry,
)
from rewind.store.atomic import (
    remove_temporary_siblings,
    replace_file,
    replace_link,
    write_text_atomically,
)
from rewind.store.backup_trigger import request_backup
from rewind.store.fastjson import dumps
from rewind.store.limits import make_folders, why_bad_link_target, why_unwritable
from rewind.store.repository import JOURNAL, Store, StoreLock
from rewind.store.root import NotWritableHere


class RestoreResult:
    __slots__ = ("entry", "failed", "skipped")

    def __init__(
        self, entry: Entry | None, skipped: list[PlannedFile], failed: list[tuple[bytes, str]]
    ) -> None:
        self.entry = entry  # the restore entry recorded, None when nothing had to change
        self.skipped = skipped
        self.failed = failed


def apply_plan(store: Store, plan: RestorePlan, force: bool = False) -> RestoreResult:
    """Carries out ``plan``; refuses, changing nothing, if a file changed since it was made.
    Either way an event is kept for the stats (rewind.history.restoring.restore_events)."""
    try:
        result = _apply(store, plan, force)
    except ConflictError:
        note_restore(store, plan.kind, REFUSED, len(plan.conflicts))
        raise
    if result.entry is not None:
        note_restore(store, plan.kind, DONE, len(result.entry.files))
        request_backup(store, start_push)
    return result


def _apply(store: Store, plan: RestorePlan, force: bool) -> RestoreResult:
    with store.lock(), Settled(store, plan.session) as head:
        # The plan was made once the open turn was closed, but a hook may have opened another
        # since: it is closed too (its after-states recorded) before the restore goes on top.
        close_open_turn(store, head)
        _check_still_current(store, plan)
        if plan.conflicts and not force:
            raise ConflictError(conflict_message(store, plan))
        changes = plan.changes
        if not changes:
            _forget_taken_back(store, plan)
            return RestoreResult(None, plan.blocked, [])
        contents = _check_readable(store, changes)
        _check_writable(store, changes, contents)
        entry = _restore_entry(store, plan, head, changes)
        journal = {"session": plan.session, "entry": entry.id, "pid": os.getpid()}
        write_text_atomically(store.state_path(JOURNAL), dumps(journal))
        save_entry(store, head, entry, replace_tip=False)
        try:
            failed = _put_back_all(store, entry.files, contents)
        except CannotWriteBack as problem:
            _roll_back(store, head, entry, problem)
        if not failed:
            os.unlink(store.state_path(JOURNAL))
    return RestoreResult(entry, plan.blocked, failed)


def _forget_taken_back(store: Store, plan: RestorePlan) -> None:
    """An undo (or redo) with nothing left to change, of an entry whose journal is still
    waiting (its writes failed and were never finished): taken back, so there is nothing left
    to finish."""
    if plan.kind == RESTORE:
        return
    if read_journal(store).get("entry") == plan.subject.id:
        os.unlink(store.state_path(JOURNAL))
        store.log_problem(
            f"{plan.subject.kind} {plan.subject.number} of session {plan.session} was taken "
            "back before it could be finished; it is no longer waiting"
        )


def _check_still_current(store: Store, plan: RestorePlan) -> None:
    limit = store.config.max_file_size
    for planned in plan.changes:
        now = capture(store.root.absolute(planned.path), limit)
        if now.kind != planned.current.kind or (
            now.restorable and not now.same_as(planned.current)
        ):
            raise ConflictError(
                f"{store.root.display(planned.path)} changed while the restore was being "
                "prepared; nothing was written, run the command again."
            )


# The contents _check_readable reads are kept for writing, up to this many bytes, so that each
# object is read, inflated and verified once; beyond it they are read again when written.
_KEEP_READ_BYTES = 64 * 1024 * 1024


def _check_readable(store: Store, changes: list[PlannedFile]) -> dict[str, bytes]:
    """Reads every content to put back before anything is recorded or written: a missing or
    corrupted object refuses the whole restore instead of leaving it half done. A content the
    plan computed (a partial rewind's) is stored here, so the entry can name it.

    Returns the contents read (by object id, within a memory budget) for the writes to reuse.
    """
    kept: dict[str, bytes] = {}
    budget = _KEEP_READ_BYTES
    for planned in changes:
        if planned.content is not None:  # computed, not recorded: stored now, kept to write
            planned.target.oid = store.writer.write_blob(planned.content)
            kept[planned.target.oid] = planned.content
            continue
        oid = planned.target.oid
        if oid is not None and oid not in kept:
            data = store.reader.read_blob(oid)
            if len(data) <= budget:
                kept[oid] = data
                budget -= len(data)
    return kept


def _check_writable(store: Store, changes: list[PlannedFile], contents: dict[str, bytes]) -> None:
    """Refuses the whole restore, before anything is recorded, when a path or a symlink target
    it would write is one this system cannot write (the plan leaves such files out already;
    this is the check on the contents as read)."""
    for planned in changes:
        target = planned.target
        if target.kind == ABSENT:
            continue
        reason = why_unwritable(store.root.path, planned.path)
        if not reason and target.kind == LINK and target.oid is not None:
            data = contents.get(target.oid)
            reason = why_bad_link_target(
                data if data is not None else store.reader.read_blob(target.oid)
            )
        if reason:
            raise UserError(
                f"{store.root.display(planned.path)} cannot be written back on this system "
                f"({reason}); nothing was written: restore the other files with --path."
            )


def conflict_message(store: Store, plan: RestorePlan, for_tool: bool = False) -> str:
    """The refusal of a plan with conflicts, in the command line's words, or (``for_tool``)
    in those of the MCP server's tools."""
    names = ", ".join(store.root.display(f.path) for f in plan.conflicts[:5])
    more = f" and {len(plan.conflicts) - 5} more" if len(plan.conflicts) > 5 else ""
    unseen = any(not f.current.same_as(f.expected) for f in plan.conflicts)
    what = "since it last recorded them" if unseen else "between the agent's turns"
    changed = f"{len(plan.conflicts)} file(s) changed outside rewind {what} ({names}{more})"
    if for_tool:
        return (
            f"{changed}; nothing was written. Show the person what would be overwritten "
            f"(rewind_diff turn='{plan.subject.number}'), then call again with force=true to "
            "restore anyway (their current content is saved, so rewind_undo brings it back)."
        )
    return (
        f"{changed}; nothing was written. Review with '{plan.review_hint()}', then rerun with "
        "--force to restore anyway (their current content is saved, so 'rewind undo' brings it "
        "back)."
    )


def _restore_entry(
    store: Store, plan: RestorePlan, head: SessionHead, changes: list[PlannedFile]
) -> Entry:
    """The entry that records a restore; it carries the session's agent, like its turns."""
    number = head.next_number
    agent = head.current.agent if head.current else ""
    files = [
        FileChange(planned.path, _save_current(store, planned), planned.target, at=time.time())
        for planned in changes
    ]
    now = time.time()
    return Entry(
        plan.session,
        number,
        new_entry_id(),
        plan.kind,
        plan.prompt(),
        agent,
        started=now,
        ended=now,
        target=plan.entry_target(),
        files=files,
    )


def _save_current(store: Store, planned: PlannedFile) -> FileState:
    """The state to bring back on undo: reuse the recorded blob when nothing changed.

    The content is about to be overwritten, so it is kept whatever its size: a file above
    max_file_size (an after-state recorded without content) must come back on undo too.
    """
    if planned.current.same_as(planned.expected) and (
        planned.expected.oid or planned.expected.kind == ABSENT
    ):
        return planned.expected
    absolute = store.root.absolute(planned.path)
    return capture(absolute, sys.maxsize, store.writer)


class CannotWriteBack(Exception):
    """A file whose write failed because of what is written, not the disk's state now: it would
    fail again, so the restore is rolled back (``written``: the files tried before it)."""

    def __init__(self, path: bytes, reason: str, written: list[FileChange]) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason
        self.written = written


# Errors of a write that come from what is written (a name or target this file system
# refuses), not from the disk's state: trying again later cannot help.
_LASTING_ERRNOS = frozenset({errno.ENAMETOOLONG, errno.EINVAL, errno.EILSEQ})


def is_lasting(error: Exception) -> bool:
    """Whether a failed write would fail again whatever happens to the disk (see
    :data:`_LASTING_ERRNOS`; any error but an OSError or a refusal is the record's)."""
    if isinstance(error, OSError):
        return error.errno in _LASTING_ERRNOS
    return isinstance(error, NotWritableHere) or not isinstance(error, UserError)


def _put_back_all(
    store: Store, files: list[FileChange], contents: dict[str, bytes] | None = None
) -> list[tuple[bytes, str]]:
    failed = []
    created: set[bytes] = set()
    try:
        for position, change in enumerate(files):
            assert change.after is not None
            try:
                put_back(store, change.path, change.after, created, contents)
            except Exception as error:
                if is_lasting(error):
                    raise CannotWriteBack(change.path, _why(error), files[:position]) from error
                failed.append((change.path, str(error)))
                store.log_problem(f"restore of {store.root.display(change.path)} failed: {error}")
    finally:
        _remove_created_directories(created)
    return failed


def _why(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error) or type(error).__name__


def _roll_back(store: Store, head: SessionHead, entry: Entry, problem: CannotWriteBack) -> None:
    """Takes the restore back at once: the files written before ``problem`` get their
    before-states again and the entry is taken off the session, as if it had never been made.
    Always raises: UserError naming the file (or, when taking back fails too, saying that the
    next command finishes what it can)."""
    shown = store.root.display(problem.path)
    store.log_problem(f"restore of {shown} failed for good ({problem.reason}); rolled back")
    try:
        for change in reversed(problem.written):
            assert change.before is not None
            put_back(store, change.path, change.before)
        drop_newest(store, head)
        os.unlink(store.state_path(JOURNAL))
    except (OSError, UserError) as error:
        store.log_problem(f"taking back {entry.kind} {entry.number} failed: {error}")
        raise UserError(
            f"{shown} cannot be written on this system ({problem.reason}), and taking back the "
            f"files written before it failed ({error}); the next rewind command finishes the "
            "rest, and 'rewind undo' then takes it back."
        ) from None
    raise UserError(
        f"{shown} cannot be written on this system ({problem.reason}); nothing was changed: "
        "restore the other files with --path."
    )


def put_back(
    store: Store,
    path: bytes,
    state: FileState,
    created: set[bytes] | None = None,
    contents: dict[str, bytes] | None = None,
) -> None:
    """Makes ``path`` hold ``state``: one atomic replacement, or one unlink.

    Deleting a file also removes the empty directories the turn created for it, at once, or,
    given ``created``, adds them to it for the caller to remove once every file is deleted.
    """
    absolute = store.root.writable_path(path)
    if state.kind == ABSENT:
        if os.path.islink(absolute) or os.path.isfile(absolute):
            os.unlink(absolute)
        directories = _created_directories(absolute, state.missing_dirs)
        if created is None:
            _remove_created_directories(directories)
        else:
            created.update(directories)
        return
    assert state.oid is not None
    data = contents.get(state.oid) if contents is not None else None
    if data is None:
        data = store.reader.read_blob(state.oid)
    make_folders(os.path.dirname(absolute))
    write_content(absolute, state, data)


def write_content(absolute: bytes, state: FileState, data: bytes) -> None:
    """Replaces ``absolute`` atomically with ``data`` as ``state`` says: a symlink whose target
    it is, or a file with the state's permission bits (the drill rebuilds states with it too)."""
    if state.kind == LINK:
        replace_link(absolute, data)
    else:
        replace_file(absolute, data, state.mode)


def _created_directories(absolute: bytes, count: int) -> set[bytes]:
    """The ``count`` nearest parents of a file: the directories a turn created for it."""
    parents = set()
    parent = os.path.dirname(absolute)
    for _ in range(count):
        parents.add(parent)
        parent = os.path.dirname(parent)
    return parents


def _remove_created_directories(directories: set[bytes]) -> None:
    """Removes the directories that are empty, deepest first (rmdir only: never any content)."""
    for directory in sorted(directories, key=lambda d: d.count(b"/"), reverse=True):
        try:
            os.rmdir(directory)
        except OSError:
            pass


def finish_interrupted_restore(store: Store, wait: bool = True) -> None:
    """Completes a restore whose process died after it was recorded (see the module doc).

    Without ``wait`` (a hook), raises :class:`StoreBusy` at once when another process holds the
    store, and says what it did in the log only.
    """
    with store.lock() if wait else StoreLock(store.state_path("lock"), timeout=0.0):
        if not os.path.exists(store.state_path(JOURNAL)):
            return  # another process finished it
        journal = read_journal(store)
        head = load_head(store, str(journal.get("session", "")))
        entry = head.current
        if entry is None or entry.id != journal.get("entry"):
            os.unlink(store.state_path(JOURNAL))  # never recorded, so nothing was written
            return
        finished = _finish(store, entry.files)
        # the restore's own leftovers, and those of any command killed while finishing it
        remove_temporary_siblings(_writable_paths(store, entry.files))
        if not finished.failed:  # a write that failed (a full disk) is tried again later
            os.unlink(store.state_path(JOURNAL))
    message = finished.describe(store, entry)
    store.log_problem(message)
    if wait:  # a command; a hook prints nothing (its output is the agent's)
        print(f"rewind: {message}.", file=sys.stderr)


def _writable_paths(store: Store, files: list[FileChange]) -> list[bytes]:
    """The files' paths, where they still resolve inside the project (never through a parent
    swapped for a symlink to elsewhere)."""
    paths = []
    for change in files:
        try:
            paths.append(store.root.writable_path(change.path))
        except UserError:
            pass
    return paths


class _Finished:
    """What finishing an interrupted restore did with the files it did not write: those left
    alone because they changed meanwhile, those that cannot be written on this system (left as
    they were: trying again cannot help), and those whose write failed (tried again later)."""

    __slots__ = ("failed", "left_alone", "unwritable")

    def __init__(self) -> None:
        self.left_alone: list[bytes] = []
        self.unwritable: list[tuple[bytes, str]] = []
        self.failed: list[bytes] = []

    def describe(self, store: Store, entry: Entry) -> str:
        what = f"{entry.kind} {entry.number} of session {entry.session}"
        if self.failed:
            names = ", ".join(store.root.display(path) for path in self.failed)
            return (
                f"{what} was interrupted and could not be finished yet ({names}: see the log); "
                "the next command tries again, or 'rewind undo' takes it back"
            )
        message = f"finished {what}, which was interrupted"
        if self.left_alone:
            names = ", ".join(store.root.display(path) for path in self.left_alone)
            message += f"; left alone because they changed meanwhile: {names}"
        if self.unwritable:
            names = ", ".join(
                f"{store.root.display(path)} ({reason})" for path, reason in self.unwritable
            )
            message += f"; left as they were because this system cannot write them: {names}"
        return message


def _finish(store: Store, files: list[FileChange]) -> _Finished:
    """Puts each file still at its before-state at its after-state (see :class:`_Finished`)."""
    finished = _Finished()
    limit = store.config.max_file_size
    for change in files:
        assert change.after is not None and change.before is not None
        unwritable = why_unwritable(store.root.path, change.path)
        unwritable = unwritable or store.root.why_not_writable(change.path)
        if unwritable:  # no later try could help (a link that leads out: never read through)
            finished.unwritable.append((change.path, unwritable))
            continue
        now = capture(store.root.absolute(change.path), limit)
        if now.same_as(change.after):
            continue
        if not now.same_as(change.before):
            finished.left_alone.append(change.path)
            continue
        try:
            put_back(store, change.path, change.after)
        except Exception as error:
            store.log_problem(f"could not finish {store.root.display(change.path)}: {error}")
            if is_lasting(error):
                finished.unwritable.append((change.path, _why(error)))
            else:
                finished.failed.append(change.path)
    return finished


__all__ = ["CANNOT", "UNCHANGED", "RestoreResult", "apply_plan", "finish_interrupted_restore"]
