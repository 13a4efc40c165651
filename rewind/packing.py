"""Packing the store: every object the sessions still need goes into one delta-compressed pack.

Hooks keep running while it works: it holds only its own lock (one packing at a time), never the
store lock. That is safe because objects never change, and an entry only ever names objects that
were reachable already or that were written loose since. Loose objects that were packed are
removed; loose objects that no session or label reaches (superseded versions of an open turn, a
forgotten session) are removed once they are older than :data:`GRACE_SECONDS`, because a hook may
have just written a blob that its entry does not name yet. Older packs are removed only after the
new one is complete.
"""

from __future__ import annotations

import os
import time

from rewind.objects import MODE_TREE
from rewind.packed import open_repository
from rewind.store import LABELS_REF_PREFIX, SESSIONS_REF_PREFIX, Store, StoreLock

GRACE_SECONDS = 2 * 60 * 60
# Like git's gc.auto: pack once about this many loose objects have piled up, judged (as git
# does) from one of the 256 fan-out directories so that the check costs a single listdir.
AUTO_PACK_LOOSE_OBJECTS = 6700


class PackReport:
    __slots__ = ("loose_removed", "packed", "size_after", "size_before")

    def __init__(self, packed: int, loose_removed: int, size_before: int, size_after: int) -> None:
        self.packed = packed
        self.loose_removed = loose_removed
        self.size_before = size_before
        self.size_after = size_after


def reachable_objects(store: Store) -> set[str]:
    """Every commit, tree and blob the sessions' refs and the labels' refs lead to."""
    seen: set[str] = set()
    refs = store.ref_names(SESSIONS_REF_PREFIX) + store.all_ref_names(LABELS_REF_PREFIX)
    for ref in refs:
        commit = store.read_ref(ref)
        while commit and commit not in seen:
            seen.add(commit)
            tree, parent = store.reader.read_commit(commit)
            _add_tree(store, tree, seen)
            commit = parent
    return seen


def _add_tree(store: Store, tree: str, seen: set[str]) -> None:
    if tree in seen:
        return
    seen.add(tree)
    for _, mode, oid in store.reader.read_tree(tree):
        if mode == MODE_TREE:
            _add_tree(store, oid, seen)
        else:
            seen.add(oid)


def pack_store(store: Store) -> PackReport:
    import pygit2

    objects_dir = os.path.join(store.git_dir, "objects")
    with StoreLock(store.state_path("gc.lock")):
        size_before = store.disk_usage()
        reachable = reachable_objects(store)
        pack_dir = os.path.join(objects_dir, "pack")
        old_packs = set(_packs(pack_dir))
        builder = pygit2.PackBuilder(open_repository(store.git_dir))
        for oid in reachable:
            builder.add(pygit2.Oid(hex=oid))
        builder.write(pack_dir)
        new_packs = set(_packs(pack_dir))
        for name in old_packs - new_packs:
            for suffix in (".pack", ".idx", ".rev"):
                _remove(os.path.join(pack_dir, name + suffix))
        removed = _remove_loose(objects_dir, reachable, time.time() - GRACE_SECONDS)
        return PackReport(len(reachable), removed, size_before, store.disk_usage())


def needs_packing(store: Store) -> bool:
    try:
        sample = len(os.listdir(os.path.join(store.git_dir, "objects", "17")))
    except FileNotFoundError:
        return False
    return sample * 256 > AUTO_PACK_LOOSE_OBJECTS


def pack_in_background(store: Store) -> None:
    """Starts ``rewind gc`` detached, so that the hook that noticed does not wait for it."""
    import subprocess
    import sys

    subprocess.Popen(
        [sys.executable, "-m", "rewind", "-C", os.fsdecode(store.root.path), "gc", "--quiet"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _packs(pack_dir: str) -> list[str]:
    return [name[:-4] for name in os.listdir(pack_dir) if name.endswith(".idx")]


def _remove_loose(objects_dir: str, packed: set[str], cutoff: float) -> int:
    removed = 0
    for prefix in os.listdir(objects_dir):
        folder = os.path.join(objects_dir, prefix)
        if len(prefix) != 2 or not os.path.isdir(folder):
            continue
        for rest in os.listdir(folder):
            path = os.path.join(folder, rest)
            if prefix + rest in packed or os.lstat(path).st_mtime < cutoff:
                _remove(path)
                removed += 1
        try:
            os.rmdir(folder)
        except OSError:
            pass
    return removed


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
