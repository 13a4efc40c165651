"""The open turn's journal: what hooks record during a turn, appended at a cost that does not
grow with the turn.

A session with an open turn has one journal file, ``<store>/rewind/journal/<session>``. Its
first line names the journal and the open turn's entry; every later line is one event's records:

    {"journal": "<random id>", "entry": "<entry id>"}
    {"before": [<FileChange JSON>, ...]}              states before a change (the earliest wins)
    {"after": [{"path": ..., "state": ...}, ...]}     states after it (the latest wins)
    {"labels": ["commit:3c1d2e4f5a6b", ...]}          labels the turn gets (a commit made in it)

Appending holds an exclusive ``flock`` on the file for one ``write``: writers never rewrite the
turn, so a hook's time does not depend on the turn's size or on other hooks. Readers merge the
lines into the turn's commit in memory; writers that hold the store lock fold them into it
(:mod:`rewind.history.session`), recording in the entry how many lines it has absorbed, so that a
fold interrupted before the journal is removed is never applied twice. A journal whose turn has
ended is removed under the same exclusive lock, and an appender that then gets the lock sees
that the file it opened is gone and starts again.

A line cut short by a killed process is completed by the next appender's newline and skipped
when read. When the lock cannot be had in time, the records go to a spool file next to the
journal (``<session>..spool-<pid>-<n>``), which readers and the next fold pick up: a pre-image
is never dropped.
"""

from __future__ import annotations

import fcntl
import os
import stat
import time

from rewind.errors import UserError
from rewind.history.entry import Entry, FileChange
from rewind.history.filestate import FileState
from rewind.store.atomic import write_text_atomically
from rewind.store.fastjson import dumps, load_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection

JOURNAL_DIR = "journal"
# Neither can be part of a session's journal name (a ref name: no "..", no leading "_").
SPOOL_MARK = "..spool-"
ORPHAN_DIR = "_orphaned"
# A hook gives up waiting for the journal's lock after this long and spools its records.
APPEND_LOCK_TIMEOUT = 5.0

_spooled = 0


class JournalBusy(UserError):
    """The journal's lock could not be had in time."""


class JournalRecords:
    """What a journal and its spool files hold: complete, well-formed lines only."""

    __slots__ = ("damaged", "entry", "journal", "lines", "records", "spent", "spool_files")

    def __init__(self, journal: str, entry: str) -> None:
        self.journal = journal  # the journal's own id
        self.entry = entry  # the id of the open turn it belongs to
        self.lines = 0  # complete lines after the header (damaged ones included)
        self.records: list[tuple[int, dict[str, object]]] = []  # (line number, record)
        self.damaged = 0
        self.spool_files: list[str] = []
        # Spool files a commit holds already (a fold was interrupted before removing them).
        self.spent: list[str] = []


def journal_path(journal_dir: str, session_leaf: str) -> str:
    return os.path.join(journal_dir, session_leaf)


# writing --------------------------------------------------------------------------------------


def before_record(changes: list[FileChange]) -> dict[str, object]:
    return {"before": [change.to_json() for change in changes]}


def after_record(states: dict[bytes, FileState]) -> list[dict[str, object]]:
    return [{"path": os.fsdecode(path), "state": state.to_json()} for path, state in states.items()]


def create(path: str, entry_id: str) -> None:
    """Starts the journal of a new open turn; an existing journal is left as it is."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    header = dumps({"journal": os.urandom(8).hex(), "entry": entry_id}) + "\n"
    temp = f"{path}..new-{os.getpid()}"
    write_text_atomically(temp, header)
    try:
        os.link(temp, path)  # creates the journal only if there is none: never overwrites
    except FileExistsError:
        pass
    finally:
        os.unlink(temp)


def append(path: str, record: dict[str, object], timeout: float | None = None) -> bool:
    """Appends one record. False when there is no live journal (no open turn, or it just
    ended): the caller starts a turn and tries again. Raises :class:`JournalBusy` on timeout."""
    line = (dumps(record) + "\n").encode("utf-8", "surrogateescape")
    timeout = APPEND_LOCK_TIMEOUT if timeout is None else timeout
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except FileNotFoundError:
        return False
    try:
        _lock(fd, timeout)
        info = os.fstat(fd)
        if info.st_nlink == 0:
            return False  # the turn ended and its journal was removed after we opened it
        if info.st_size and os.pread(fd, 1, info.st_size - 1) != b"\n":
            line = b"\n" + line  # a line cut short by a killed writer: end it, it is skipped
        _write_all(fd, line)
        return True
    finally:
        os.close(fd)  # releases the lock


def label_open_turns(directory: str, label: str, max_age: Callable[[str], float]) -> int:
    """Appends ``label`` to the open turn of every session with a journal in ``directory``
    written to in the last ``max_age(NAME)`` seconds (NAME: the journal's, the session's ref
    leaf): a turn left open long ago, by a killed agent, takes no label. A journal busy for
    longer than a moment is skipped. Returns how many took it."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return 0
    labelled = 0
    now = time.time()
    for name in sorted(names):
        path = os.path.join(directory, name)
        if SPOOL_MARK in name or name == ORPHAN_DIR:
            continue
        try:
            info = os.stat(path)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode) or now - info.st_mtime > max_age(name):
            continue
        try:
            labelled += append(path, {"labels": [label]}, timeout=1.0)
        except JournalBusy:
            continue
    return labelled


