"""Retention: which old entries gc drops, so that a store's size stays bounded by a policy.

The policy is ``[retention]`` in rewind.toml (:class:`rewind.store.config.Retention`). For
every session but the newest, the entries older than ``keep_days`` are dropped, oldest first,
except the last ``keep_last`` entries of the session and every labelled entry and everything
after it (a labelled entry stays restorable). While the store is still larger than
``max_size_mb``, more of the oldest droppable entries go, across sessions.

Dropping is a cut, not a rewrite: the commit of the oldest kept entry is listed in the store's
``shallow`` file, which the reader (and git) take as the start of the chain, so every newer
entry keeps its commit, its labels and its content, and stays restorable byte for byte. What
only the dropped entries named becomes unreachable, and gc removes it. The conversation kept
with a session (rewind.history.kept_conversation) is no chain of entries: what was kept for
the dropped entries is taken out of it (its small chain rewritten), so that it stays bounded too.
"""

from __future__ import annotations

import os
import time

from rewind.history.entry import Entry
from rewind.history.index.queries import EntryIndex
from rewind.history.index.rows import COLUMNS, entries_of_rows
from rewind.history.kept_conversation import drop_entries
from rewind.history.session import SessionHead, load_head, ref_name
from rewind.history.sessions import labels_of, list_sessions
from rewind.store import garbage
from rewind.store.atomic import write_text_atomically
from rewind.store.config import Retention
from rewind.store.objects import SHALLOW
from rewind.store.repository import DamagedRef, Store

DAY = 86400.0
MB = 1024 * 1024


class Cut:
    """The entries of one session that retention drops: those numbered below ``keep_from``."""

    __slots__ = (
        "commit",
        "dropped",
        "dropped_ids",
        "freed",
        "keep_from",
        "newest_dropped",
        "session",
    )

    def __init__(self, session: str, keep_from: int, commit: str, dropped: list[Entry]) -> None:
        self.session = session
        self.keep_from = keep_from
        self.commit = commit  # the commit of entry keep_from: the new start of the chain
        self.dropped = len(dropped)
        self.dropped_ids = {entry.id for entry in dropped}
        self.newest_dropped = max((entry.started for entry in dropped), default=0.0)
        self.freed = 0  # bytes of content only the dropped entries name (an estimate of space)

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d", time.localtime(self.newest_dropped))
        return (
            f"session {self.session}: entries before {self.keep_from} ({self.dropped}, the "
            f"newest from {when}), about {self.freed / MB:.1f} MB"
        )


def plan(store: Store, policy: Retention, now: float | None = None) -> list[Cut]:
    """What retention would drop now; nothing is changed."""
    if not policy.enabled:
        return []
    now = time.time() if now is None else now
    damaged: list[DamagedRef] = []
    summaries = list_sessions(store, damaged)
    if len(summaries) < 2:
        return []  # the newest session is always kept whole
    with EntryIndex(store) as index:
        index.sync_all()
        limits = {
            summary.head.session_id: _first_kept_at_most(store, index, summary.head, policy)
            for summary in summaries[:-1]
        }
        keep_from = {
            session: min(limit, _first_recent(index, session, now - policy.keep_days * DAY))
            for session, limit in limits.items()
        }
        heads = {summary.head.session_id: summary.head for summary in summaries[:-1]}
        budget = policy.max_size_mb * MB
        if budget:
            _within_budget(store, index, heads, keep_from, limits, budget)
        return _cuts(index, heads, keep_from)


def _first_kept_at_most(
    store: Store, index: EntryIndex, head: SessionHead, policy: Retention
) -> int:
    """The oldest entry that must be kept: the last ``keep_last`` and every labelled one on."""
    assert head.current is not None
    limit = head.current.number - policy.keep_last + 1
    labelled = _first_labelled(store, index, head.session_id)
    return limit if labelled is None else min(limit, labelled)


def _first_labelled(store: Store, index: EntryIndex, session: str) -> int | None:
    """The number of the session's oldest labelled entry (given at 'rewind begin --label' or
    attached with 'rewind label'), None when none is."""
    found = []
    row = index.db.execute(
        "SELECT min(number) FROM entries WHERE session = ? AND labels != ''", (session,)
    ).fetchone()
    if row is not None and row[0] is not None:
        found.append(int(row[0]))
    attached = labels_of(store, session)
    if attached:
        marks = ", ".join("?" for _ in attached)
        row = index.db.execute(
            f"SELECT min(number) FROM entries WHERE session = ? AND id IN ({marks})",
            (session, *attached),
        ).fetchone()
        if row is not None and row[0] is not None:
            found.append(int(row[0]))
    return min(found, default=None)


def _first_recent(index: EntryIndex, session: str, cutoff: float) -> int:
    """The number of the session's first entry that started at or after ``cutoff``."""
    row = index.db.execute(
        "SELECT min(number) FROM entries WHERE session = ? AND started >= ?", (session, cutoff)
    ).fetchone()
    if row is not None and row[0] is not None:
        return int(row[0])
    newest = index.db.execute(
        "SELECT max(number) FROM entries WHERE session = ?", (session,)
    ).fetchone()
    return int(newest[0]) + 1 if newest and newest[0] is not None else 1


