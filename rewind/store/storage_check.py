"""Whether hooks can write a project's store: what ``rewind status`` and ``rewind doctor`` check,
since a hook that cannot write records nothing and tells its agent nothing.

The check writes 4 KiB to a new file in the store's directories (or, before the store exists,
in the nearest existing directory above it: ``$REWIND_HOME`` or its parent) and removes it
again, and asks the file system how much space is free. That catches a ``$REWIND_HOME`` that is
a regular file (or lies under one), a read-only file system, a directory this user may not
write, and a full disk or quota, for the user who runs the check (hooks run as that user too).
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass

from rewind.store.failure_log import nearest_existing, storage_advice

PROBE_BYTES = 4096
LOW_SPACE = 64 * 1024 * 1024  # bytes free under which a warning is given


@dataclass(frozen=True)
class StorageCheck:
    """``checked`` is the directory written to; ``problem`` says what is wrong and what to do
    ("" when it could be written); ``free`` is the bytes available there (None: unknown)."""

    checked: str
    problem: str = ""
    free: int | None = None

    @property
    def low_on_space(self) -> bool:
        return self.free is not None and self.free < LOW_SPACE


def check_store_directory(store_dir: str) -> StorageCheck:
    """Whether the store at ``store_dir`` (existing or not yet) can be written."""
    result = StorageCheck(store_dir)
    for target in (os.path.join(store_dir, "rewind"), os.path.join(store_dir, "objects")):
        result = check_directory(target)
        if result.problem:
            return result
    return result


def check_directory(target: str) -> StorageCheck:
    """Writes to ``target``, or to the nearest directory above it when it does not exist."""
    checked = nearest_existing(target)
    if not os.path.isdir(checked):
        return StorageCheck(checked, storage_advice(errno.ENOTDIR, checked))
    free = free_bytes(checked)
    try:
        _write_and_remove(checked)
    except OSError as error:
        return StorageCheck(checked, storage_advice(error.errno or 0, checked), free)
    if free == 0:
        return StorageCheck(checked, storage_advice(errno.ENOSPC, checked), free)
    return StorageCheck(checked, "", free)


def free_bytes(directory: str) -> int | None:
    try:
        info = os.statvfs(directory)
    except OSError:
        return None
    return info.f_bavail * info.f_frsize


def _write_and_remove(directory: str) -> None:
    path = os.path.join(directory, f".rewind-write-check-{os.getpid()}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, 0o600)
    try:
        view = memoryview(bytes(PROBE_BYTES))
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
        try:
            os.unlink(path)
        except OSError:
            pass


def human_size(size: float) -> str:
    """A size in bytes as people read it: ``512 B``, ``1.5 KiB``, ... up to GiB."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"
