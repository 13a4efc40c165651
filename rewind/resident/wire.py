"""The little HTTP the resident speaks: one request per connection (HTTP/1.0), a POST with a
``Content-Length`` body, answered with a JSON body and the connection closed. Written on
``_socket`` alone (http.server and http.client would cost the resident's start 50 ms and a
forwarding hook its whole budget); on the hook path. Every read runs against a deadline for the
whole request, not per chunk, so a peer that trickles bytes holds nothing for long.
"""

from __future__ import annotations

import _socket
import time

HEAD_BYTES = 64 * 1024
CHUNK = 64 * 1024
REASONS = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found"}
REASONS.update({409: "Conflict", 413: "Too Large"})
# What the resident sends a forwarding hook the moment it takes the event on (before the
# answer): from then on the event is the resident's to record (rewind.resident.forward).
TAKEN = b"TAKEN\r\n"


class Request:
    """A request as read: its method, path, headers (names in lower case) and body."""

    __slots__ = ("body", "headers", "method", "path")

    def __init__(self, method: str, path: str, headers: dict[str, str], body: bytes) -> None:
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body


class BadRequest(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


def receive(connection: _socket.socket, size: int, deadline: float) -> bytes:
    """Up to ``size`` bytes; TimeoutError past ``deadline`` (time.monotonic)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the peer took too long")
    connection.settimeout(left)
    return connection.recv(size)


def read_head(connection: _socket.socket, deadline: float) -> tuple[bytes, bytes]:
    """The head (up to the blank line) and what was read of the body after it; BadRequest
    when the peer closes first or the head runs past HEAD_BYTES."""
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > HEAD_BYTES:
            raise BadRequest(400, "the request's head is too long")
        chunk = receive(connection, CHUNK, deadline)
        if not chunk:
            raise BadRequest(400, "the connection closed before a request")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def parse_head(head: bytes) -> tuple[str, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise BadRequest(400, "not an HTTP request")
    headers = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip()
    return parts[0], parts[1], headers


def read_body(connection: _socket.socket, rest: bytes, length: int, deadline: float) -> bytes:
    chunks, have = [rest], len(rest)
    while have < length:
        chunk = receive(connection, min(CHUNK, length - have), deadline)
        if not chunk:
            raise BadRequest(400, "the connection closed inside the body")
        chunks.append(chunk)
        have += len(chunk)
    return b"".join(chunks)[:length]


def read_request(connection: _socket.socket, limit: int, deadline: float) -> Request:
    head, rest = read_head(connection, deadline)
    method, path, headers = parse_head(head)
    length = headers.get("content-length", "")
    if not (length.isascii() and length.isdigit()):
        raise BadRequest(400, "a request without Content-Length")
    if int(length) > limit:
        raise BadRequest(413, "the request is too large")
    return Request(method, path, headers, read_body(connection, rest, int(length), deadline))


def response(status: int, body: bytes) -> bytes:
    head = (
        f"HTTP/1.0 {status} {REASONS.get(status, 'Error')}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


def request(host: str, path: str, headers: dict[str, str], body: bytes) -> bytes:
    lines = [f"POST {path} HTTP/1.0", f"Host: {host}", "Content-Type: application/json"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def read_response(connection: _socket.socket, deadline: float) -> tuple[int, bytes]:
    """The status and body of the answer (read to the connection's end)."""
    head, rest = read_head(connection, deadline)
    status_line = head.split(b"\r\n", 1)[0].split(b" ")
    if len(status_line) < 2 or not status_line[1].isdigit():
        raise BadRequest(400, "not an HTTP response")
    chunks = [rest]
    while True:
        chunk = receive(connection, CHUNK, deadline)
        if not chunk:
            break
        chunks.append(chunk)
    return int(status_line[1]), b"".join(chunks)