def _within_budget(
    store: Store,
    index: EntryIndex,
    heads: dict[str, SessionHead],
    keep_from: dict[str, int],
    limits: dict[str, int],
    budget: int,
) -> None:
    """Moves ``keep_from`` up, oldest entries first across sessions, until the content that
    the remaining entries name fits in ``budget`` (an estimate: what content takes on disk
    packed is not known before packing, so the logical size is scaled by the store's ratio of
    bytes on disk to logical bytes)."""
    sizes, total = _content_sizes(index)
    on_disk = store.disk_usage()
    if on_disk <= budget or not total:
        return
    ratio = on_disk / total
    excess = float(on_disk - budget)
    candidates = []
    for session in heads:
        for entry in index.entries(heads[session], keep_from[session], limits[session] - 1):
            candidates.append((entry.started, session, entry.number))
    candidates.sort()
    for _, session, number in candidates:
        if excess <= 0:
            break
        keep_from[session] = max(keep_from[session], number + 1)
        excess -= sizes.get((session, number), 0) * ratio


def _content_sizes(index: EntryIndex) -> tuple[dict[tuple[str, int], int], int]:
    """Each entry's logical bytes (by session and number), and the whole history's."""
    sizes: dict[tuple[str, int], int] = {}
    total = 0
    rows = index.db.execute(f"SELECT {COLUMNS} FROM entries")
    for entry in entries_of_rows(rows):
        size = sum(
            state.size
            for change in entry.files
            for state in (change.before, change.after)
            if state is not None and state.oid
        )
        sizes[(entry.session, entry.number)] = size
        total += size
    return sizes, total


def _cuts(index: EntryIndex, heads: dict[str, SessionHead], keep_from: dict[str, int]) -> list[Cut]:
    cuts = []
    for session, head in heads.items():
        first = index.first_number(head)
        if first is None or keep_from[session] <= first:
            continue
        dropped = index.entries(head, first, keep_from[session] - 1)
        commit = index.commit_of(head, keep_from[session])
        if commit is None:
            continue
        cut = Cut(session, keep_from[session], commit, dropped)
        kept = {
            state.oid
            for entry in index.entries(head, keep_from[session])
            for change in entry.files
            for state in (change.before, change.after)
            if state is not None and state.oid
        }
        cut.freed = sum(
            {
                state.oid: state.size
                for entry in dropped
                for change in entry.files
                for state in (change.before, change.after)
                if state is not None and state.oid and state.oid not in kept
            }.values()
        )
        cuts.append(cut)
    return cuts


def apply(store: Store, cuts: list[Cut]) -> list[Cut]:
    """Cuts each session's history at its ``Cut`` (under the store lock); returns the cuts
    made (a session forgotten meanwhile has none) and says them in the store's log.

    The cuts were planned without the lock: under it, each is checked again, and one that would
    now drop a labelled entry (a 'rewind label' done since the plan) keeps it, and every entry
    after it, as the plan would have."""
    if not cuts:
        return []
    made = []
    with store.lock(), EntryIndex(store) as index:
        lines = _shallow_lines(store)
        for planned in cuts:
            cut = _still_wanted(store, index, planned)
            if cut is None:
                continue
            lines = [
                line for line in lines if _session_of_cut(store, line) not in (None, cut.session)
            ]
            lines.append(cut.commit)
            made.append(cut)
        if not made:
            return []
        shallow = "".join(f"{commit}\n" for commit in lines)
        write_text_atomically(os.path.join(store.git_dir, SHALLOW), shallow)
        garbage.request_full_repack(store)  # what the cut leaves is in the packs too
        for cut in made:
            index.drop_before(cut.session, cut.keep_from)
            # What was kept of the conversation before those entries goes with them.
            drop_entries(store, cut.session, cut.dropped_ids)
            try:  # its parent may be the cut: read again from the commit
                os.unlink(store.state_path("sessions", _ref_leaf(cut.session) + ".json"))
            except FileNotFoundError:
                pass
            store.log_problem(f"retention dropped {cut.describe()}")
    return made


def _still_wanted(store: Store, index: EntryIndex, cut: Cut) -> Cut | None:
    """``cut`` as it must be made now, under the store lock (None: no cut any more): the
    session still has the entry the chain is to start at, and no labelled entry before it."""
    head = load_head(store, cut.session)
    if head.current is None or index.commit_of(head, cut.keep_from) != cut.commit:
        return None
    labelled = _first_labelled(store, index, cut.session)
    if labelled is None or labelled >= cut.keep_from:
        return cut
    again = _cuts(index, {cut.session: head}, {cut.session: labelled})
    return again[0] if again else None


def _ref_leaf(session: str) -> str:
    return ref_name(session).rsplit("/", 1)[1]


def _shallow_lines(store: Store) -> list[str]:
    try:
        with open(os.path.join(store.git_dir, SHALLOW), encoding="ascii", errors="replace") as f:
            return [line.strip() for line in f if len(line.strip()) == 40]
    except FileNotFoundError:
        return []


def _session_of_cut(store: Store, commit: str) -> str | None:
    from rewind.errors import StoreError
    from rewind.history import commits

    try:
        return commits.read_entry(store, commit)[0].session
    except StoreError:
        return None  # gone with a forgotten session: the line can go too
