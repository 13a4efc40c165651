"""How an entry is kept in a row of the index's ``entries`` table: the fields readers filter on
in columns of their own, the rest of its turn.json record packed beside them."""

from __future__ import annotations

import zlib

from rewind.history.entry import DAMAGED, Entry
from rewind.store.fastjson import dumps, load_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

# What an entry is read from: the columns the record leaves out, then the record.
COLUMNS = "session, number, id, kind, prompt, agent, started, record"
# The same, named by table (for queries that join ``touches``).
PREFIXED = ", ".join(f"entries.{name.strip()}" for name in COLUMNS.split(","))
_IN_COLUMNS = ("format", "session", "number", "id", "kind", "prompt", "agent", "started")


def packed_record(entry: Entry) -> bytes:
    """The entry's turn.json without what the columns hold, compressed: the index stays a
    fraction of the history it describes."""
    data = entry.to_json()
    for name in _IN_COLUMNS:
        data.pop(name, None)
    return zlib.compress(dumps(data).encode("utf-8"), 6)


def entry_of_row(row: tuple[object, ...]) -> Entry:
    """The entry a row selected as :data:`COLUMNS` (or :data:`PREFIXED`) holds."""
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
    return (entry_of_row(row) for row in rows)
