"""Replacing a file so that readers see the old version or the new one, never half of either.

Everything is written to a temporary name in the same directory and then renamed over the
target; a crash or a full disk leaves the target as it was.
"""

from __future__ import annotations

import os

_counter = 0


def temporary_sibling(path: bytes) -> bytes:
    global _counter
    _counter += 1
    directory, name = os.path.split(path)
    suffix = b".rewind-%d-%d.tmp" % (os.getpid(), _counter)
    return os.path.join(directory, b"." + name[: 250 - len(suffix)] + suffix)


def remove_temporary_siblings(paths: list[bytes], pid: int) -> int:
    """Removes the temporary files process ``pid`` (dead) left beside ``paths`` while replacing
    them; returns how many. Only names :func:`temporary_sibling` makes are touched."""
    wanted: dict[bytes, set[bytes]] = {}
    for path in paths:
        directory, name = os.path.split(path)
        wanted.setdefault(directory, set()).add(name)
    marker = b".rewind-%d-" % pid
    removed = 0
    for directory, names in wanted.items():
        try:
            entries = os.listdir(directory or b".")
        except OSError:
            continue
        for entry in entries:
            if _is_temporary_of(entry, names, marker):
                _remove_quietly(os.path.join(directory, entry))
                removed += 1
    return removed


def _is_temporary_of(entry: bytes, names: set[bytes], marker: bytes) -> bool:
    if not (entry.startswith(b".") and entry.endswith(b".tmp") and marker in entry):
        return False
    stem = entry[1 : entry.rindex(marker)]  # the name, cut short when it is very long
    return bool(stem) and any(name.startswith(stem) for name in names)


def replace_file(path: bytes, data: bytes, mode: int, durable: bool = False) -> None:
    temp = temporary_sibling(path)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, mode)
        if durable:
            os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(temp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        _remove_quietly(temp)
        raise


def replace_link(path: bytes, target: bytes) -> None:
    temp = temporary_sibling(path)
    os.symlink(target, temp)
    try:
        os.replace(temp, path)
    except BaseException:
        _remove_quietly(temp)
        raise


def write_text_atomically(path: str, text: str) -> None:
    """For rewind's own small files (refs, caches, journals)."""
    replace_file(os.fsencode(path), text.encode(), 0o644)


def _remove_quietly(path: bytes) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
