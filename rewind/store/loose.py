"""Loose objects as gc sees them: listing them, deleting them safely, and what a killed gc or
writer left among them.

An object is deleted by moving it aside (to ``tmp_obj_gc-NAME`` in its folder: git's fsck takes
``tmp_obj_*`` files for the temporary files they are) and checking its time once more: a writer
that records the same content again freshens the file (rewind.store.objects), so one freshened
at that very moment is put back; a writer that finds it gone writes it again.
"""

from __future__ import annotations

import os

from rewind.store.objects import TEMP_PREFIX

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

TRASH = TEMP_PREFIX + "gc-"  # a loose object being deleted, until its time is checked once more
OLD_TRASH = ".gc-trash"  # what TRASH was, as a suffix (git's fsck reported those)
OLD_TEMP_PREFIX = ".tmp-"  # what objects.TEMP_PREFIX was before it took git's name


def fan_out(objects_dir: str) -> list[str]:
    """The ``objects/XX`` folders."""
    try:
        names = os.listdir(objects_dir)
    except FileNotFoundError:
        return []
    return [
        name for name in names if len(name) == 2 and os.path.isdir(os.path.join(objects_dir, name))
    ]


def loose_objects(objects_dir: str, prefix: str) -> Iterator[tuple[str, str]]:
    """``(id, path)`` of every loose object in ``objects/<prefix>`` (nothing else in it)."""
    folder = os.path.join(objects_dir, prefix)
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return
    for rest in names:
        if len(rest) == 38 and not rest.startswith(TEMP_PREFIX):
            yield prefix + rest, os.path.join(folder, rest)


def clear_leftovers(objects_dir: str, cutoff: float) -> None:
    """Puts back the loose objects a killed gc was about to delete (the next gc decides about
    them again), and removes the temporary files of writers killed before renaming them into
    place, once older than ``cutoff`` (a live writer renames its file within microseconds)."""
    for prefix in fan_out(objects_dir):
        folder = os.path.join(objects_dir, prefix)
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            if name.startswith(TRASH):
                _put_back(path, os.path.join(folder, name[len(TRASH) :]))
            elif name.endswith(OLD_TRASH):
                _put_back(path, path[: -len(OLD_TRASH)])
            elif name.startswith((TEMP_PREFIX, OLD_TEMP_PREFIX)) and is_older(path, cutoff):
                remove(path)


def _put_back(trash: str, original: str) -> None:
    if not os.path.exists(original):
        os.replace(trash, original)
    else:
        remove(trash)


def is_older(path: str, cutoff: float) -> bool:
    try:
        return os.lstat(path).st_mtime < cutoff
    except FileNotFoundError:
        return False


def remove_if_still_older(path: str, cutoff: float) -> int:
    """Deletes the loose object at ``path`` unless a writer freshened it since ``cutoff``;
    returns 1 if it did."""
    folder, name = os.path.split(path)
    trash = os.path.join(folder, TRASH + name)
    try:
        os.rename(path, trash)
    except FileNotFoundError:
        return 0
    if is_older(trash, cutoff):
        remove(trash)
        return 1
    os.replace(trash, path)  # freshened just now: in use again
    return 0


def remove_empty_folder(objects_dir: str, prefix: str) -> None:
    """Removes ``objects/<prefix>`` if it is empty (a writer recreates it; see
    rewind.store.objects, which retries a folder removed under it)."""
    try:
        os.rmdir(os.path.join(objects_dir, prefix))
    except OSError:
        pass


def remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
