"""A scripted stand-in for a model API on 127.0.0.1: the base every wire protocol builds on.

It runs in a thread of the test process, on a free port, records every request it receives
(so a test can check what the client sent) and answers from a :class:`Script`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.clients.scenario import Script


@dataclass(frozen=True)
class Request:
    """One request the client sent: its method, path (with the query) and JSON body."""

    method: str
    path: str
    body: Any


@dataclass
class Answer:
    """What the server sends back: a status, a content type and the body's chunks (several
    chunks for server-sent events, written and flushed one by one)."""

    status: int
    content_type: str
    chunks: list[bytes]


def json_answer(data: Any, status: int = 200) -> Answer:
    return Answer(status, "application/json", [json.dumps(data).encode()])


def sse(events: list[tuple[str | None, Any]]) -> Answer:
    """Server-sent events: each ``(event name or None, data)``."""
    chunks = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        chunks.append(f"{head}data: {json.dumps(data)}\n\n".encode())
    return Answer(200, "text/event-stream", chunks)


class ModelServer:
    """The server; a protocol subclasses it and implements :meth:`answer`."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[Request] = []
        self.problems: list[str] = []  # requests the script could not answer
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=10)

    def answer(self, request: Request) -> Answer:
        raise NotImplementedError

    def received(self, path_part: str) -> Iterator[Request]:
        with self._lock:
            seen = list(self.requests)
        return (request for request in seen if path_part in request.path)

    def _handle(self, request: Request) -> Answer:
        with self._lock:
            self.requests.append(request)
        try:
            return self.answer(request)
        except Exception as error:  # shown by the test, not lost in a thread
            with self._lock:
                self.problems.append(f"{request.method} {request.path}: {error!r}")
            return json_answer({"error": {"message": repr(error)}}, status=500)


def _handler(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self._serve(None)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode(errors="replace")
            self._serve(body)

        def _serve(self, body: Any) -> None:
            answer = server._handle(Request(self.command, self.path, body))
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            if answer.content_type == "text/event-stream":
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in answer.chunks:
                    self.wfile.write(chunk)
                    self.wfile.flush()
                self.close_connection = True
                return
            data = b"".join(answer.chunks)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the requests are recorded, not printed

    return Handler
