"""Applying what some turns of another session did to this project's work tree.

``rewind apply SESSION TURN[..TURN2]`` brings the changes of turns of another session (a
fetched one, rewind.history.remote.fetched, or another local one) into the files here, file by file,
as a three-way merge against the states that session recorded:

- **base**: the file's before-state at the first turn of the range that touched it;
- **theirs**: its after-state at the last turn of the range that touched it;
- **ours**: the file here, now.

Ours already equal to theirs: nothing to do. Ours equal to base: theirs is written (content,
mode, symlink, or a deletion). Both changed: text files are merged line by line (the diff base
-> theirs put into ours, rewind.history.restoring.hunks); changes that overlap, binary files and
any other pair of differing changes are a **conflict**. A state whose content the session does not
hold (not shared by the machine that pushed it, too large, unknown...) is **refused**.

The result is written by the restore engine (rewind.history.restoring.restore) as a ``restore``
entry of a local session: its files' before-states are the files as they were here, its after-states
the contents applied, copied into the local store. So ``rewind undo`` takes it back exactly, the
store lock, the conflict check against what rewind last recorded of each file, the atomic writes and
the crash journal are the restore's own, and the log, the TUI and the stats show it without knowing
about apply. The entry's ``target`` says what was applied.

Paths and contents from a fetched session are hostile input: paths are checked
(rewind.history.restoring.safe_paths), each content is checked against the size and fingerprint
recorded with it, and no content larger than ``max_file_size`` is written.
"""

from __future__ import annotations

import os

from rewind.errors import UserError
from rewind.history.entry import RESTORE, Entry, FileChange
from rewind.history.filestate import (
    ABSENT,
    FILE,
    LINK,
    NOT_SHARED,
    TOO_LARGE,
    UNKNOWN,
    UNREADABLE,
    FileState,
    capture,
    fingerprint,
)
from rewind.history.lookup import entries_between, find, newest_changes
from rewind.history.restoring.hunks import HunksDoNotApply, hunks_between, is_binary, put_back_hunks
from rewind.history.restoring.restore_plan import NEVER_REPLACED, PlannedFile, RestorePlan
from rewind.history.restoring.safe_paths import (
    refuse_nested,
    refuse_unsafe,
    unsafe_parent,
    why_unsafe,
)
from rewind.history.session import SessionHead
from rewind.history.sessions import refuse_damaged
from rewind.store.limits import why_bad_link_target, why_unwritable
from rewind.store.repository import Store

# What apply does with one file (ApplyFile.outcome).
WRITE = "write"  # ours is the base: theirs is written
DELETE = "delete"  # ours is the base, and theirs is no file: ours is deleted
MERGE = "merge"  # both changed, the changes do not overlap: the merge is written
ALREADY = "already-applied"  # ours holds theirs (or the merge changes nothing)
CONFLICT = "conflict"  # both changed, and the changes cannot be merged
REFUSED = "refused"  # the session does not hold what would be needed, or the file is no file
NOT_APPLIED = frozenset({CONFLICT, REFUSED})

# Only permission bits are applied: a set-user-id bit from another machine never is.
_PERMISSIONS = 0o777


class Source:
    """The session turns are applied from: its store (a read-only view for a fetched one), its
    head, the name it is shown by, and whether it is this machine's own (trusted) history."""

    __slots__ = ("head", "name", "remote", "store", "trusted")

    def __init__(
        self, store: Store, head: SessionHead, name: str, remote: str | None = None
    ) -> None:
        self.store = store
        self.head = head
        self.name = name  # "session s1", or "backup:laptop-3fa2b1/s1"
        self.remote = remote
        self.trusted = remote is None


def fetched_name(remote: str, view: Store, session: str) -> str:
    """``REMOTE:MACHINE/SESSION``, how a fetched session is named in what apply records."""
    machine = view.sessions_prefix.rstrip("/").split("/")[-2]
    return f"{remote}:{machine}/{session}"


