"""One gc of the store: pack what is new, keep the packs few, delete what nothing needs.

A gc (:func:`pack_store`) goes like this:

1. Under the store lock, for a few milliseconds, it takes a **snapshot**: the commits the
   sessions' and labels' refs point at, the objects the open turns' journals name
   (``named_elsewhere``), the superseded commits writers noted (:mod:`rewind.store.garbage`)
   and whether a full repack was asked for. No writer is half-way through a commit then, so
   every object a commit will name later is either reachable in the snapshot, or named by a
   journal in it, or written (or freshened) after it.
2. It **walks** from those commits to every object not yet in a pack, stopping at packed
   commits and skipping packed trees. That is sound because the packs are closed under
   reachability: each is written from such a walk, and packs are only ever rolled together
   or rewritten whole, never cut (:mod:`rewind.store.reachability`). So the walk, and the
   memory and time of a gc, grow with what is new since the last gc, not with the history.
3. It writes **one pack** of the new objects, rolled together with the existing packs that
   :func:`rewind.store.packs.to_roll_up` picks so that pack sizes stay a geometric
   progression of factor 2 (as ``git repack --geometric=2`` does): a store keeps a few packs,
   and the big old ones are not rewritten each time. The packs rolled up are then removed.
4. It deletes **loose objects**: those now in a pack at once (always safe), the unreachable
   closure of each superseded commit at once (the commit, the trees under it and the record
   blobs its root tree names: never a file's content), and every other unreachable loose
   object once it is older than :data:`GRACE_SECONDS` (those are data blobs a hook may have
   just written and not yet named). Each is moved aside and its time checked once more, so
   that one a writer freshened meanwhile is put back (rewind.store.loose).

A **full repack** (``full=True``, or after :func:`rewind.store.garbage.request_full_repack`,
which ``rewind forget`` calls) walks the whole history instead and rewrites every pack into one
that holds only what is reachable, then removes all the others: what a forgotten session or
cut-off turns left inside the packs goes. Objects a writer uses after the snapshot are safe
there too, since a writer always leaves a loose copy of what it writes (rewind.store.objects).

Hooks keep running meanwhile: the store lock is held only for the snapshot; one gc runs at a
time (``rewind/gc.lock``: a second one gives up at once). A gc killed at any point leaves every
object the history needs in place, and the next gc clears what it left (rewind.store.packs,
rewind.store.loose; the taken notes in rewind.store.garbage stay until a gc completes).
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable

from rewind.errors import StoreError, UserError
from rewind.store import garbage, loose, packs
from rewind.store.auto_gc import GC_STARTED, touch
from rewind.store.objects import MODE_TREE, ObjectReader
from rewind.store.packed import forget_repository
from rewind.store.reachability import never_packed, unpacked_reachable
from rewind.store.remotes import PUSHED_REF_PREFIX
from rewind.store.repository import (
    CONVERSATIONS_REF_PREFIX,
    LABELS_REF_PREFIX,
    SESSIONS_REF_PREFIX,
    Store,
)

# How long an unreachable loose object (other than a superseded commit's own) is kept. It only
# has to outlast the time between a writer storing a file's content and naming it in a journal
# or a commit: a hook waits at most 5 s for the journal's lock and 15 s for the store lock
# before it spools its record; a person's command waits at most 120 s for the store lock; and
# reading the files a record names (a quicksave takes at most 200 MiB) takes seconds. Ten
# minutes is several times the worst of these. (The Python API and watch mode wait for the
# store lock without limit: one blocked for longer than this behind another writer holding the
# lock, while a gc runs, is the case it does not cover.)
GRACE_SECONDS = 10 * 60
GC_LOCK = "gc.lock"


# The objects that something other than a ref names, read when asked
# (rewind.history.upkeep.collection).
NamedElsewhere = Callable[[], set[str]]


class GcBusy(UserError):
    """Another gc holds the store's gc lock."""


class PackReport:
    """What one gc did. ``packed``: objects written into packs (new ones, and those of the
    packs rolled together with them); ``rolled``: older packs rewritten into the new one;
    ``packs``: how many packs the store has afterwards; ``full``: whether it was a full
    repack; ``superseded_removed``: loose objects of superseded commits among
    ``loose_removed``."""

    __slots__ = (
        "full",
        "loose_removed",
        "packed",
        "packs",
        "rolled",
        "size_after",
        "size_before",
        "superseded_removed",
    )

    def __init__(
        self,
        packed: int,
        loose_removed: int,
        size_before: int,
        size_after: int,
        packs: int = 0,
        rolled: int = 0,
        full: bool = False,
        superseded_removed: int = 0,
    ) -> None:
        self.packed = packed
        self.loose_removed = loose_removed
        self.size_before = size_before
        self.size_after = size_after
        self.packs = packs
        self.rolled = rolled
        self.full = full
        self.superseded_removed = superseded_removed


