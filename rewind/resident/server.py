"""The resident recorder: ``python -m rewind.resident.server FD`` serves, on the listening
socket FD that the hook starting it bound (rewind.resident.reach), the events of an agent.

- ``POST /rewind/hook/AGENT``: an event the agent posts itself (Claude Code's HTTP hooks).
- ``POST /rewind/forward/AGENT``: an event of a command hook, whose process hands it over
  with its environment and working directory (rewind.resident.forward), which this process
  takes on while it handles it; it must carry this resident's secret.

Each is handled exactly as ``rewind hook AGENT`` would handle it in a process of its own
(rewind.hooks.answer_event: the same adapters, store locks, logs and stats, its line marked
``via=http`` or ``via=forwarded``), one request at a time, and answered once recorded, so the
agent goes on only when the event is in the store. A request is refused (403) without the
rewind-home headers every hook of rewind's sends (a browser cannot add them to a cross-site
request without a preflight, which is never answered), and answered without being recorded when
they name another rewind home than this process's. Each connection carries one request
(HTTP/1.0, rewind.resident.wire): a client holding a connection open never stalls the others
longer than :data:`READ_TIMEOUT`.

It ends by itself after :data:`IDLE_EXIT` seconds without a request, on SIGTERM (at once when
waiting, else after the request in hand), or when its file (rewind.resident.reach.info_path)
names another process. Nothing is kept from one request to the next: its memory does not grow
with use.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import sys
import time
from hmac import compare_digest

from rewind.hooks import answer_event
from rewind.resident import reach, wire
from rewind.resident.address import AGENTS, HOME_HEADERS, PATH_PREFIX, home_for
from rewind.resident.forward import FORWARD_PREFIX, SECRET_HEADER, environment_of
from rewind.store.home import rewind_home
from rewind.store.input_limits import PAYLOAD_BYTES

IDLE_EXIT = 1800.0
POLL = 5.0
READ_TIMEOUT = 30.0


class Resident:
    def __init__(self, listener: socket.socket) -> None:
        self.listener = listener
        self.home = rewind_home()
        self.port = int(listener.getsockname()[1])
        self.secret = os.urandom(16).hex()
        self.last_request = time.monotonic()
        self.stopping = False
        self.busy = False

    def should_end(self) -> bool:
        if self.stopping or time.monotonic() - self.last_request >= IDLE_EXIT:
            return True
        return reach.running_pid(self.port) not in (os.getpid(), None)

    def serve_one(self) -> None:
        ready, _, _ = select.select([self.listener], [], [], POLL)
        if not ready:
            return
        try:
            connection, _ = self.listener.accept()
        except OSError:
            return
        self.busy = True
        try:
            connection.settimeout(READ_TIMEOUT)
            status, body = self.answer(connection)
            connection.sendall(wire.response(status, body))
        except (OSError, wire.BadRequest):
            pass  # a probe that only connected, or a client gone: nothing to answer
        finally:
            connection.close()
            self.busy = False

    def answer(self, connection: socket.socket) -> tuple[int, bytes]:
        started = time.perf_counter()
        try:
            request = wire.read_request(connection, PAYLOAD_BYTES + 64 * 1024)
        except wire.BadRequest as problem:
            if problem.status == 400 and "closed before" in str(problem):
                raise
            return problem.status, b'{"error": "%s"}' % str(problem).encode()
        self.last_request = time.monotonic()
        forward = request.path.startswith(FORWARD_PREFIX)
        prefix = FORWARD_PREFIX if forward else PATH_PREFIX
        agent = request.path[len(prefix) :] if request.path.startswith(prefix) else ""
        if request.method != "POST" or agent not in AGENTS:
            return 404, b'{"error": "post hook events to /rewind/hook/AGENT"}'
        values = {}
        for header, variable in HOME_HEADERS.items():
            value = request.headers.get(header.lower())
            if value is None:
                return 403, b'{"error": "not a hook of rewind"}'
            values[variable] = value
        if home_for(values) != self.home:
            return 200, b"{}"  # another rewind home's event: not this process's to record
        if not forward:
            payload = request.body.decode("utf-8", "surrogateescape")
            return 200, (answer_event(agent, payload, started, "http") or "{}").encode()
        if not compare_digest(request.headers.get(SECRET_HEADER.lower(), ""), self.secret):
            return 403, b'{"error": "not this resident\'s secret"}'
        return self.forwarded(agent, request.body, started)

    def forwarded(self, agent: str, body: bytes, started: float) -> tuple[int, bytes]:
        """A command hook's event, handled with its environment and working directory."""
        environment_line, cwd_line, payload = [*body.split(b"\n", 2), b"", b""][:3]
        try:
            environment = environment_of(environment_line)
            directory = bytes.fromhex(cwd_line.decode())
            here = os.getcwd()
            os.chdir(directory)
        except (ValueError, OSError):
            return 409, b'{"error": "handle it yourself"}'
        saved = dict(os.environ)
        try:
            os.environ.clear()
            os.environ.update(environment)
            output = answer_event(
                agent, payload.decode("utf-8", "surrogateescape"), started, "forwarded"
            )
        finally:
            os.environ.clear()
            os.environ.update(saved)
            os.chdir(here)
        return 200, (output or "").encode("utf-8", "surrogateescape")


class _Stopped(Exception):
    """SIGTERM while no request was in hand."""


def serve(descriptor: int) -> None:
    listener = socket.socket(fileno=descriptor)
    resident = Resident(listener)
    reach.IN_RESIDENT = True
    # Each hook process of Claude Code has its own project variable; this process serves every
    # session, which the events' cwd tells apart.
    os.environ.pop("CLAUDE_PROJECT_DIR", None)

    def stop(_signal: int, _frame: object) -> None:
        resident.stopping = True
        if not resident.busy:  # waiting for a request: end now; else once it is answered
            raise _Stopped

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    reach.write_info(resident.port, os.getpid(), resident.secret, ready=True)
    try:
        while not resident.should_end():
            resident.serve_one()
    except _Stopped:
        pass
    finally:
        listener.close()
        if reach.running_pid(resident.port) == os.getpid():
            try:
                os.unlink(reach.info_path(resident.port))
            except OSError:
                pass


if __name__ == "__main__":
    serve(int(sys.argv[1]))