def turn_range(store: Store, head: SessionHead, text: str) -> list[Entry]:
    """The entries ``TURN`` or ``TURN..TURN2`` names (numbers or id prefixes), oldest first."""
    first_text, dots, last_text = text.partition("..")
    first = find(store, head, first_text)
    last = find(store, head, last_text) if dots else first
    if last.number < first.number:
        raise UserError(
            f"{text} goes backwards (turn {first.number} to {last.number}); give the older "
            "turn first."
        )
    entries = entries_between(store, head, first.number, last.number)
    refuse_damaged(store, entries, 0, f"applying {describe_turns(entries)}")
    for entry in entries:
        if entry.is_open:
            raise UserError(
                f"turn {entry.number} of {head.session_id} is still open, so what it leaves is "
                "not recorded yet; apply the turns before it, or wait until it ends."
            )
    return entries


def describe_turns(entries: list[Entry]) -> str:
    if len(entries) == 1:
        return f"turn {entries[0].number}"
    return f"turns {entries[0].number}..{entries[-1].number}"


def span_states(entries: list[Entry]) -> dict[bytes, tuple[FileState, FileState]]:
    """Per path touched in ``entries``: its before-state at the first of them that touched it
    and its after-state at the last one."""
    spans: dict[bytes, tuple[FileState, FileState]] = {}
    for entry in entries:
        for change in entry.files:
            before = change.before or FileState(UNKNOWN)
            after = change.after or FileState(UNKNOWN)
            first = spans.get(change.path)
            spans[change.path] = (first[0] if first else before, after)
    return spans


class ApplyFile:
    """One file of an apply: what will be done with it and why."""

    __slots__ = ("base", "outcome", "path", "planned", "reason", "theirs")

    def __init__(
        self,
        path: bytes,
        outcome: str,
        reason: str = "",
        planned: PlannedFile | None = None,
        base: FileState | None = None,
        theirs: FileState | None = None,
    ) -> None:
        self.path = path
        self.outcome = outcome
        self.reason = reason
        self.planned = planned  # what the restore engine writes (WRITE, DELETE, MERGE only)
        self.base = base
        self.theirs = theirs


class ApplyPlan(RestorePlan):
    """An apply, as a restore plan the engine carries out (its WRITE, DELETE, MERGE files), with
    every file's outcome for the report."""

    __slots__ = ("applied", "entries", "hint", "source")

    def __init__(
        self,
        session: str,
        source: Source,
        entries: list[Entry],
        applied: list[ApplyFile],
        hint: str,
    ) -> None:
        planned = [item.planned for item in applied if item.planned is not None]
        super().__init__(RESTORE, session, entries[0], planned)
        self.source = source
        self.entries = entries
        self.applied = applied
        self.hint = hint

    @property
    def not_applied(self) -> list[ApplyFile]:
        return [item for item in self.applied if item.outcome in NOT_APPLIED]

    def skip_not_applied(self) -> None:
        """Leaves the conflicting and refused files out (``--skip-conflicts``)."""
        self.files = [f for f in self.files if f.path not in {i.path for i in self.not_applied}]

    def title(self) -> str:
        return f"apply {describe_turns(self.entries)} of {self.source.name}"

    def prompt(self) -> str:
        return self.title()

    def entry_target(self) -> dict[str, object]:
        first, last = self.entries[0], self.entries[-1]
        target: dict[str, object] = {
            "entry": first.id,
            "number": first.number,
            "applied": {
                "from": self.source.name,
                "session": self.source.head.session_id,
                "first": {"entry": first.id, "number": first.number},
                "last": {"entry": last.id, "number": last.number},
            },
        }
        if self.source.remote is not None:
            target["remote"] = self.source.remote
        return target

    def review_hint(self) -> str:
        return self.hint


