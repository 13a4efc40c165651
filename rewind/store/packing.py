"""Packing the store: every object the sessions still need goes into one delta-compressed pack.

Hooks keep running while it works: it holds only its own lock (one gc at a time: a second one
gives up at once), never the store lock. That is safe because objects never change, and an entry
only ever names objects that were reachable already or that were written (or, when they existed
already, freshened) since. Loose objects that were packed are removed; loose objects that no
session, label or open turn's journal reaches (superseded versions of a turn, a forgotten
session) are removed once they are older than :data:`GRACE_SECONDS`, because a hook may have
just written a blob that nothing names yet. Reachability is checked again after the pack is
written, and each old object's time once more as it is removed, so that an object a writer
reuses at that moment survives. Older packs are removed only after the new one is complete.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable

from rewind.errors import UserError
from rewind.store.objects import MODE_TREE, TEMP_PREFIX
from rewind.store.packed import open_repository
from rewind.store.repository import LABELS_REF_PREFIX, SESSIONS_REF_PREFIX, Store

GRACE_SECONDS = 2 * 60 * 60
# Like git's gc.auto: pack once about this many loose objects have piled up, judged (as git
# does) from one of the 256 fan-out directories so that the check costs a single listdir.
AUTO_PACK_LOOSE_OBJECTS = 6700
# An automatic gc starts at most this often, whatever the count says: garbage younger than the
# grace period stays loose after a gc, and must not set off another one at every turn.
AUTO_PACK_INTERVAL = 10 * 60
GC_LOCK = "gc.lock"
GC_STARTED = "gc.started"  # its time is when the last gc (or automatic start) began
INCOMING = ".incoming-"  # a pack being written, in a folder of its own under objects/pack
TRASH = ".gc-trash"  # a loose object being deleted, until its time is checked once more
OLD_TEMP_PREFIX = ".tmp-"  # what objects.TEMP_PREFIX was before it took git's name


# The objects that something other than a ref names, read when asked (rewind.history.upkeep).
NamedElsewhere = Callable[[], set[str]]


class GcBusy(UserError):
    """Another gc holds the store's gc lock."""


class PackReport:
    __slots__ = ("loose_removed", "packed", "size_after", "size_before")

    def __init__(self, packed: int, loose_removed: int, size_before: int, size_after: int) -> None:
        self.packed = packed
        self.loose_removed = loose_removed
        self.size_before = size_before
        self.size_after = size_after


def reachable_objects(
    store: Store, named_elsewhere: NamedElsewhere, seen: set[str] | None = None
) -> set[str]:
    """Every commit, tree and blob the sessions' refs and the labels' refs lead to, and those
    ``named_elsewhere`` gives (the open turns' journals). Given the set an earlier call
    returned, only what is new is walked."""
    seen = set() if seen is None else seen
    refs = store.ref_names(SESSIONS_REF_PREFIX) + store.all_ref_names(LABELS_REF_PREFIX)
    for ref in refs:
        commit = store.read_ref(ref)
        while commit and commit not in seen:
            seen.add(commit)
            tree, parent = store.reader.read_commit(commit)
            _add_tree(store, tree, seen)
            commit = parent
    seen.update(named_elsewhere())
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


