"""An index of every session's entries, so that reads cost what they need, not the history.

The commits stay the truth; the index is a cache of them kept in the store
(``<store>/rewind/index.sqlite``), maintained incrementally and rebuilt from the commits when
it is missing, damaged or of another format:

- ``entries``: per session and entry number, the entry's commit and its turn.json record,
  with the fields ``log`` filters on (kind, time, prompt, labels);
- ``touches``: per path, the entries (of every session) that recorded it: ``log --path`` and
  the conflict check of a restore read it instead of every other session's history;
- ``tips``: the commit each session was indexed up to;
- ``diffstats``: +/- line counts per pair of contents, computed once by the first reader that
  needs them (the hook path never diffs) and kept;
- ``blames``: per path, where each line of its newest recorded version came from, as
  ``rewind blame`` last worked it out (:mod:`rewind.history.insight.blame`): the versions it walked
  (``chain``) and one code per line (``origins``), so that the next blame diffs only what was
  recorded since.

Writers never update it: hooks stay free of sqlite. A reader brings a session up to date first
(:meth:`EntryIndex.sync`): it walks back from the session's tip to the first commit it already
has, so the cost grows with what was recorded since the last read. Concurrent readers write the
same rows; sqlite serialises them.
"""

from __future__ import annotations

import os
import sqlite3
import zlib

from rewind.errors import DamagedEntry, StoreError
from rewind.history import commits
from rewind.history.entry import DAMAGED, Entry, FileChange, damaged_entry
from rewind.history.session import SessionHead, ref_leaf
from rewind.store.fastjson import dumps, load_object
from rewind.store.repository import DamagedRef, Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

