"""Keeping a project's store small: gc, with retention, and with what the history needs that no
ref reaches.

:mod:`rewind.store.packing` packs objects and removes those nothing needs; it knows refs but
not journals. This module tells it which objects the open turns' journals (and their spool
files, and the journals set aside) name, so that a record not yet folded into a commit is
never taken for garbage, and which blob of a commit's tree is the entry's own record
(``turn.json``), so that a superseded commit's record goes with it.
"""

from __future__ import annotations

from typing import NamedTuple

from rewind.history import journal
from rewind.history.commits import RECORD_NAME
from rewind.history.upkeep import retention
from rewind.store import mirrors, packing
from rewind.store.repository import Store


def named_by_journals(store: Store) -> set[str]:
    return journal.objects_named(store.state_path(journal.JOURNAL_DIR))


def reachable_objects(store: Store, seen: set[str] | None = None) -> set[str]:
    """Every object the history needs: reached from a ref, or named by a journal."""
    return packing.reachable_objects(store, lambda: named_by_journals(store), seen)


class Collected(NamedTuple):
    """What one gc did: packing, retention's cuts, the mirrors of remotes."""

    pack_report: packing.PackReport
    cuts: list[retention.Cut]
    fetched: mirrors.MirrorsCollected


def collect(store: Store, full: bool = False) -> Collected:
    """One gc of the store: retention's cuts (rewind.history.upkeep.retention, which asks for a full
    repack when it cuts) and the mirrors of remotes that fetches changed
    (rewind.store.mirrors), then packing (see :func:`rewind.store.packing.pack_store`), which
    removes what the cuts left unreachable; ``full`` rewrites every pack with only what the
    history needs, and collects every mirror."""
    cuts: list[retention.Cut] = []
    collected: list[mirrors.MirrorsCollected] = []

    def first() -> None:  # under the gc lock: one gc at a time does all of it
        cuts.extend(retention.apply(store, retention.plan(store, store.config.retention)))
        collected.append(mirrors.collect_all(store, full))

    report = packing.pack_store(
        store, lambda: named_by_journals(store), full, frozenset({RECORD_NAME}), first
    )
    return Collected(report, cuts, collected[0])
