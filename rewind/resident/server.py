"""The resident recorder: ``python -m rewind.resident.server FD`` serves, on the listening
socket FD that the hook starting it bound (rewind.resident.reach), the events an agent posts.

Each ``POST /rewind/hook/AGENT`` is handled exactly as ``rewind hook AGENT`` would handle it in
a process of its own (rewind.hooks.answer_event: the same adapters, store locks, logs and
stats, its line marked ``via=http``), one request at a time, and answered once recorded, so the
agent goes on only when the event is in the store. A request is refused (403) without the
rewind-home headers every hook of rewind's sends (a browser cannot add them to a cross-site
request without a preflight, which is never answered), and answered without being recorded when
they name another rewind home than this process's. Each connection carries one request
(HTTP/1.0): a client holding a connection open never stalls the others.

It ends by itself after :data:`IDLE_EXIT` seconds without a request, on SIGTERM (after the
request in hand), or when its file (rewind.resident.reach.info_path) names another process.
Nothing is kept from one request to the next: its memory does not grow with use.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

from rewind.hooks import answer_event
from rewind.resident.address import AGENTS, HOME_HEADERS, PATH_PREFIX, home_for
from rewind.resident.reach import info_path, running_pid, write_info
from rewind.store.home import rewind_home
from rewind.store.input_limits import PAYLOAD_BYTES

IDLE_EXIT = 1800.0
POLL = 5.0
READ_TIMEOUT = 30.0


class _Handler(BaseHTTPRequestHandler):
    server: ResidentServer
    protocol_version = "HTTP/1.0"

    def do_POST(self) -> None:
        started = time.perf_counter()
        self.server.last_request = time.monotonic()
        agent = self.path[len(PATH_PREFIX) :] if self.path.startswith(PATH_PREFIX) else ""
        if agent not in AGENTS:
            self._answer(404, '{"error": "unknown path"}')
            return
        values = {}
        for header, variable in HOME_HEADERS.items():
            value = self.headers.get(header)
            if value is None:
                self._answer(403, '{"error": "not a hook of rewind"}')
                return
            values[variable] = value
        length = self.headers.get("Content-Length", "")
        if not length.isdigit() or int(length) > PAYLOAD_BYTES:
            self._answer(413, '{"error": "no length, or too large"}')
            return
        body = self.rfile.read(int(length))
        if home_for(values) != self.server.home:
            self._answer(200, "{}")  # another rewind home's event: not this process's to record
            return
        output = answer_event(agent, body.decode("utf-8", "surrogateescape"), started, "http")
        self._answer(200, output or "{}")

    def do_GET(self) -> None:
        self._answer(404, '{"error": "post hook events to /rewind/hook/AGENT"}')

    def _answer(self, status: int, body: str) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass  # each event's problems go to its store's log, as a hook's do


class ResidentServer(HTTPServer):
    def __init__(self, listener: socket.socket) -> None:
        super().__init__(listener.getsockname(), _Handler, bind_and_activate=False)
        self.socket.close()
        self.socket = listener
        self.home = rewind_home()
        self.port = int(listener.getsockname()[1])
        self.last_request = time.monotonic()
        self.stopping = False
        self.busy = False
        self.timeout = POLL

    def finish_request(self, request: object, client_address: object) -> None:
        request.settimeout(READ_TIMEOUT)  # type: ignore[attr-defined]
        self.busy = True
        try:
            super().finish_request(request, client_address)  # type: ignore[arg-type]
        finally:
            self.busy = False

    def should_end(self) -> bool:
        if self.stopping or time.monotonic() - self.last_request >= IDLE_EXIT:
            return True
        return running_pid(self.port) not in (os.getpid(), None)


class _Stopped(Exception):
    """SIGTERM while no request was in hand."""


def serve(descriptor: int) -> None:
    listener = socket.socket(fileno=descriptor)
    server = ResidentServer(listener)
    # Each hook process of Claude Code has its own project variable; this process serves every
    # session, which the events' cwd tells apart.
    os.environ.pop("CLAUDE_PROJECT_DIR", None)

    def stop(_signal: int, _frame: object) -> None:
        server.stopping = True
        if not server.busy:  # waiting for a request: end now; else once it is answered
            raise _Stopped


    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    write_info(server.port, os.getpid(), ready=True)
    try:
        while not server.should_end():
            server.handle_request()
    except _Stopped:
        pass
    finally:
        server.server_close()
        if running_pid(server.port) == os.getpid():
            try:
                os.unlink(info_path(server.port))
            except OSError:
                pass


if __name__ == "__main__":
    serve(int(sys.argv[1]))