def spool(path: str, record: dict[str, object]) -> str:
    """Keeps a record the journal's lock could not take, for the next reader and fold."""
    global _spooled
    _spooled += 1
    spooled = f"{path}{SPOOL_MARK}{os.getpid()}-{time.time_ns()}-{_spooled}"
    write_text_atomically(spooled, dumps(record) + "\n")
    return spooled


# A writer waits this long for appenders (each holds the lock for one write); longer means a
# process is stuck holding it, and the writer gives up rather than hold the store lock forever.
FOLD_LOCK_TIMEOUT = 20.0


def lock_for_fold(path: str) -> int | None:
    """Opens the journal and takes its lock. None when there is no journal. The caller closes
    the descriptor to release it. Raises :class:`JournalBusy` after :data:`FOLD_LOCK_TIMEOUT`."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return None
    try:
        _lock(fd, FOLD_LOCK_TIMEOUT)
    except BaseException:
        os.close(fd)
        raise
    return fd


def retire(path: str, records: JournalRecords | None) -> None:
    """Removes a journal (and the spool files merged from it) whose records are all absorbed.
    The caller holds the journal's lock."""
    for spooled in records.spool_files if records else ():
        remove_file(spooled)
    remove_file(path)


def remove_file(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def set_aside(path: str, why: str) -> str:
    """Moves a journal that belongs to no open turn out of the way, keeping it for people."""
    folder = os.path.join(os.path.dirname(path), ORPHAN_DIR)
    os.makedirs(folder, exist_ok=True)
    kept = os.path.join(folder, f"{os.path.basename(path)}-{time.time_ns()}")
    os.replace(path, kept)
    with open(kept + ".why", "w", encoding="utf-8") as handle:
        handle.write(why + "\n")
    return kept


# reading --------------------------------------------------------------------------------------


def read(path: str, absorbed: Collection[str] = ()) -> JournalRecords | None:
    """The journal's complete lines and the spool files kept beside it; None without a
    journal or spool files. A journal whose header is unreadable names no journal or entry.

    Spool files named in ``absorbed`` (the open or last turn took them in) are not read again:
    they are listed in ``spent``, for a writer to remove."""
    records = None
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        data = b""
    if data:
        records = _parse(data)
    spooled = _spool_files(path)
    if spooled:
        if records is None:
            records = JournalRecords("", "")
        records.spent = [p for p in spooled if os.path.basename(p) in absorbed]
        _add_spooled(records, [p for p in spooled if os.path.basename(p) not in absorbed])
    return records


def _parse(data: bytes) -> JournalRecords | None:
    complete = data[: data.rfind(b"\n") + 1]  # a last line with no newline is still being written
    lines = complete.split(b"\n")[:-1]
    if not lines:
        return None
    try:
        header = load_object(lines[0].decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError):
        header = {}  # damaged: its records are still read, as those of no known journal
    records = JournalRecords(str(header.get("journal", "")), str(header.get("entry", "")))
    records.lines = len(lines) - 1
    for number, line in enumerate(lines[1:], start=1):
        try:
            records.records.append((number, load_object(line.decode("utf-8", "surrogateescape"))))
        except (ValueError, RecursionError):
            records.damaged += 1
    return records


def _spool_files(path: str) -> list[str]:
    folder, name = os.path.split(path)
    prefix = name + SPOOL_MARK
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    return sorted(os.path.join(folder, n) for n in names if n.startswith(prefix))


def _add_spooled(records: JournalRecords, spooled: list[str]) -> None:
    for spooled_path in spooled:
        try:
            with open(spooled_path, encoding="utf-8", errors="surrogateescape") as handle:
                records.records.append((0, load_object(handle.read())))
        except (OSError, ValueError, RecursionError):
            records.damaged += 1
        records.spool_files.append(spooled_path)


def apply(entry: Entry, records: JournalRecords, after_line: int) -> None:
    """Applies the records past line ``after_line`` (and every spooled one) to ``entry``."""
    index = {change.path: change for change in entry.files}
    for number, record in records.records:
        if number and number <= after_line:
            continue
        for data in _dicts(record.get("before")):
            try:
                recorded = FileChange.from_json(data)
            except ValueError:
                continue  # a record someone damaged: the others still apply
            _apply_before(entry, index, recorded)
        for data in _dicts(record.get("after")):
            state = data.get("state")
            change = index.get(os.fsencode(str(data.get("path", ""))))
            if change is not None and isinstance(state, dict):
                try:
                    change.after = FileState.from_json(state)
                except ValueError:
                    continue  # a record someone damaged: the others still apply
        labels = _labels(record.get("labels"))
        if labels:
            had = set(entry.labels)
            for label in labels:
                if label not in had and len(had) < MAX_LABELS:
                    had.add(label)
                    entry.labels.append(label)


def records_after(records: JournalRecords, after_line: int) -> dict[str, object] | None:
    """The journal's records past line ``after_line`` as one record (spooled ones left out),
    or None when there are none."""
    before: list[dict[str, object]] = []
    after: list[dict[str, object]] = []
    labels: list[str] = []
    for number, record in records.records:
        if number > after_line:
            before += _dicts(record.get("before"))
            after += _dicts(record.get("after"))
            labels += _labels(record.get("labels"))
    if not (before or after or labels):
        return None
    found: dict[str, object] = {"before": before, "after": after}
    if labels:
        found["labels"] = labels
    return found


def _apply_before(entry: Entry, index: dict[bytes, FileChange], change: FileChange) -> None:
    existing = index.get(change.path)
    if existing is None:
        entry.files.append(change)
        index[change.path] = change
        return
    if existing.moved_from is None and change.moved_from is not None:
        existing.moved_from = change.moved_from  # moved onto a path the turn had recorded
    if change.at < existing.at and change.before is not None:
        # A spooled record taken earlier than the one already applied is the true pre-image.
        existing.before, existing.at, existing.source = change.before, change.at, change.source


# The most labels a turn takes from its journal: a hostile journal must not make every reader
# of the open turn slow.
MAX_LABELS = 1000


def _labels(value: object) -> list[str]:
    """The well-formed labels of a record, at most :data:`MAX_LABELS`: short printable text
    that encodes as UTF-8 (others are skipped)."""
    if not isinstance(value, list):
        return []
    found = []
    for item in value[:MAX_LABELS]:
        if isinstance(item, str) and 0 < len(item) <= 200 and item.isprintable():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate
                continue
            found.append(item)
    return found


def _dicts(value: object) -> list[dict[str, object]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def object_ids(records: JournalRecords) -> set[str]:
    """Every object the records name (gc must keep them: no commit names them yet)."""
    found = set()
    for _, record in records.records:
        for data in _dicts(record.get("before")):
            before = data.get("before")
            if isinstance(before, dict) and isinstance(before.get("oid"), str):
                found.add(str(before["oid"]))
        for data in _dicts(record.get("after")):
            state = data.get("state")
            if isinstance(state, dict) and isinstance(state.get("oid"), str):
                found.add(str(state["oid"]))
    return found


# locking --------------------------------------------------------------------------------------


def _lock(fd: int, timeout: float) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    deadline = time.monotonic() + timeout
    while True:
        time.sleep(0.002)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise JournalBusy(
                    f"the open turn's journal was busy for {timeout:.0f} s (a process holding it "
                    "is stuck); nothing was changed, try again."
                ) from None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def objects_named(folder: str) -> set[str]:
    """The objects that the journals in ``folder`` (the open turns'), their spooled records and
    the journals set aside name: no commit does yet (or ever will, for those set aside, which
    are kept for people)."""
    found: set[str] = set()
    for directory in (folder, os.path.join(folder, ORPHAN_DIR)):
        try:
            names = os.listdir(directory)
        except (FileNotFoundError, NotADirectoryError):
            continue
        # A spool file is read with its journal, which need not exist (no turn was open).
        for name in {name.split(SPOOL_MARK, 1)[0] for name in names}:
            path = os.path.join(directory, name)
            if name.endswith(".why") or os.path.isdir(path):
                continue
            records = read(path)
            if records is not None:
                found |= object_ids(records)
    return found
