"""A command hook's event handed to the resident recorder instead of handled in the hook's
own process: the hook then costs an interpreter's start and the resident's warm work, not the
imports and set-up of recording in a cold process (rewind.commands.hook). On the hook path:
``_socket``, ``os`` and ``time`` only.

The event goes only to rewind's resident of this rewind home (its file, which only this user
can read, names a live ``rewind.resident.server`` process and the secret the request must
carry), with the hook's whole environment and working directory, which the resident takes on
while it handles the event, so it records exactly what this process would. The exchange:

1. the request, with a deadline (:data:`TAKE_TIMEOUT` from now);
2. ``TAKEN`` from the resident the moment it takes the event on, before that deadline (a
   resident that gets to it later refuses it): without it, or when the connection fails, this
   process handles the event (None), before the tool runs, so a busy, stalled or killed
   resident costs no record;
3. the answer once recorded, waited for up to :data:`ANSWER_TIMEOUT`; a resident killed in
   between also leaves the event to this process (recording an event twice records it once).
"""

from __future__ import annotations

import _socket
import os
import time

from rewind.resident import wire
from rewind.resident.address import HOME_HEADERS, HOST

FORWARD_PREFIX = "/rewind/forward/"
SECRET_HEADER = "X-Rewind-Secret"
DEADLINE_HEADER = "X-Rewind-Deadline"
CONNECT_TIMEOUT = 0.2
TAKE_TIMEOUT = 2.0
# Once taken, longer than any wait of a prompt's or a tool call's event (rewind.watch.capture's
# barriers), and within the timeouts Claude Code gives those hooks (10 and 30 s).
ANSWER_TIMEOUT = 7.0


def forwarded(agent: str, payload: str, port: int, secret: str) -> str | None:
    """The agent's answer to the event as the resident on ``port`` (whose file holds
    ``secret``) handled it ("" for none), or None when this process must handle it."""
    headers = {header: os.environ.get(variable, "") for header, variable in HOME_HEADERS.items()}
    headers[SECRET_HEADER] = secret
    headers[DEADLINE_HEADER] = f"{time.time() + TAKE_TIMEOUT:.3f}"
    body = b"\n".join((environment_block(), os.fsencode(os.getcwd()).hex().encode()))
    body += b"\n" + payload.encode("utf-8", "surrogateescape")
    connection = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    try:
        connection.settimeout(CONNECT_TIMEOUT)
        connection.connect((HOST, port))
        connection.settimeout(TAKE_TIMEOUT)
        connection.sendall(wire.request(f"{HOST}:{port}", FORWARD_PREFIX + agent, headers, body))
        if not _taken(connection, time.monotonic() + TAKE_TIMEOUT):
            return None
        try:
            status, answer = wire.read_response(connection, time.monotonic() + ANSWER_TIMEOUT)
        except TimeoutError:
            return ""  # taken: the resident records it
    except (OSError, wire.BadRequest):
        return None  # nobody took it, or the resident ended before answering: handled here
    finally:
        connection.close()
    if status != 200:
        return None
    return answer.decode("utf-8", "surrogateescape")


def _taken(connection: _socket.socket, deadline: float) -> bool:
    data = b""
    while len(data) < len(wire.TAKEN):
        chunk = wire.receive(connection, len(wire.TAKEN) - len(data), deadline)
        if not chunk:
            return False
        data += chunk
    return data == wire.TAKEN


def environment_block() -> bytes:
    """This process's environment, as one line the resident reads back
    (:func:`environment_of`), with ``REWIND_HOOK_PARENT``: this process's parent, the agent's
    client, whose version a prompt's cut point reads (rewind.hooks.conversation_cuts)."""
    items = [key + b"=" + value for key, value in os.environb.items()]
    items.append(b"REWIND_HOOK_PARENT=%d" % os.getppid())
    return b"\0".join(items).hex().encode()


def environment_of(line: bytes) -> dict[str, str]:
    environment = {}
    for item in bytes.fromhex(line.decode()).split(b"\0"):
        key, equals, value = item.partition(b"=")
        if equals and key:
            environment[os.fsdecode(key)] = os.fsdecode(value)
    return environment
