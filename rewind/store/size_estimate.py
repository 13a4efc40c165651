"""The store's size on disk without walking it, for ``rewind status``: measuring it means a
``stat`` of every file (about a second at 10,000 turns), which ``rewind stats`` pays instead.

The estimate is the size the last gc measured (rewind.store.gc_record), plus the loose objects
written since, estimated from a sample of the 256 ``objects/XX`` folders: folders are listed
until :data:`SAMPLE_OBJECTS` objects have been seen (or all of them are), and their new objects'
size is scaled to the whole. Object names are hashes, so every folder holds about as many. With
no gc yet, it is the packs' size (a store packed by an older rewind, or by git) plus every loose
object, estimated the same way. Files other than objects (refs, caches, logs) are counted only
as the last gc found them.
"""

from __future__ import annotations

import os

from rewind.store.gc_record import GcRecord

SAMPLE_OBJECTS = 256
_FOLDERS = [f"{number:02x}" for number in range(256)]


def estimated_size(git_dir: str, last_gc: GcRecord | None) -> int:
    """Bytes the store at ``git_dir`` takes on disk, about (see the module's doc)."""
    objects = os.path.join(git_dir, "objects")
    if last_gc is not None:
        return last_gc.size_after + loose_bytes(objects, newer_than=last_gc.finished)
    return _pack_bytes(os.path.join(objects, "pack")) + loose_bytes(objects, newer_than=0.0)


def loose_bytes(objects_dir: str, newer_than: float) -> int:
    """The size of the loose objects changed after ``newer_than`` (Unix time), estimated from
    a sample of the fan-out folders."""
    seen = listed = total = 0
    for folder in _FOLDERS:
        try:
            entries = list(os.scandir(os.path.join(objects_dir, folder)))
        except OSError:  # no such folder: no object starts so
            entries = []
        listed += 1
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            seen += 1
            if info.st_mtime > newer_than:
                total += info.st_blocks * 512
        if seen >= SAMPLE_OBJECTS:
            break
    return total * len(_FOLDERS) // listed


def _pack_bytes(pack_dir: str) -> int:
    total = 0
    try:
        entries = list(os.scandir(pack_dir))
    except OSError:
        return 0
    for entry in entries:
        try:
            total += entry.stat(follow_symlinks=False).st_blocks * 512
        except OSError:
            pass
    return total
