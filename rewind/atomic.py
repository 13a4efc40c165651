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