def pack_store(store: Store, named_elsewhere: NamedElsewhere) -> PackReport:
    """Packs what the history needs and removes what it does not; ``named_elsewhere`` gives
    the objects that files other than refs name (they are read again after packing). One gc
    runs at a time: a second one raises :class:`GcBusy` at once instead of waiting."""
    fd = os.open(store.state_path(GC_LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise GcBusy(
                "another 'rewind gc' is packing this store right now; it does everything this "
                "one would, so there is nothing to do."
            ) from None
        _touch(store.state_path(GC_STARTED))
        return _pack_locked(store, named_elsewhere)
    finally:
        os.close(fd)


def _pack_locked(store: Store, named_elsewhere: NamedElsewhere) -> PackReport:
    objects_dir = os.path.join(store.git_dir, "objects")
    pack_dir = os.path.join(objects_dir, "pack")
    _clear_leftovers(objects_dir, pack_dir)
    size_before = store.disk_usage()
    reachable = reachable_objects(store, named_elsewhere)
    packed = set(reachable)
    kept_pack = _write_pack(store, pack_dir, reachable)
    for name in _packs(pack_dir):
        if name != kept_pack:
            for suffix in (".idx", ".pack", ".rev"):  # the index first: readers then skip it
                _remove(os.path.join(pack_dir, name + suffix))
    # Whatever was recorded while the pack was written is kept too (re-read, not assumed).
    reachable = reachable_objects(store, named_elsewhere, reachable)
    removed = _remove_loose(objects_dir, packed, reachable, time.time() - GRACE_SECONDS)
    return PackReport(len(packed), removed, size_before, store.disk_usage())


def _write_pack(store: Store, pack_dir: str, objects: set[str]) -> str:
    """Writes one pack of ``objects`` and moves it in beside the others; returns its name."""
    import shutil

    import pygit2

    incoming = os.path.join(pack_dir, f"{INCOMING}{os.getpid()}")
    os.makedirs(incoming, exist_ok=True)
    builder = pygit2.PackBuilder(open_repository(store.git_dir))
    for oid in objects:
        builder.add(pygit2.Oid(hex=oid))
    builder.write(incoming)
    written = _packs(incoming)
    for name in written:  # the index last: a pack is seen only once it is whole
        for suffix in (".pack", ".rev", ".idx"):
            source = os.path.join(incoming, name + suffix)
            if os.path.exists(source):
                os.replace(source, os.path.join(pack_dir, name + suffix))
    shutil.rmtree(incoming, ignore_errors=True)
    return written[0] if written else ""


def _clear_leftovers(objects_dir: str, pack_dir: str) -> None:
    """What a gc that was killed left behind: its incoming folder and temporary pack files
    (nothing else is ever named so), and loose objects it was about to delete, put back; and
    the temporary files of objects whose writer was killed before renaming them."""
    import shutil  # not at the top: this module is on the hook path, and shutil imports re

    for name in os.listdir(pack_dir):
        path = os.path.join(pack_dir, name)
        if name.startswith(INCOMING):
            shutil.rmtree(path, ignore_errors=True)
        elif name.startswith(("pack_git2_", "tmp_pack_")):
            _remove(path)
    cutoff = time.time() - GRACE_SECONDS
    for prefix in _fan_out(objects_dir):
        folder = os.path.join(objects_dir, prefix)
        for name in os.listdir(folder):
            if name.startswith((TEMP_PREFIX, OLD_TEMP_PREFIX)):
                # An object a killed writer never renamed into place (a live one renames its
                # file within microseconds, so only old ones are taken).
                if _is_old(os.path.join(folder, name), cutoff):
                    _remove(os.path.join(folder, name))
            elif name.endswith(TRASH):
                original = os.path.join(folder, name[: -len(TRASH)])
                if not os.path.exists(original):
                    os.replace(os.path.join(folder, name), original)
                else:
                    _remove(os.path.join(folder, name))


def needs_packing(store: Store) -> bool:
    try:
        sample = len(os.listdir(os.path.join(store.git_dir, "objects", "17")))
    except FileNotFoundError:
        return False
    if sample * 256 <= AUTO_PACK_LOOSE_OBJECTS:
        return False
    try:
        last = os.stat(store.state_path(GC_STARTED)).st_mtime
    except FileNotFoundError:
        return True
    return time.time() - last >= AUTO_PACK_INTERVAL


def pack_in_background(store: Store) -> None:
    """Starts ``rewind gc`` detached, so that the hook that noticed does not wait for it."""
    import subprocess
    import sys

    _touch(store.state_path(GC_STARTED))  # the next begins do not start one too
    subprocess.Popen(
        [sys.executable, "-m", "rewind", "-C", os.fsdecode(store.root.path), "gc", "--quiet"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _touch(path: str) -> None:
    with open(path, "a"):
        pass
    os.utime(path)


def _packs(pack_dir: str) -> list[str]:
    return sorted(name[:-4] for name in os.listdir(pack_dir) if name.endswith(".idx"))


def _fan_out(objects_dir: str) -> list[str]:
    return [
        name
        for name in os.listdir(objects_dir)
        if len(name) == 2 and os.path.isdir(os.path.join(objects_dir, name))
    ]


def _remove_loose(objects_dir: str, packed: set[str], keep: set[str], cutoff: float) -> int:
    """Removes loose objects that are in the pack, and those nothing needs that are older than
    ``cutoff``: each is moved aside and its time checked once more, so that one a writer
    freshened at that very moment (it records the same content again) is put back."""
    removed = 0
    for prefix in _fan_out(objects_dir):
        folder = os.path.join(objects_dir, prefix)
        for rest in os.listdir(folder):
            oid = prefix + rest
            path = os.path.join(folder, rest)
            if oid in packed:
                _remove(path)
                removed += 1
            elif oid not in keep and len(rest) == 38 and _is_old(path, cutoff):
                removed += _remove_if_still_old(path, cutoff)
        try:
            os.rmdir(folder)
        except OSError:
            pass
    return removed


def _is_old(path: str, cutoff: float) -> bool:
    try:
        return os.lstat(path).st_mtime < cutoff
    except FileNotFoundError:
        return False


def _remove_if_still_old(path: str, cutoff: float) -> int:
    trash = path + TRASH
    try:
        os.rename(path, trash)
    except FileNotFoundError:
        return 0
    if _is_old(trash, cutoff):
        _remove(trash)
        return 1
    os.replace(trash, path)  # freshened just now: in use again
    return 0


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
