"""A disaster drill: every kept state rebuilt outside the work tree and compared with its record.

``rewind check`` reads each stored object. The drill goes as far as a restore would: in a scratch
directory under the store (never the work tree; removed afterwards) each content is written
through the writer restores use (:func:`rewind.history.restoring.restore.write_content`: a file
with its mode bits, or a symlink), captured again as a recording would capture it
(:func:`rewind.history.filestate.capture`), and compared with what was recorded: kind, mode bits,
size and fingerprint. An absence needs no content and is restorable as recorded. States that were
never restorable by design (no pre-image, too large, unreadable, a directory, a special file) are
counted as such, not as failures.

Many states share a content: each distinct object is read once, and rebuilt once for each way
it is recorded (as a link, or as a file with given mode bits), so the drill's cost grows with
the distinct contents, not with the number of entries.
"""

from __future__ import annotations

import os
import random
import shutil
import stat
import sys
import tempfile

from rewind.errors import MissingObject, StoreError, UserError
from rewind.history.entry import Entry
from rewind.history.filestate import (
    ABSENT,
    DIRECTORY,
    FILE,
    LINK,
    SPECIAL,
    TOO_LARGE,
    UNKNOWN,
    UNREADABLE,
    FileState,
    capture,
)
from rewind.history.restoring.restore import write_content
from rewind.history.session import damaged_ref_hint
from rewind.history.sessions import SessionSummary, list_sessions, read_entries_with_commits
from rewind.store.limits import why_bad_link_target, why_unwritable
from rewind.store.processes import is_alive
from rewind.store.repository import DamagedRef, Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

# What went wrong with a state or an entry (DrillProblem.kind).
MISSING = "missing"  # its object is in no loose file and no pack
CORRUPTED = "corrupted"  # its object cannot be inflated, or fails its hash
MISMATCH = "mismatch"  # rebuilt, it is not what was recorded (fingerprint, size, mode, kind)
DAMAGED = "damaged"  # its entry, its session's ref or history, or its record cannot be used
UNWRITABLE = "unwritable"  # its path or symlink target is one this system cannot write

# Kinds recorded without a content to put back, on purpose (see filestate).
NEVER_RESTORABLE = (UNKNOWN, TOO_LARGE, UNREADABLE, DIRECTORY, SPECIAL)

# Where the scratch directories go, under the store's own state directory.
SCRATCH_PREFIX = "drill-"
_REBUILT_NAME = b"state"


class DrillProblem:
    """One thing that cannot be restored, with the sentence that says what to do about it."""

    __slots__ = ("entry", "entry_id", "kind", "message", "oid", "path", "session", "side")

    def __init__(
        self,
        kind: str,
        session: str,
        message: str,
        entry: int | None = None,
        entry_id: str | None = None,
        path: str | None = None,
        side: str | None = None,
        oid: str | None = None,
    ) -> None:
        self.kind = kind
        self.session = session
        self.message = message
        self.entry = entry
        self.entry_id = entry_id
        self.path = path
        self.side = side
        self.oid = oid

    def __repr__(self) -> str:
        return f"DrillProblem({self.kind!r}, {self.session!r}, {self.entry}, {self.path!r})"

    def to_json(self) -> dict[str, object]:
        return {
            "problem": self.kind,
            "session": self.session,
            "entry": self.entry,
            "entry_id": self.entry_id,
            "path": self.path,
            "side": self.side,
            "oid": self.oid,
            "message": self.message,
        }


class SessionDrill:
    """What the drill found in one session: entries drilled, and their states by outcome."""

    __slots__ = ("damaged_entries", "entries", "failed", "never_restorable", "session", "verified")

    def __init__(self, session: str) -> None:
        self.session = session
        self.entries = 0
        self.damaged_entries = 0
        self.verified = 0  # rebuilt and found as recorded (absences included)
        self.never_restorable: dict[str, int] = {}  # by kind: recorded without a content
        self.failed = 0  # states that cannot be restored

    @property
    def states(self) -> int:
        return self.verified + sum(self.never_restorable.values()) + self.failed

    def to_json(self) -> dict[str, object]:
        return {
            "session": self.session,
            "entries": self.entries,
            "damaged_entries": self.damaged_entries,
            "states": self.states,
            "verified": self.verified,
            "never_restorable": dict(sorted(self.never_restorable.items())),
            "failed": self.failed,
        }


