"""Keeping the index up with the commits: a reader brings a session's rows up to its tip before
it reads them, walking back only to the first commit the index already has; rows of sessions
that are gone, and of entries retention cut, are dropped."""

from __future__ import annotations

import os
import sqlite3

from rewind.errors import DamagedEntry, StoreError
from rewind.history import commits
from rewind.history.entry import Entry, damaged_entry
from rewind.history.index.database import IndexDatabase
from rewind.history.index.rows import packed_record
from rewind.history.session import SessionHead, ref_leaf
from rewind.store.repository import DamagedRef, Store


class SyncedIndex(IndexDatabase):
    """The index file, with what keeps its rows up with the sessions' commits."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        if self.in_memory or not self.store.reader.cut_points():
            return
        try:
            self._follow_cuts()
        except sqlite3.OperationalError as error:  # a full disk, a read-only store
            self.db.close()
            self.db = self._in_memory(error)

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
                packed_record(entry),
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


def open_turns(store: Store) -> list[Entry]:
    """The open turns that have journal records, as :meth:`SyncedIndex.sync_all` returns them,
    without the index: only the sessions with a journal are read (the watcher asks at each of
    its batches, and needs no index)."""
    from rewind.history.session import load_head

    leaves = _journal_leaves(store)
    if not leaves:
        return []
    found = []
    for ref in sorted(store.ref_names(store.sessions_prefix)):
        if ref.rsplit("/", 1)[1] not in leaves:
            continue
        try:
            tip = store.read_ref(ref)
            if tip is None:
                continue
            head = load_head(store, _session_of(store, tip, ref))
        except StoreError:
            continue  # a damaged ref or session: 'rewind check' reports it
        if head.journal is not None and head.current is not None and head.current.is_open:
            found.append(head.current)
    return found


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
