"""Replacing a file so that readers see the old version or the new one, never half of either.

Everything is written to a temporary name in the same directory and then renamed over the
target; a crash or a full disk leaves the target as it was.
"""

from __future__ import annotations

import os

from rewind.store.processes import is_alive

_MARK = b".rewind-"
_counter = 0


def temporary_sibling(path: bytes) -> bytes:
    global _counter
    _counter += 1
    directory, name = os.path.split(path)
    suffix = _MARK + b"%d-%d.tmp" % (os.getpid(), _counter)
    return os.path.join(directory, b"." + name[: 250 - len(suffix)] + suffix)


def remove_temporary_siblings(paths: list[bytes]) -> int:
    """Removes the temporary files that processes now gone left beside ``paths`` while
    replacing them (a restore killed, then the command finishing it killed in turn); returns
    how many. Only names :func:`temporary_sibling` makes are touched, and only those of a
    process that no longer exists."""
    wanted: dict[bytes, set[bytes]] = {}
    for path in paths:
        directory, name = os.path.split(path)
        wanted.setdefault(directory, set()).add(name)
    removed = 0
    for directory, names in wanted.items():
        try:
            entries = os.listdir(directory or b".")
        except OSError:
            continue
        for entry in entries:
            pid = _writer_of(entry, names)
            if pid is not None and not is_alive(pid):
                _remove_quietly(os.path.join(directory, entry))
                removed += 1
    return removed


def _writer_of(entry: bytes, names: set[bytes]) -> int | None:
    """The process that wrote ``entry`` when it is a temporary sibling of one of ``names``."""
    if not (entry.startswith(b".") and entry.endswith(b".tmp") and _MARK in entry):
        return None
    at = entry.rindex(_MARK)
    stem = entry[1:at]  # the name, cut short when it is very long
    pid, _, count = entry[at + len(_MARK) : -len(b".tmp")].partition(b"-")
    if not (stem and pid.isdigit() and count.isdigit()):
        return None
    return int(pid) if any(name.startswith(stem) for name in names) else None


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


def remove_older_than(directory: str, cutoff: float) -> None:
    """Removes the entries of ``directory`` last changed before ``cutoff`` (Unix time): files
    left for a reader that never came. A directory that cannot be listed, or an entry that
    cannot be removed, is passed over."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        path = os.path.join(directory, name)
        try:
            if os.lstat(path).st_mtime < cutoff:
                os.unlink(path)
        except OSError:
            pass


def _remove_quietly(path: bytes) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