class DrillReport:
    __slots__ = ("contents", "problems", "sample", "sessions")

    def __init__(self, sample: int | None) -> None:
        self.sessions: list[SessionDrill] = []
        self.problems: list[DrillProblem] = []
        self.contents = 0  # distinct objects read and rebuilt
        self.sample = sample  # how many entries were asked for, None for all of them

    @property
    def restorable(self) -> bool:
        return not self.problems

    @property
    def entries(self) -> int:
        return sum(session.entries for session in self.sessions)

    @property
    def states(self) -> int:
        return sum(session.states for session in self.sessions)

    def to_json(self) -> dict[str, object]:
        return {
            "restorable": self.restorable,
            "sample": self.sample,
            "entries": self.entries,
            "states": self.states,
            "contents": self.contents,
            "sessions": [session.to_json() for session in self.sessions],
            "problems": [problem.to_json() for problem in self.problems],
        }


class _Subject:
    """A state waiting for its content to be rebuilt, and where it was recorded."""

    __slots__ = ("entry", "path", "session", "side", "state")

    def __init__(
        self, session: SessionDrill, entry: Entry, path: bytes, side: str, state: FileState
    ) -> None:
        self.session = session
        self.entry = entry
        self.path = path
        self.side = side
        self.state = state


def drill(
    store: Store,
    sessions: Collection[str] | None = None,
    sample: int | None = None,
    rng: random.Random | None = None,
) -> DrillReport:
    """Rebuilds the states of the kept entries of ``sessions`` (all by default) in a scratch
    directory and verifies each against its record; with ``sample``, only that many entries
    drawn at random across those sessions. Raises UserError for a session that does not exist.
    """
    report = DrillReport(sample)
    if sample is not None and sessions is None:
        entries = _sampled_entries(store, report, sample, rng or random.Random())
    else:
        entries = _kept_entries(store, report, sessions)
        if sample is not None and sample < len(entries):
            chosen = set((rng or random.Random()).sample(range(len(entries)), sample))
            entries = [pair for index, pair in enumerate(entries) if index in chosen]
    pending: dict[str, list[_Subject]] = {}
    for session, entry, commit in entries:
        session.entries += 1
        if entry.is_damaged:
            session.damaged_entries += 1
            report.problems.append(_damaged_entry(session.session, entry, commit))
            continue
        for change in entry.files:
            for side, state in (("before", change.before), ("after", change.after)):
                if state is not None:
                    subject = _Subject(session, entry, change.path, side, state)
                    _sort_state(store, report, subject, pending)
    if pending:
        with _Scratch(store) as scratch:
            for oid in sorted(pending):
                _rebuild_content(store, report, scratch, oid, pending[oid])
    return report


def _sampled_entries(
    store: Store, report: DrillReport, sample: int, rng: random.Random
) -> list[tuple[SessionDrill, Entry, str]]:
    """``sample`` kept entries drawn at random, through the index (gc's drill reads only
    those, not every history)."""
    from rewind.history.index.queries import EntryIndex

    with EntryIndex(store) as index:
        index.sync_all()
        keys = index.db.execute("SELECT session, number FROM entries").fetchall()
        chosen = sorted(rng.sample(keys, min(sample, len(keys))))
        tallies: dict[str, SessionDrill] = {}
        found = []
        for session, number in chosen:
            entry = index.entry(session, number)
            row = index.db.execute(
                "SELECT commit_id FROM entries WHERE session = ? AND number = ?",
                (session, number),
            ).fetchone()
            if entry is None or row is None:
                continue
            if session not in tallies:
                tallies[session] = SessionDrill(session)
                report.sessions.append(tallies[session])
            found.append((tallies[session], entry, row[0]))
    return found


