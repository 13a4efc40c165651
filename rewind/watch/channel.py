"""How hooks speak to the project's watcher: one request, one answer, over a Unix socket.

The socket is in Linux's abstract namespace (no file: a store's path may be longer than a
socket's address can be), named after the store, so each project's watcher has its own. An
abstract name has no permissions, so each side checks the other's user id (``SO_PEERCRED``)
and talks only to a process of its own user. A request and its answer are one line of JSON
each, at most :data:`MESSAGE_LIMIT` bytes.

This module is on the hook path: it imports ``_socket`` (not ``socket``, which costs a hook
about 13 ms) and nothing else that is not already loaded.
"""

from __future__ import annotations

import _socket
import os
import sys
import time

from rewind.store.digest import sha1_hex
from rewind.store.fastjson import dumps, load_object

MESSAGE_LIMIT = 64 * 1024
_CREDENTIALS_SIZE = 12  # struct ucred: pid, uid, gid, each a 32-bit int


def address(git_dir: str) -> bytes:
    """The abstract socket name of the watcher of the store at ``git_dir``."""
    return b"\0rewind-watch-" + sha1_hex(os.fsencode(git_dir)).encode()[:24]


def supported() -> bool:
    """Abstract Unix sockets are Linux's."""
    return sys.platform.startswith("linux")


class NoWatcher(Exception):
    """No watcher answered (none runs, it is starting, or it did not answer in time)."""


def ask(git_dir: str, request: dict[str, object], timeout: float) -> dict[str, object]:
    """Sends ``request`` to the watcher and returns its answer; :class:`NoWatcher` when none
    answers within ``timeout`` seconds."""
    if not supported():
        raise NoWatcher("no watcher channel on this system")
    deadline = time.monotonic() + timeout
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.settimeout(timeout)
        try:
            connection.connect(address(git_dir))
        except OSError as error:
            raise NoWatcher(f"no watcher is listening ({error.strerror or error})") from None
        if peer_uid(connection) != os.getuid():
            raise NoWatcher("the socket is another user's")
        connection.sendall(dumps(request).encode() + b"\n")
        line = _read_line(connection, deadline)
    except (OSError, ValueError) as error:
        raise NoWatcher(f"the watcher did not answer ({error})") from None
    finally:
        connection.close()
    if line is None:
        raise NoWatcher("the watcher closed the connection without answering")
    return load_object(line.decode("utf-8", "replace"))


def tell(git_dir: str, request: dict[str, object]) -> None:
    """Sends ``request`` without waiting for the answer; :class:`NoWatcher` when none listens."""
    if not supported():
        raise NoWatcher("no watcher channel on this system")
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.settimeout(1.0)
        connection.connect(address(git_dir))
        if peer_uid(connection) != os.getuid():
            raise NoWatcher("the socket is another user's")
        connection.sendall(dumps(request).encode() + b"\n")
    except OSError as error:
        raise NoWatcher(f"no watcher is listening ({error.strerror or error})") from None
    finally:
        connection.close()


def peer_uid(connection: _socket.socket) -> int:
    """The user id of the process at the other end."""
    data = connection.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, _CREDENTIALS_SIZE)
    return int.from_bytes(data[4:8], sys.byteorder)


def _read_line(connection: _socket.socket, deadline: float) -> bytes | None:
    """One line (without its newline), or None at the end of the stream."""
    received = b""
    while b"\n" not in received:
        left = deadline - time.monotonic()
        if left <= 0:
            raise OSError("timed out")
        connection.settimeout(left)
        chunk = connection.recv(65536)
        if not chunk:
            return None
        received += chunk
        if len(received) > MESSAGE_LIMIT:
            raise ValueError("the answer is too long")
    return received.split(b"\n", 1)[0]
