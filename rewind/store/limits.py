"""What this system can write: how long a name and a path may be, what a symlink may point at,
and making folders at any depth.

A record says a path and, for a symlink, its target; it may come from another machine (a
fetched session) or from a version of rewind that did not check. Whatever writes one back asks
here first, so that a path or target no write could ever succeed with is refused in one
sentence before anything is written, rather than failing halfway through a restore.

A folder's depth has no limit of its own: each folder costs at least two bytes of the path, so
the path's length bounds it, and nothing here (or in what writes a path) recurses per folder.
"""

from __future__ import annotations

import os

NAME_MAX = 255  # bytes in one file name, on every file system rewind runs on
# A file is written through a temporary sibling (rewind.store.atomic.temporary_sibling), whose
# name is up to this many bytes longer than the file's own.
TEMPORARY_NAME_ROOM = 32

_path_max = 0


def path_max() -> int:
    """The longest path this system takes, in bytes, its terminating NUL included (4096 on
    Linux, 1024 on macOS)."""
    global _path_max
    if not _path_max:
        try:
            _path_max = os.pathconf("/", "PC_PATH_MAX")
        except (OSError, ValueError, AttributeError):
            _path_max = 1024  # the smallest of the systems rewind runs on
        if _path_max <= 0:
            _path_max = 1024
    return _path_max


def why_unwritable(directory: bytes, path: bytes) -> str:
    """Why ``path`` (relative, or absolute) could never be written below ``directory`` on this
    system ("" when it can): a NUL byte, a name longer than NAME_MAX, or a whole path (with
    room for the temporary name it is written through) longer than the system takes."""
    if b"\0" in path:
        return "it holds a NUL byte"
    if any(len(name) > NAME_MAX for name in path.split(b"/")):
        return f"a name in it is longer than {NAME_MAX} bytes"
    length = len(os.path.join(directory, path))
    longest = path_max() - 1 - TEMPORARY_NAME_ROOM
    if length > longest:
        return f"its full path is {length} bytes long, more than the {longest} it may have here"
    return ""


def why_bad_link_target(target: bytes) -> str:
    """Why no symlink can point at ``target`` on this system ("" when one can)."""
    if b"\0" in target:
        return "its symlink target holds a NUL byte"
    return why_bad_link_size(len(target))


def why_bad_link_size(size: int) -> str:
    """Why no symlink can have a target of ``size`` bytes on this system ("" when one can)."""
    if size <= 0:
        return "its symlink target is empty"
    if size >= path_max():
        return (
            f"its symlink target is {size} bytes long, more than the {path_max() - 1} this "
            "system takes"
        )
    return ""


def make_folders(path: bytes) -> None:
    """``os.makedirs(path, exist_ok=True)`` without its recursion: one ``mkdir`` per missing
    folder, at any depth."""
    missing = []
    while path and not os.path.isdir(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder)
        except FileExistsError:
            if not os.path.isdir(folder):
                raise