def _kept_entries(
    store: Store, report: DrillReport, wanted: Collection[str] | None
) -> list[tuple[SessionDrill, Entry, str]]:
    """Every entry the sessions' refs keep, with its session's tally and its commit."""
    damaged: list[DamagedRef] = []
    summaries = list_sessions(store, damaged)
    damaged_names = {error.ref.rsplit("/", 1)[1]: error for error in damaged}
    if wanted is not None:
        summaries = _chosen(summaries, wanted, set(damaged_names))
    for name, error in damaged_names.items():
        if wanted is None or name in wanted:
            report.problems.append(
                DrillProblem(DAMAGED, name, f"{error} {damaged_ref_hint(store, error.ref)}")
            )
    found = []
    for summary in summaries:
        session = SessionDrill(summary.head.session_id)
        report.sessions.append(session)
        try:
            pairs = read_entries_with_commits(store, summary.head)
        except UserError as error:
            reason = str(error).split(";")[0]
            message = (
                f"session {session.session}: its history cannot be read ({reason}), so its "
                "entries cannot be restored; copy the store back from a backup if there is one."
            )
            report.problems.append(DrillProblem(DAMAGED, session.session, message))
            continue
        found += [(session, entry, commit) for entry, commit in pairs]
    return found


def _chosen(
    summaries: list[SessionSummary], wanted: Collection[str], damaged: set[str]
) -> list[SessionSummary]:
    known = {summary.head.session_id for summary in summaries} | damaged
    for name in wanted:
        if name not in known:
            raise UserError(
                f"there is no session {name!r} in this project; 'rewind sessions' lists them."
            )
    return [summary for summary in summaries if summary.head.session_id in wanted]


def _damaged_entry(session: str, entry: Entry, commit: str) -> DrillProblem:
    reason = entry.prompt.removeprefix("damaged entry: ")
    message = (
        f"session {session}, entry {entry.number} (commit {commit[:12]}): its record cannot be "
        f"read ({reason}), so none of its files can be restored; restores that would cross it "
        "are refused, so choose a turn after it."
    )
    return DrillProblem(DAMAGED, session, message, entry.number, entry.id)


def _sort_state(
    store: Store, report: DrillReport, subject: _Subject, pending: dict[str, list[_Subject]]
) -> None:
    """Counts a state that needs no content, or queues it under the object it needs."""
    state = subject.state
    if state.kind == ABSENT:
        subject.session.verified += 1
    elif state.kind in NEVER_RESTORABLE:
        tally = subject.session.never_restorable
        tally[state.kind] = tally.get(state.kind, 0) + 1
    elif state.kind not in (FILE, LINK):
        what = f"is of a kind rewind does not know ({state.kind}), so it cannot be restored"
        _fail(store, report, subject, DAMAGED, what)
    elif state.oid is None:
        what = (
            f"is recorded as a {state.kind} but names no stored content, so it cannot be restored"
        )
        _fail(store, report, subject, DAMAGED, what)
    else:
        unwritable = why_unwritable(store.root.path, subject.path)
        if unwritable:
            what = f"cannot be written on this system: {unwritable}"
            _fail(store, report, subject, UNWRITABLE, what)
            return
        pending.setdefault(state.oid, []).append(subject)


def _rebuild_content(
    store: Store, report: DrillReport, scratch: bytes, oid: str, subjects: list[_Subject]
) -> None:
    """Reads one object, rebuilds it once per way its states record it, and checks each state."""
    report.contents += 1
    try:
        data = store.reader.read_blob(oid)
    except MissingObject:
        for subject in subjects:
            _fail(store, report, subject, MISSING, f"is missing from the store (object {oid})")
        return
    except StoreError as error:
        reason = str(error).split(";")[0]
        for subject in subjects:
            _fail(store, report, subject, CORRUPTED, f"cannot be read: {reason}")
        return
    rebuilt: dict[tuple[str, int], FileState] = {}
    bad_target = why_bad_link_target(data)
    for subject in subjects:
        state = subject.state
        if state.kind == LINK and bad_target:
            what = f"(object {oid}) cannot be written on this system: {bad_target}"
            _fail(store, report, subject, UNWRITABLE, what)
            continue
        key = (state.kind, state.mode if state.kind == FILE else 0)
        if key not in rebuilt:
            rebuilt[key] = _rebuild(scratch, state, data)
        difference = _difference(state, rebuilt[key])
        if difference is None:
            subject.session.verified += 1
        else:
            _fail(store, report, subject, MISMATCH, f"(object {oid}) {difference}")