class Snapshot:
    """What the history needed when the store lock was held (see the module's doc)."""

    __slots__ = ("full", "named", "superseded", "taken_at", "tips")

    def __init__(self, store: Store, named_elsewhere: NamedElsewhere, full: bool) -> None:
        with store.lock():
            self.taken_at = time.time()
            self.tips = ref_tips(store)
            self.named = named_elsewhere()
            self.superseded = garbage.take_superseded(store)
            self.full = garbage.take_full_request(store) or full


def ref_tips(store: Store) -> list[str]:
    """The commits the sessions' refs and the labels' refs point at, those last pushed to
    each remote (rewind.store.remotes): a session's history as sent, where it had to be
    rewritten (rewind.history.remote.export), and the conversations kept with the sessions
    (rewind.history.kept_conversation)."""
    refs = (
        store.ref_names(SESSIONS_REF_PREFIX)
        + store.all_ref_names(LABELS_REF_PREFIX)
        + store.all_ref_names(PUSHED_REF_PREFIX)
        + store.ref_names(CONVERSATIONS_REF_PREFIX)
    )
    return [tip for tip in (store.read_ref(ref) for ref in refs) if tip]


def reachable_objects(
    store: Store, named_elsewhere: NamedElsewhere, seen: set[str] | None = None
) -> set[str]:
    """Every commit, tree and blob the sessions' refs and the labels' refs lead to, packed or
    not, and those ``named_elsewhere`` gives (the open turns' journals). Given the set an
    earlier call returned, only what is new is walked."""
    seen = unpacked_reachable(store.reader, ref_tips(store), never_packed, seen)
    seen.update(named_elsewhere())
    return seen


