"""A command hook's event handed to the resident recorder instead of handled in the hook's
own process: the hook then costs an interpreter's start and the resident's warm work, not the
imports and set-up of recording in a cold process (rewind.commands.hook). On the hook path:
``_socket`` and ``os`` only.

The event goes only to rewind's resident of this rewind home (its file names a process that
is alive and holds the secret the request must carry: the file and its folder are the user's
alone), with the hook's whole environment and working directory, which the resident takes on
while it handles the event, so it records exactly what this process would. ``None`` (handle it
here) when no resident is there, it refused, or the connection ended before an answer, so a
resident killed mid-event costs nothing (recording an event twice records it once); an answer
that does not come within :data:`ANSWER_TIMEOUT` is left to the resident, which has the event.
"""

from __future__ import annotations

import _socket
import os

from rewind.resident import reach, wire
from rewind.resident.address import HOME_HEADERS, HOST

FORWARD_PREFIX = "/rewind/forward/"
SECRET_HEADER = "X-Rewind-Secret"
CONNECT_TIMEOUT = 0.2
# Longer than any wait of a prompt's or a tool call's hook (rewind.watch.capture), shorter than
# the timeouts Claude Code is given for them (rewind.installers.claude_code).
ANSWER_TIMEOUT = 8.0


def forwarded(agent: str, payload: str) -> str | None:
    """The agent's answer to the event as the resident handled it ("" for none), or None when
    this process must handle it."""
    project = os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    port = reach.port_in(reach.claude_code_settings(project), agent)
    if port is None:
        return None
    found = reach.running(port)
    if found is None:
        return None
    _pid, secret = found
    headers = {header: os.environ.get(variable, "") for header, variable in HOME_HEADERS.items()}
    headers[SECRET_HEADER] = secret
    body = b"\n".join((environment_block(), os.fsencode(os.getcwd()).hex().encode()))
    body += b"\n" + payload.encode("utf-8", "surrogateescape")
    connection = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    try:
        connection.settimeout(CONNECT_TIMEOUT)
        connection.connect((HOST, port))
        connection.settimeout(ANSWER_TIMEOUT)
        connection.sendall(wire.request(FORWARD_PREFIX + agent, headers, body))
        status, answer = wire.read_response(connection)
    except TimeoutError:
        return ""  # sent: the resident records it, late
    except (OSError, wire.BadRequest):
        return None  # nobody there, or gone before answering: this process records it
    finally:
        connection.close()
    if status != 200:
        return None
    return answer.decode("utf-8", "surrogateescape")


def environment_block() -> bytes:
    """This process's environment, as one line the resident reads back
    (:func:`environment_of`)."""
    return b"\0".join(key + b"=" + value for key, value in os.environb.items()).hex().encode()


def environment_of(line: bytes) -> dict[str, str]:
    environment = {}
    for item in bytes.fromhex(line.decode()).split(b"\0"):
        key, equals, value = item.partition(b"=")
        if equals and key:
            environment[os.fsdecode(key)] = os.fsdecode(value)
    return environment
