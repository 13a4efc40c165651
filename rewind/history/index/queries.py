"""The questions readers ask the index: a session's entries (by number, id, kind or age), the
entries that recorded a path, what a push sends, ``log``'s filters. Each brings the session
up to date first (:meth:`~rewind.history.index.sync.SyncedIndex.sync`)."""

from __future__ import annotations

from rewind.history.entry import DAMAGED, Entry, FileChange
from rewind.history.index.caches import IndexCaches
from rewind.history.index.rows import COLUMNS, PREFIXED, entry_of_row
from rewind.history.index.sync import SyncedIndex
from rewind.history.session import SessionHead

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator


class EntryIndex(SyncedIndex, IndexCaches):
    """The store's index, open, kept up with the commits; use as a context manager (it closes
    the connection)."""

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
            current if row[1] == newest and current is not None else entry_of_row(row)
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

    def restoring_entries(self, head: SessionHead) -> list[Entry]:
        """The session's restores, undos and redos, oldest first (a partial index finds them:
        what they cost grows with their number, not with the session's)."""
        self.sync(head)
        rows = self.db.execute(
            f"SELECT {COLUMNS} FROM entries WHERE session = ? "
            "AND kind IN ('restore', 'undo', 'redo') ORDER BY number",
            (head.session_id,),
        )
        current = head.current
        newest = current.number if current is not None else None
        return [
            current if row[1] == newest and current is not None else entry_of_row(row)
            for row in rows
        ]

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
        return entry_of_row(row) if row is not None else None

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
            sql = f"SELECT {PREFIXED} FROM {table}{condition} ORDER BY {reverse} LIMIT ?"
            rows = self.db.execute(sql, (*values, newest)).fetchall()
            for row in reversed(rows):
                yield entry_of_row(row)
            return
        for row in self.db.execute(
            f"SELECT {PREFIXED} FROM {table}{condition} ORDER BY {order}", values
        ):
            yield entry_of_row(row)


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