def pack_store(
    store: Store,
    named_elsewhere: NamedElsewhere,
    full: bool = False,
    record_names: frozenset[bytes] = frozenset(),
    first: Callable[[], object] | None = None,
) -> PackReport:
    """Packs what the history needs and removes what it does not (see the module's doc).

    ``first`` runs under the gc lock once what a killed gc left is cleared, before anything is
    read: the history's own upkeep (retention's cuts).

    ``named_elsewhere`` gives the objects that files other than refs name; ``full`` rewrites
    every pack; ``record_names`` are the names of the blobs in a commit's root tree that hold
    the record of the commit itself (never a file's content), which go with a superseded
    commit. One gc runs at a time: a second one raises :class:`GcBusy` at once.
    """
    fd = os.open(store.state_path(GC_LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise GcBusy(
                "another 'rewind gc' is packing this store right now; it does everything this "
                "one would, so there is nothing to do."
            ) from None
        touch(store.state_path(GC_STARTED))
        return _collect(store, named_elsewhere, full, record_names, first)
    finally:
        os.close(fd)


def _collect(
    store: Store,
    named_elsewhere: NamedElsewhere,
    full: bool,
    record_names: frozenset[bytes],
    first: Callable[[], object] | None,
) -> PackReport:
    objects_dir = os.path.join(store.git_dir, "objects")
    pack_dir = os.path.join(objects_dir, "pack")
    os.makedirs(pack_dir, exist_ok=True)
    packs.clear_leftovers(pack_dir)
    loose.clear_leftovers(objects_dir, time.time() - GRACE_SECONDS)
    if first is not None:
        first()
    size_before = store.disk_usage()
    snapshot = Snapshot(store, named_elsewhere, full)
    existing = packs.Packs(pack_dir)
    try:
        report = _pack_and_sweep(store, snapshot, existing, record_names, pack_dir)
    finally:
        existing.close()
        forget_repository(store.git_dir)  # its packs changed
    garbage.done_with_superseded(store)
    if snapshot.full:
        garbage.done_with_full_request(store)
    report.size_after = store.disk_usage()
    report.size_before = size_before
    return report


def _pack_and_sweep(
    store: Store,
    snapshot: Snapshot,
    existing: packs.Packs,
    record_names: frozenset[bytes],
    pack_dir: str,
) -> PackReport:
    objects_dir = os.path.dirname(pack_dir)
    packed = never_packed if snapshot.full else existing.holds
    needed = unpacked_reachable(store.reader, snapshot.tips, packed)
    for oid in snapshot.named:  # a journal may name what is gone: 'rewind check' says so
        if not packed(oid) and oid not in needed and _exists(store, existing, oid):
            needed.add(oid)
    superseded = _superseded_garbage(store.reader, snapshot, needed, existing.holds, record_names)

    sizes = existing.sizes()
    rolled = list(sizes) if snapshot.full else packs.to_roll_up(sizes, len(needed))
    written = 0
    if needed or rolled:
        contents = [bytes.fromhex(oid) for oid in needed]
        if not snapshot.full:  # a full repack keeps only what the walk found
            for name in rolled:
                contents.extend(existing.indexes[name].raw_names())
            contents = list(dict.fromkeys(contents))
        new_pack = packs.write_pack(store.git_dir, pack_dir, contents) if contents else ""
        written = len(contents)
        for name in rolled:
            if name != new_pack:
                packs.remove_pack(pack_dir, name)

    def now_packed(oid: str) -> bool:
        # After a full repack only the new pack is left; otherwise every pack that was there
        # is either still there or rolled into the new one.
        return oid in needed or (not snapshot.full and existing.holds(oid))

    superseded_removed = _remove_superseded(objects_dir, superseded, snapshot.taken_at)
    removed = superseded_removed + _sweep_loose(
        objects_dir, now_packed, needed | snapshot.named | set(superseded), snapshot.taken_at
    )
    return PackReport(
        written,
        removed,
        0,
        0,
        packs=len(packs.pack_names(pack_dir)),
        rolled=len(rolled),
        full=snapshot.full,
        superseded_removed=superseded_removed,
    )


def _exists(store: Store, existing: packs.Packs, oid: str) -> bool:
    return os.path.exists(store.writer.path_of(oid)) or existing.holds(oid)


def _superseded_garbage(
    reader: ObjectReader,
    snapshot: Snapshot,
    needed: set[str],
    packed: Callable[[str], bool],
    record_names: frozenset[bytes],
) -> list[str]:
    """The loose objects only superseded commits needed: each unreachable commit, the trees
    under it, and the blobs its root tree names under ``record_names``; never a file's content
    (a blob elsewhere): only the grace period decides about those. In the order they can be
    deleted in: what a commit or tree names before it, so that a gc killed half-way still
    finds the rest from the commit."""

    def kept(oid: str) -> bool:
        return oid in needed or oid in snapshot.named or packed(oid)

    found: dict[str, None] = {}
    for commit in snapshot.superseded:
        if kept(commit) or commit in found:
            continue  # the same commit was written again, or it is packed already
        try:
            root, _ = reader.read_commit(commit)
        except StoreError:
            continue  # deleted already, or damaged
        records: list[str] = []
        trees: list[str] = []  # each before the trees it names
        pending = [root]
        while pending:
            tree = pending.pop()
            if kept(tree) or tree in found or tree in trees:
                continue
            trees.append(tree)
            try:
                entries = reader.read_tree(tree)
            except StoreError:
                continue  # deleted by a gc killed half-way (what it named went first)
            for name, mode, oid in entries:
                if kept(oid):
                    continue
                if mode == MODE_TREE:
                    pending.append(oid)
                elif tree == root and name in record_names:
                    records.append(oid)
        found.update(dict.fromkeys([*records, *reversed(trees), commit]))
    return list(found)


def _remove_superseded(objects_dir: str, ordered: list[str], snapshot_time: float) -> int:
    """Deletes superseded commits' own objects, each unless a writer wrote it again since the
    snapshot (written before it and unreachable in it, only such a writer can need it)."""
    removed = 0
    for oid in ordered:
        path = os.path.join(objects_dir, oid[:2], oid[2:])
        if os.path.exists(path):
            removed += loose.remove_if_still_older(path, snapshot_time)
    return removed


def _sweep_loose(
    objects_dir: str, now_packed: Callable[[str], bool], kept: set[str], snapshot_time: float
) -> int:
    """Deletes loose objects that are packed, and unreachable ones older than the grace period
    (but none of ``kept``); removes the fan-out folders left empty. Returns how many went."""
    grace_cutoff = snapshot_time - GRACE_SECONDS
    removed = 0
    for prefix in loose.fan_out(objects_dir):
        for oid, path in loose.loose_objects(objects_dir, prefix):
            if now_packed(oid):
                loose.remove(path)
                removed += 1
            elif oid not in kept and loose.is_older(path, grace_cutoff):
                removed += loose.remove_if_still_older(path, grace_cutoff)
        loose.remove_empty_folder(objects_dir, prefix)
    return removed
