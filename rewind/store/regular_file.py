"""Opening a file the agent names (a transcript, a session file) for reading, only when it is a
regular file: told before it is opened (opening a fifo would wait for a writer, or let one
through; opening a device acts on it) and after (a fifo swapped in meanwhile: the open is
non-blocking, so it does not wait). On the hook path: light imports only."""

from __future__ import annotations

import os
import stat


def open_regular(path: str) -> tuple[int, int]:
    """The descriptor of the regular file at ``path``, open for reading, and its size; a
    ValueError for anything else, an OSError when it cannot be opened."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError(f"{path} is not a regular file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        os.close(fd)
        raise ValueError(f"{path} is not a regular file")
    return fd, status.st_size