def _rebuild(scratch: bytes, state: FileState, data: bytes) -> FileState:
    """Writes ``data`` as ``state`` says, the way a restore does, then captures it again."""
    path = os.path.join(scratch, _REBUILT_NAME)
    write_content(path, state, data)
    info = os.lstat(path)
    if stat.S_ISREG(info.st_mode) and not info.st_mode & stat.S_IRUSR:
        os.chmod(path, stat.S_IMODE(info.st_mode) | stat.S_IRUSR)  # to read it back
    found = capture(path, sys.maxsize)
    if found.kind == FILE:
        found.mode = stat.S_IMODE(info.st_mode)
    # Removed at once: renaming over an existing file makes ext4 write the new one's data out
    # first (auto_da_alloc), which would triple the drill's time.
    os.unlink(path)
    return found


def _difference(recorded: FileState, rebuilt: FileState) -> str | None:
    """How the rebuilt state differs from the recorded one, if it does."""
    if rebuilt.kind != recorded.kind:
        return f"rebuilds as a {rebuilt.kind} where a {recorded.kind} was recorded"
    if recorded.kind == FILE and rebuilt.mode != recorded.mode:
        return f"rebuilds with mode {rebuilt.mode:o} where {recorded.mode:o} was recorded"
    if rebuilt.size != recorded.size:
        return f"rebuilds as {rebuilt.size} bytes where {recorded.size} were recorded"
    if recorded.xxh is not None and rebuilt.xxh != recorded.xxh:
        return (
            f"rebuilds with fingerprint {rebuilt.xxh} where {recorded.xxh} was recorded: the "
            "stored content is not the one that was saved"
        )
    return None


_ADVICE = {
    MISSING: "copy the object back from a backup of the store if there is one; otherwise that "
    "version is lost, and a restore that needs it is refused",
    CORRUPTED: "copy the object back from a backup of the store if there is one; otherwise "
    "that version is lost, and a restore that needs it is refused",
    DAMAGED: "restore to a turn where rewind kept that file's content",
    UNWRITABLE: "a restore leaves that file out and says why, since no write of it could "
    "succeed here",
    MISMATCH: "a restore would write something other than what was recorded, so review it "
    "with 'rewind show {number} --session {session}' before relying on it",
}


def _fail(store: Store, report: DrillReport, subject: _Subject, kind: str, what: str) -> None:
    subject.session.failed += 1
    entry = subject.entry
    path = store.root.display(subject.path)
    advice = _ADVICE[kind].format(number=entry.number, session=entry.session)
    message = (
        f"session {entry.session}, entry {entry.number} (id {entry.id}): the {subject.side}-state "
        f"of {path} {what}; {advice}."
    )
    problem = DrillProblem(
        kind,
        subject.session.session,
        message,
        entry.number,
        entry.id,
        path,
        subject.side,
        subject.state.oid,
    )
    report.problems.append(problem)


class _Scratch:
    """A directory of the drill's own under the store's state directory, removed on exit
    (with those that drills killed before they could remove theirs left behind)."""

    def __init__(self, store: Store) -> None:
        self.parent = store.state_path()
        self.path = ""

    def __enter__(self) -> bytes:
        _remove_abandoned(self.parent)
        self.path = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=self.parent)
        return os.fsencode(self.path)

    def __exit__(self, *exc_info: object) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _remove_abandoned(parent: str) -> None:
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        if not name.startswith(SCRATCH_PREFIX):
            continue
        pid = name[len(SCRATCH_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not is_alive(int(pid)):
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