def plan_apply(
    store: Store,
    session: str,
    source: Source,
    entries: list[Entry],
    only: list[bytes] | None = None,
    hint: str = "rewind apply --dry-run",
) -> ApplyPlan:
    """What applying ``entries`` of ``source`` to this work tree does, file by file, recorded
    in ``session`` of ``store`` (whose open turn the caller has closed). Refuses the whole
    apply when a path of the session is unsafe; nothing is read from disk beyond the files."""
    spans = span_states(entries)
    where = f"{source.name}, {describe_turns(entries)},"
    if not source.trusted:
        refuse_unsafe(spans, where)
    if only is not None:
        missing = [path for path in only if path not in spans]
        if missing:
            raise UserError(
                f"{os.fsdecode(missing[0])} was not changed in {describe_turns(entries)} of "
                f"{source.name}; 'rewind show' lists the files a turn changed."
            )
        spans = {path: spans[path] for path in dict.fromkeys(only)}
    refuse_nested({path: theirs.kind in (FILE, LINK) for path, (_, theirs) in spans.items()}, where)
    recorded = newest_changes(store, set(spans))
    applied = []
    for path in sorted(spans):
        base, theirs = spans[path]
        item = _plan_file(store, source, path, base, theirs)
        if item.planned is not None:
            _set_expected(item.planned, recorded.get(path))
        applied.append(item)
    return ApplyPlan(session, source, entries, applied, hint)


def _set_expected(planned: PlannedFile, newest: tuple[str, FileChange] | None) -> None:
    """What rewind last recorded of the file here, for the restore engine's check that nothing
    changed since (a file it never recorded is taken as it is: its content is saved for undo
    all the same)."""
    if newest is None:
        return
    owner, change = newest
    latest = change.latest
    planned.expected = latest if latest is not None else FileState(UNKNOWN)
    before = change.before
    if change.after is None and before is not None and not planned.current.same_as(before):
        planned.changed_by = owner  # its turn is open and has changed the file


class ContentRefused(Exception):
    """A file that cannot be applied (a recorded content that cannot be used...): why."""


def _plan_file(
    store: Store, source: Source, path: bytes, base: FileState, theirs: FileState
) -> ApplyFile:
    def outcome(kind: str, reason: str = "") -> ApplyFile:
        return ApplyFile(path, kind, reason, base=base, theirs=theirs)

    if why_unsafe(path):  # a trusted session's file outside the root (extra_roots)
        return outcome(REFUSED, "it is outside the project root, where apply never writes")
    unwritable = why_unwritable(store.root.path, path)
    if unwritable:
        return outcome(REFUSED, f"this system cannot write it: {unwritable}")
    parent = unsafe_parent(store.root.path, path)
    if parent:
        return outcome(REFUSED, parent)
    ours = capture(store.root.absolute(path), store.config.max_file_size)
    if ours.kind in NEVER_REPLACED or ours.kind == TOO_LARGE:
        return outcome(REFUSED, _why_ours(ours))
    if not theirs.restorable:
        return outcome(REFUSED, _why_missing(theirs, "as the turn left it"))
    theirs = _permissions_only(theirs)
    if ours.same_as(theirs):
        return outcome(ALREADY)
    if not base.restorable:
        return outcome(REFUSED, _why_missing(base, "before the turn"))
    base = _permissions_only(base)
    limit = store.config.max_file_size
    try:
        if ours.same_as(base):
            target, content = _theirs(source.store, path, theirs, limit)
            written = DELETE if target.kind == ABSENT else WRITE
            return _planned(path, written, ours, target, content, base, theirs)
        merged = _merge(store, source.store, path, ours, base, theirs, limit)
    except ContentRefused as refused:
        return outcome(REFUSED, str(refused))
    except _Conflict as conflict:
        return outcome(CONFLICT, str(conflict))
    if merged is None:
        return outcome(ALREADY, "its changes are in the file already")
    target, content = merged
    return _planned(path, MERGE, ours, target, content, base, theirs)


def _planned(
    path: bytes,
    outcome: str,
    ours: FileState,
    target: FileState,
    content: bytes | None,
    base: FileState,
    theirs: FileState,
) -> ApplyFile:
    planned = PlannedFile(path, target, ours, ours)
    planned.content = content
    return ApplyFile(path, outcome, planned=planned, base=base, theirs=theirs)


def _permissions_only(state: FileState) -> FileState:
    if state.kind != FILE:
        return state
    return FileState(FILE, state.oid, state.mode & _PERMISSIONS, state.size, state.xxh)


def _why_ours(ours: FileState) -> str:
    if ours.kind == TOO_LARGE:
        return "it is larger than max_file_size here, so it could not be saved for undo"
    if ours.kind == UNREADABLE:
        return "it cannot be read here, so it could not be saved for undo"
    return f"it is a {ours.kind} here, which rewind never replaces"


