"""What readers work out once and keep in the index for the next: the +/- line counts of a
pair of contents (:mod:`rewind.history.insight.line_counts`) and where each line of a path's
newest version came from (:mod:`rewind.history.insight.blame`). Neither depends on the rows of
entries: syncing a session leaves them alone."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3


class IndexCaches:
    """The ``diffstats`` and ``blames`` tables of an open index (``db``): mixed into
    :class:`~rewind.history.index.queries.EntryIndex`."""

    db: sqlite3.Connection

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
