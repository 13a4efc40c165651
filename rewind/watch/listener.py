"""The watcher's side of rewind.watch.channel: a thread that accepts the hooks' requests and
hands each to the watcher's loop, with a way to answer it.

The thread only reads: a request is put on the loop's queue as a :class:`Request`, and the
loop answers it (at once, or once a barrier has passed). A connection from another user, or
one that sends no line within :data:`READ_TIMEOUT`, is closed unanswered.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable

from rewind.watch.channel import MESSAGE_LIMIT, address, peer_uid

READ_TIMEOUT = 2.0


class Request:
    """One hook's request; :meth:`answer` sends the reply (once) and closes the connection."""

    def __init__(self, message: dict[str, object], connection: socket.socket) -> None:
        self.message = message
        self.connection = connection
        self.answered = False
        self.received = time.monotonic()  # on the watcher's clock, which stamps the events

    def text(self, key: str) -> str:
        value = self.message.get(key)
        return value if isinstance(value, str) else ""

    def answer(self, reply: dict[str, object]) -> None:
        if self.answered:
            return
        self.answered = True
        try:
            self.connection.sendall(json.dumps(reply).encode() + b"\n")
        except OSError:
            pass  # the hook gave up waiting: its own log says so
        finally:
            self.connection.close()


class Listener:
    """Accepts requests on the store's channel and passes them to ``deliver``."""

    def __init__(self, git_dir: str, deliver: Callable[[Request], None]) -> None:
        self.deliver = deliver
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(address(git_dir))
        self.server.listen(64)
        self.thread = threading.Thread(target=self._serve, name="rewind-watch-channel", daemon=True)
        self.closed = False

    def start(self) -> None:
        self.thread.start()

    def close(self) -> None:
        self.closed = True
        try:
            self.server.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.server.close()

    def _serve(self) -> None:
        while not self.closed:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return  # closed
            try:
                request = self._read(connection)
            except (OSError, ValueError):
                connection.close()
                continue
            if request is None:
                connection.close()
            else:
                self.deliver(request)

    def _read(self, connection: socket.socket) -> Request | None:
        if peer_uid(connection) != os.getuid():
            return None
        connection.settimeout(READ_TIMEOUT)
        received = b""
        while b"\n" not in received:
            chunk = connection.recv(65536)
            if not chunk:
                return None
            received += chunk
            if len(received) > MESSAGE_LIMIT:
                return None
        message = json.loads(received.split(b"\n", 1)[0])
        if not isinstance(message, dict):
            return None
        connection.settimeout(None)
        return Request(message, connection)