def _why_missing(state: FileState, when: str) -> str:
    if state.kind == NOT_SHARED:
        return (
            f"its content {when} was not shared by the machine that pushed it (a private "
            "file there)"
        )
    if state.kind == TOO_LARGE:
        return f"its content {when} was too large to record"
    if state.kind == UNKNOWN:
        return f"its state {when} was not recorded"
    return f"its content {when} was not recorded ({state.kind})"


def _theirs(
    reader: Store, path: bytes, theirs: FileState, limit: int
) -> tuple[FileState, bytes | None]:
    """The state to write and its content (checked), for a file whose theirs is written."""
    if theirs.kind == ABSENT:
        # The folders the turn left missing are removed with it when empty, never more than
        # the path has (the count is the session's word).
        return FileState(ABSENT, missing_dirs=min(theirs.missing_dirs, path.count(b"/"))), None
    data = verified_content(reader, theirs, limit)
    bad_target = why_bad_link_target(data) if theirs.kind == LINK else ""
    if bad_target:
        raise ContentRefused(f"this system cannot write it: {bad_target}")
    return FileState(theirs.kind, None, theirs.mode, len(data), fingerprint(data)), data


def verified_content(reader: Store, state: FileState, limit: int) -> bytes:
    """The content of a recorded file or symlink state, checked against the size and the
    fingerprint recorded with it; :class:`ContentRefused` when it is missing, larger than
    ``limit`` or not what was recorded."""
    if state.oid is None or state.xxh is None:
        raise ContentRefused("its content is not in the session")
    if state.size > limit:
        raise ContentRefused(
            f"its content ({state.size} bytes) is larger than max_file_size ({limit})"
        )
    try:
        data = reader.reader.read_blob(state.oid)
    except UserError:
        raise ContentRefused("its content is missing from the session's objects") from None
    if len(data) != state.size or fingerprint(data) != state.xxh:
        raise ContentRefused("its content is not what the session recorded (size or fingerprint)")
    return data


class _Conflict(Exception):
    """Both sides changed the file and the changes cannot be merged: why."""


def _merge(
    store: Store,
    reader: Store,
    path: bytes,
    ours: FileState,
    base: FileState,
    theirs: FileState,
    limit: int,
) -> tuple[FileState, bytes] | None:
    """The line-level three-way merge of a file both sides changed (None: it changes nothing)."""
    if theirs.kind == ABSENT:
        raise _Conflict("the turn deleted it, and it was changed here")
    if ours.kind == ABSENT:
        raise _Conflict("the turn changed it, and it was deleted here")
    if LINK in (ours.kind, theirs.kind) or base.kind == LINK:
        raise _Conflict("a symlink that was changed differently here")
    base_data = b"" if base.kind == ABSENT else verified_content(reader, base, limit)
    theirs_data = verified_content(reader, theirs, limit)
    ours_data = _read_ours(store, path, ours)
    if any(is_binary(data) for data in (base_data, theirs_data, ours_data)):
        raise _Conflict("a binary file changed here too")
    hunks = hunks_between(theirs_data, base_data)
    try:
        merged = put_back_hunks(ours_data, base_data, hunks, {h.number: None for h in hunks})
    except HunksDoNotApply:
        raise _Conflict("changed here too, in the same lines or next to them") from None
    mode = theirs.mode if base.kind == FILE and theirs.mode != base.mode else ours.mode
    if merged == ours_data and mode == ours.mode:
        return None
    return FileState(FILE, None, mode, len(merged), fingerprint(merged)), merged


def _read_ours(store: Store, path: bytes, ours: FileState) -> bytes:
    absolute = store.root.absolute(path)
    fd = os.open(absolute, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if fingerprint(data) != ours.xxh:
        raise ContentRefused("it changed while it was being read; run the command again")
    return data


__all__ = [
    "ALREADY",
    "CONFLICT",
    "DELETE",
    "MERGE",
    "REFUSED",
    "WRITE",
    "ApplyFile",
    "ApplyPlan",
    "ContentRefused",
    "Source",
    "fetched_name",
    "plan_apply",
    "span_states",
    "turn_range",
    "verified_content",
]