INDEX_FILE = "index.sqlite"
FORMAT = "2"
_BUSY_SECONDS = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tips (ref TEXT PRIMARY KEY, session TEXT NOT NULL, tip TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    session TEXT NOT NULL,
    number INTEGER NOT NULL,
    commit_id TEXT NOT NULL,
    id TEXT NOT NULL,
    kind TEXT NOT NULL,
    started REAL NOT NULL,
    prompt TEXT NOT NULL,
    agent TEXT NOT NULL,
    labels TEXT NOT NULL,
    record BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS entries_by_number ON entries (session, number);
CREATE INDEX IF NOT EXISTS entries_by_id ON entries (id);
CREATE INDEX IF NOT EXISTS entries_damaged ON entries (session, number) WHERE kind = 'damaged';
CREATE INDEX IF NOT EXISTS entries_restores ON entries (session, number)
    WHERE kind IN ('restore', 'undo');
CREATE TABLE IF NOT EXISTS touches (
    path BLOB NOT NULL,
    session TEXT NOT NULL,
    number INTEGER NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (path, session, number)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS touches_by_entry ON touches (session, number);
CREATE TABLE IF NOT EXISTS diffstats (
    old TEXT NOT NULL,
    new TEXT NOT NULL,
    added INTEGER NOT NULL,
    removed INTEGER NOT NULL,
    binary INTEGER NOT NULL,
    PRIMARY KEY (old, new)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blames (
    path BLOB PRIMARY KEY,
    chain TEXT NOT NULL,
    origins BLOB NOT NULL
) WITHOUT ROWID;
"""


def index_path(store: Store) -> str:
    return store.state_path(INDEX_FILE)


def _connect(path: str) -> sqlite3.Connection:
    connection = sqlite3.connect(path, timeout=_BUSY_SECONDS, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    return connection


def _remove_index(path: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass


class EntryIndex:
    """The store's index, open; use as a context manager (it closes the connection)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.path = index_path(store)
        self.in_memory = False
        try:
            self.db = self._open()
            if self.store.reader.cut_points():
                self._follow_cuts()
        except sqlite3.OperationalError as error:  # a full disk, a read-only store
            self.db = self._in_memory(error)

    def _open(self) -> sqlite3.Connection:
        try:
            return self._open_checked()
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as error:
            self.store.log_problem(f"the index {self.path} was unusable ({error}); rebuilt it")
            _remove_index(self.path)
            return self._open_checked()

    def _in_memory(self, error: Exception) -> sqlite3.Connection:
        """An index of this process only, made from the commits: slower, never wrong."""
        self.store.log_problem(
            f"the index {self.path} could not be written ({error}); read the commits instead"
        )
        self.in_memory = True
        self.path = ":memory:"
        return self._open_checked()

    def _open_checked(self) -> sqlite3.Connection:
        db = _connect(self.path)
        try:
            db.executescript(_SCHEMA)
            row = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            if row is None:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (FORMAT,))
            elif row[0] != FORMAT:
                db.close()
                _remove_index(self.path)  # a cache of another format: made again
                return self._open_checked()
        except BaseException:
            db.close()
            raise
        return db

    def __enter__(self) -> EntryIndex:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.db.close()

    # keeping up with the commits --------------------------------------------------------

    def sync(self, head: SessionHead) -> None:
        """Brings the session's rows up to its tip commit (the open turn's journal is not in a
        commit: readers take it from ``head``). When the index cannot be written, this process
        goes on with an index in memory, and every session is read again into it."""
        try:
            self._sync(head)
        except sqlite3.OperationalError as error:
            if self.in_memory:
                raise
            self.db.close()
            self.db = self._in_memory(error)
            self._sync(head)

    def _sync(self, head: SessionHead) -> None:
        if head.tip is None:
            self._drop_session(head.ref)
            return
        row = self.db.execute("SELECT tip FROM tips WHERE ref = ?", (head.ref,)).fetchone()
        if row is not None and row[0] == head.tip:
            return
        walked: list[tuple[Entry, str]] = []
        commit: str | None = head.tip
        newest = head.current.number if head.current is not None else 0
        matched_at: int | None = None
        while commit:
            if walked:
                number = walked[-1][0].number - 1
                known = self.db.execute(
                    "SELECT commit_id FROM entries WHERE session = ? AND number = ?",
                    (head.session_id, number),
                ).fetchone()
                if known is not None and known[0] == commit:
                    matched_at = number
                    break
            entry, parent = self._read(head, commit, walked, newest)
            walked.append((entry, commit))
            commit = parent
        self._store_walk(head, walked, matched_at)

    def _read(
        self, head: SessionHead, commit: str, walked: list[tuple[Entry, str]], newest: int
    ) -> tuple[Entry, str | None]:
        if commit == head.tip and head.current is not None and not head.journal:
            return head.current, head.parent
        try:
            entry, parent = commits.read_entry(self.store, commit, head.session_id)
        except DamagedEntry as damage:
            entry, parent = damaged_entry(head.session_id, commit, damage.reason), damage.parent
            entry.number = walked[-1][0].number - 1 if walked else newest
        return entry, parent

    def _store_walk(
        self, head: SessionHead, walked: list[tuple[Entry, str]], matched_at: int | None
    ) -> None:
        session = head.session_id
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            if matched_at is None:
                self._delete_rows(session, "number >= ?", (-(2**62),))
            else:
                self._delete_rows(session, "number > ?", (matched_at,))
            for entry, commit in walked:
                self._insert(entry, commit)
            self.db.execute(
                "INSERT OR REPLACE INTO tips VALUES (?, ?, ?)", (head.ref, session, head.tip)
            )

    def _delete_rows(self, session: str, condition: str, values: tuple[object, ...]) -> None:
        for table in ("entries", "touches"):
            self.db.execute(
                f"DELETE FROM {table} WHERE session = ? AND {condition}", (session, *values)
            )

    def _insert(self, entry: Entry, commit: str) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                entry.session,
                entry.number,
                commit,
                entry.id,
                entry.kind,
                entry.started,
                entry.prompt,
                entry.agent,
                "\n".join(entry.labels),
                _packed_record(entry),
            ),
        )
        self.db.executemany(
            "INSERT OR REPLACE INTO touches VALUES (?, ?, ?, ?)",
            [(change.path, entry.session, entry.number, change.at) for change in entry.files],
        )

    def drop_before(self, session: str, number: int) -> None:
        """Forgets the session's entries numbered below ``number`` (retention cut them)."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self._delete_rows(session, "number < ?", (number,))

    def _follow_cuts(self) -> None:
        """Drops the rows below every cut in the store's ``shallow`` file, once per change of
        that file (a retention killed between its cut and its own drop leaves none behind)."""
        cuts = self.store.reader.cut_points()
        signature = ",".join(sorted(cuts))
        row = self.db.execute("SELECT value FROM meta WHERE key = 'cuts'").fetchone()
        if (row[0] if row else "") == signature:
            return
        for session, number, commit in self.db.execute(
            "SELECT session, number, commit_id FROM entries"
        ).fetchall():
            if commit in cuts:  # a scan: the file changes once per retention cut
                self.drop_before(session, number)
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('cuts', ?)", (signature,))

    def _drop_session(self, ref: str) -> None:
        row = self.db.execute("SELECT session FROM tips WHERE ref = ?", (ref,)).fetchone()
        if row is None:
            return
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self._delete_rows(row[0], "number >= ?", (-(2**62),))
            self.db.execute("DELETE FROM tips WHERE ref = ?", (ref,))

    def sync_all(self) -> list[Entry]:
        """Brings every session up to date and drops the rows of sessions that are gone.

        Returns the open turns that have journal records (no commit holds those yet). A
        session whose ref is damaged is left out: 'rewind check' reports it.
        """
        was_in_memory = self.in_memory
        try:
            open_turns = self._sync_all()
        except sqlite3.OperationalError as error:
            if self.in_memory:
                raise
            self.db.close()
            self.db = self._in_memory(error)
        if self.in_memory and not was_in_memory:
            return self._sync_all()  # what was synced before went with the file
        return open_turns

    def _sync_all(self) -> list[Entry]:
        from rewind.history.session import load_head

        with_journal = _journal_leaves(self.store)
        known = dict(self.db.execute("SELECT ref, tip FROM tips").fetchall())
        open_turns = []
        names = set()
        for ref in self.store.ref_names(self.store.sessions_prefix):
            try:
                tip = self.store.read_ref(ref)
            except DamagedRef:
                continue
            if tip is None:
                continue
            names.add(ref)
            leaf = ref.rsplit("/", 1)[1]
            if known.get(ref) == tip and leaf not in with_journal:
                continue  # indexed up to its tip, and nothing pending
            try:
                head = load_head(self.store, _session_of(self.store, tip, ref))
                self.sync(head)
            except StoreError as error:  # its rows so far still say what it changed
                self.store.log_problem(f"{ref} could not be indexed: {error}")
                continue
            if head.journal is not None and head.current is not None and head.current.is_open:
                open_turns.append(head.current)
        for ref in known:
            if ref not in names:
                self._drop_session(ref)
        return open_turns

    def verify(self, head: SessionHead, pairs: list[tuple[Entry, str]]) -> str:
        """Compares the session's rows with its history as read from the commits (``pairs``,
        oldest first, the open turn as committed); when they differ, says how and indexes the
        session again from the commits. Returns "" when they agree."""
        self.sync(head)
        rows = self.db.execute(
            "SELECT number, commit_id, id FROM entries WHERE session = ? ORDER BY number",
            (head.session_id,),
        ).fetchall()
        expected = [(entry.number, commit, entry.id) for entry, commit in pairs]
        if [tuple(row) for row in rows] == expected:
            paths = self.db.execute(
                "SELECT count(*) FROM touches WHERE session = ?", (head.session_id,)
            ).fetchone()[0]
            if paths == sum(len({c.path for c in entry.files}) for entry, _ in pairs):
                return ""
        self._drop_session(head.ref)
        self.sync(head)
        return (
            f"session {head.session_id}: the index did not match the commits "
            f"({len(rows)} rows for {len(expected)} entries); it was indexed again"
        )

    # reading ------------------------------------------------------------------------------

    def entries(
        self, head: SessionHead, start: int | None = None, stop: int | None = None
    ) -> list[Entry]:
        """The session's entries numbered ``start``..``stop`` (all by default), oldest first,
        the newest as ``head`` has it (its open turn's journal merged)."""
        self.sync(head)
        low = -(2**62) if start is None else start
        high = 2**62 if stop is None else stop
        rows = self.db.execute(
            f"SELECT {COLUMNS} FROM entries "
            "WHERE session = ? AND number BETWEEN ? AND ? ORDER BY number",
            (head.session_id, low, high),
        )
        current = head.current
        newest = current.number if current is not None else None
        # The newest comes from the head: its record (maybe thousands of files) is not parsed.
        return [
            current if row[1] == newest and current is not None else _entry_of_row(row)
            for row in rows
        ]

    def chain(
        self, head: SessionHead, newest: int, known: Callable[[str], bool]
    ) -> list[tuple[str, list[bytes] | None]]:
        """The commits of the session's entries up to number ``newest``, oldest first, each
        with the paths its entry recorded (None for a damaged entry, whose record cannot be
        read), back to the newest commit ``known`` accepts (or the
        first entry): a session's history without reading its objects, what a push needs to
        decide what it sends (rewind.history.remote.export). It costs what is new since that one."""
        self.sync(head)
        rows: list[tuple[int, str]] = []
        damaged: set[int] = set()
        for number, commit, kind in self.db.execute(
            "SELECT number, commit_id, kind FROM entries WHERE session = ? AND number <= ? "
            "ORDER BY number DESC",
            (head.session_id, newest),
        ):
            rows.append((number, commit))
            if kind == DAMAGED:
                damaged.add(number)
            if known(commit):
                break
        if not rows:
            return []
        paths: dict[int, list[bytes]] = {}
        for number, path in self.db.execute(
            "SELECT number, path FROM touches WHERE session = ? AND number BETWEEN ? AND ?",
            (head.session_id, rows[-1][0], newest),
        ):
            paths.setdefault(number, []).append(bytes(path))
        return [
            (commit, None if number in damaged else paths.get(number, []))
            for number, commit in reversed(rows)
        ]

    def newest(self, head: SessionHead, count: int) -> list[Entry]:
        """The session's newest ``count`` entries, oldest first."""
        self.sync(head)
        row = self.db.execute(
            "SELECT number FROM entries WHERE session = ? ORDER BY number DESC LIMIT 1 OFFSET ?",
            (head.session_id, max(count - 1, 0)),
        ).fetchone()
        return self.entries(head, row[0] if row is not None else None)

    def first_number(self, head: SessionHead) -> int | None:
        self.sync(head)
        row = self.db.execute(
            "SELECT min(number) FROM entries WHERE session = ?", (head.session_id,)
        ).fetchone()
        return row[0] if row is not None else None

    def find(self, head: SessionHead, wanted: str) -> Entry | None:
        """An entry by number (``3``) or by a unique prefix of its id; None when there is
        none. A prefix that several entries share raises a UserError."""
        number = self.find_number(head, wanted)
        return None if number is None else self.entries(head, number, number)[0]

    def find_number(self, head: SessionHead, wanted: str) -> int | None:
        """The number of the entry :meth:`find` finds (no record is read)."""
        from rewind.errors import UserError

        self.sync(head)
        if wanted.isdigit() and len(wanted) < 7:
            row = self.db.execute(
                "SELECT number FROM entries WHERE session = ? AND number = ?",
                (head.session_id, int(wanted)),
            ).fetchone()
            return row[0] if row is not None else None
        prefix = wanted.lower()
        rows = self.db.execute(
            "SELECT number FROM entries WHERE session = ? AND id >= ? AND id < ? LIMIT 2",
            (head.session_id, prefix, prefix + "\U0010ffff"),
        ).fetchall()
        if len(rows) > 1:
            raise UserError(f"{wanted!r} matches more than one turn; give more of the id.")
        return rows[0][0] if rows else None

    def with_id_prefix(self, prefix: str, limit: int = 2) -> list[tuple[str, int]]:
        """(session, number) of up to ``limit`` entries, of any session, whose id starts with
        ``prefix``; the caller syncs the sessions first (:meth:`sync_all`)."""
        rows = self.db.execute(
            "SELECT session, number FROM entries WHERE id >= ? AND id < ? LIMIT ?",
            (prefix, prefix + "\U0010ffff", limit),
        ).fetchall()
        return [(row[0], row[1]) for row in rows]

    def last_restore_or_undo(self, head: SessionHead) -> int | None:
        """The number of the session's newest restore or undo (a partial index finds it)."""
        self.sync(head)
        row = self.db.execute(
            "SELECT max(number) FROM entries WHERE session = ? AND kind IN ('restore', 'undo')",
            (head.session_id,),
        ).fetchone()
        return row[0] if row is not None else None

    def damaged_numbers(self, head: SessionHead, start: int) -> list[int]:
        rows = self.db.execute(
            "SELECT number FROM entries WHERE session = ? AND number >= ? AND kind = 'damaged'",
            (head.session_id, start),
        )
        return [row[0] for row in rows]

    def touching(self, path: bytes) -> Iterator[tuple[str, int, float]]:
        """(session, number, when) of every indexed entry that recorded ``path``."""
        yield from self.db.execute(
            "SELECT session, number, at FROM touches WHERE path = ?", (path,)
        )

    def agent(self, head: SessionHead, skip: str) -> str:
        """The agent of the session's newest turn that names one other than ``skip``."""
        self.sync(head)
        row = self.db.execute(
            "SELECT agent FROM entries WHERE session = ? AND kind = 'turn' AND agent NOT IN "
            "('', ?) ORDER BY number DESC LIMIT 1",
            (head.session_id, skip),
        ).fetchone()
        return row[0] if row is not None else ""

    def started_and_paths(self, head: SessionHead) -> tuple[float, int]:
        """When the session's first kept entry started, and how many paths it recorded."""
        self.sync(head)
        started = self.db.execute(
            "SELECT started FROM entries WHERE session = ? ORDER BY number LIMIT 1",
            (head.session_id,),
        ).fetchone()
        paths = {
            row[0]
            for row in self.db.execute(
                "SELECT DISTINCT path FROM touches WHERE session = ?", (head.session_id,)
            )
        }
        if head.current is not None:  # its open turn's journal is in no commit yet
            paths.update(head.current.paths())
        return (started[0] if started else 0.0), len(paths)

    def commit_of(self, head: SessionHead, number: int) -> str | None:
        """The commit that records entry ``number`` of the session (the tip for the newest)."""
        self.sync(head)
        row = self.db.execute(
            "SELECT commit_id FROM entries WHERE session = ? AND number = ?",
            (head.session_id, number),
        ).fetchone()
        return row[0] if row is not None else None

    def entry(self, session: str, number: int) -> Entry | None:
        row = self.db.execute(
            f"SELECT {COLUMNS} FROM entries WHERE session = ? AND number = ?", (session, number)
        ).fetchone()
        return _entry_of_row(row) if row is not None else None

    def query(
        self,
        sessions: list[str] | None,
        *,
        since: float | None = None,
        grep: str | None = None,
        ids: Iterable[str] = (),
        path: bytes | None = None,
        newest: int | None = None,
    ) -> Iterator[Entry]:
        """Entries of ``sessions`` (all when None) that match every filter given, oldest first
        (by number within a session, by start time across sessions). ``grep`` matches the
        prompt and the labels given at begin (case-insensitively), or the entry is in ``ids``
        (those whose later labels match); ``path``: entries that recorded it; ``newest``:
        only the newest that many. Rows are read as they are printed."""
        where: list[str] = []
        values: list[object] = []
        table = "entries"
        if path is not None:
            table = "entries JOIN touches USING (session, number)"
            where.append("touches.path = ?")
            values.append(path)
        if sessions is not None:
            where.append(f"entries.session IN ({', '.join('?' for _ in sessions)})")
            values.extend(sessions)
        if since is not None:
            where.append("entries.started >= ?")
            values.append(since)
        if grep is not None:
            matched = list(ids)
            clause = (
                "instr(lower(entries.prompt), lower(?)) OR instr(lower(entries.labels), lower(?))"
            )
            values.extend([grep, grep])
            if matched:
                clause += f" OR entries.id IN ({', '.join('?' for _ in matched)})"
                values.extend(matched)
            where.append(f"({clause})")
        order = "entries.started, entries.session, entries.number"
        if sessions is not None and len(sessions) == 1:
            order = "entries.number"
        condition = f" WHERE {' AND '.join(where)}" if where else ""
        reverse = order.replace(",", " DESC,") + " DESC"
        if newest is not None:
            sql = f"SELECT {_PREFIXED} FROM {table}{condition} ORDER BY {reverse} LIMIT ?"
            rows = self.db.execute(sql, (*values, newest)).fetchall()
            for row in reversed(rows):
                yield _entry_of_row(row)
            return
        for row in self.db.execute(
            f"SELECT {_PREFIXED} FROM {table}{condition} ORDER BY {order}", values
        ):
            yield _entry_of_row(row)

    # +/- line counts ----------------------------------------------------------------------

    def diffstat(self, old: str, new: str) -> tuple[int, int, bool] | None:
        row = self.db.execute(
            "SELECT added, removed, binary FROM diffstats WHERE old = ? AND new = ?", (old, new)
        ).fetchone()
        return (row[0], row[1], bool(row[2])) if row is not None else None

    def all_diffstats(self) -> dict[tuple[str, str], tuple[int, int, bool]]:
        rows = self.db.execute("SELECT old, new, added, removed, binary FROM diffstats")
        return {
            (old, new): (added, removed, bool(binary)) for old, new, added, removed, binary in rows
        }

    def remember_diffstats(self, found: dict[tuple[str, str], tuple[int, int, bool]]) -> None:
        if not found:
            return
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany(
                "INSERT OR REPLACE INTO diffstats VALUES (?, ?, ?, ?, ?)",
                [(old, new, a, r, int(b)) for (old, new), (a, r, b) in found.items()],
            )

    # blames ---------------------------------------------------------------------------------

    def blame(self, path: bytes) -> tuple[str, bytes] | None:
        """The chain of versions and the packed line origins last kept for ``path``."""
        row = self.db.execute(
            "SELECT chain, origins FROM blames WHERE path = ?", (path,)
        ).fetchone()
        return (row[0], row[1]) if row is not None else None

    def remember_blame(self, path: bytes, chain: str, origins: bytes) -> None:
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(
                "INSERT OR REPLACE INTO blames VALUES (?, ?, ?)", (path, chain, origins)
            )


# What an entry is read from: the columns the record leaves out, then the record.
COLUMNS = "session, number, id, kind, prompt, agent, started, record"
_PREFIXED = ", ".join(f"entries.{name.strip()}" for name in COLUMNS.split(","))
_IN_COLUMNS = ("format", "session", "number", "id", "kind", "prompt", "agent", "started")


def _packed_record(entry: Entry) -> bytes:
    """The entry's turn.json without what the columns hold, compressed: the index stays a
    fraction of the history it describes."""
    data = entry.to_json()
    for name in _IN_COLUMNS:
        data.pop(name, None)
    return zlib.compress(dumps(data).encode("utf-8"), 6)


def _entry_of_row(row: tuple[object, ...]) -> Entry:
    session, number, entry_id, kind, prompt, agent, started, record = row
    assert isinstance(record, bytes)
    if kind == DAMAGED:  # a stand-in, numbered after its neighbours (0 or below, maybe)
        assert isinstance(session, str) and isinstance(number, int)
        return Entry(session, number, str(entry_id), DAMAGED, prompt=str(prompt))
    data = load_object(zlib.decompress(record).decode("utf-8"))
    data.update(
        session=session,
        number=number,
        id=entry_id,
        kind=kind,
        prompt=prompt,
        agent=agent,
        started=started,
    )
    return Entry.from_json(data)


def entries_of_rows(rows: Iterable[tuple[object, ...]]) -> Iterator[Entry]:
    """Entries from rows selected as :data:`COLUMNS` (for readers with queries of their own)."""
    return (_entry_of_row(row) for row in rows)


def _journal_leaves(store: Store) -> set[str]:
    """The sessions (by ref name) that have a journal or spooled records now."""
    from rewind.history import journal

    try:
        names = os.listdir(store.state_path(journal.JOURNAL_DIR))
    except FileNotFoundError:
        return set()
    return {name.split(journal.SPOOL_MARK, 1)[0] for name in names}


def _session_of(store: Store, tip: str, ref: str) -> str:
    """The session a ref records (its name, unless the id had to be hashed into it)."""
    leaf = ref.rsplit("/", 1)[1]
    if not leaf.startswith("x-"):
        return leaf
    try:
        session = commits.read_entry(store, tip)[0].session
    except StoreError:
        return leaf
    return session if ref_leaf(session) == leaf else leaf  # a record can claim any name


def newest_change_by_others(
    index: EntryIndex, session: str, paths: Iterable[bytes], open_turns: list[Entry]
) -> dict[bytes, tuple[str, FileChange]]:
    """For each path, the newest change another session recorded for it: in the index, or in
    ``open_turns`` (the other sessions' open turns, whose journals no commit holds yet)."""
    newest: dict[bytes, tuple[str, FileChange]] = {}

    def consider(owner: str, change: FileChange) -> None:
        if change.path not in newest or change.at > newest[change.path][1].at:
            newest[change.path] = (owner, change)

    wanted = set(paths)
    for path in wanted:
        best: tuple[float, str, int] | None = None
        for other, number, at in index.touching(path):
            if other != session and (best is None or at > best[0]):
                best = (at, other, number)
        if best is not None:
            entry = index.entry(best[1], best[2])
            change = entry.file(path) if entry is not None else None
            if change is not None:
                consider(best[1], change)
    for entry in open_turns:
        if entry.session != session:
            for change in entry.files:
                if change.path in wanted:
                    consider(entry.session, change)
    return newest
