"""A client's JSON-RPC server as a child process for the length of a few calls: Codex's app
server (one JSON object per line) and Copilot CLI's runtime (``Content-Length`` framing).

Every answer is awaited within one deadline; the server's own requests are declined; the
process is ended when the calls are done.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from typing import IO

from rewind.errors import UserError
from rewind.store.fastjson import loads
from rewind.store.input_limits import RPC_MESSAGE_BYTES

LINES = "lines"
CONTENT_LENGTH = "content-length"
# The longest answer read is rewind.store.input_limits.RPC_MESSAGE_BYTES (a fork's is a few
# hundred bytes): a longer one ends the talk.


class RpcProcess:
    """``argv`` started in ``directory``; ``name`` is how errors call it; ``framing`` is
    :data:`LINES` or :data:`CONTENT_LENGTH`; ``timeout``, seconds for all the calls."""

    def __init__(
        self, argv: list[str], directory: str, name: str, framing: str, timeout: float
    ) -> None:
        self.name = name
        self.framing = framing
        self.timeout = timeout
        try:
            self.process = subprocess.Popen(
                argv,
                cwd=directory or None,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as error:
            raise UserError(
                f"{name} could not start ({error.strerror}); check the client's installation."
            ) from None
        self.answers: queue.Queue[dict[str, object] | None] = queue.Queue()
        self.next_id = 0
        self.deadline = time.monotonic() + timeout
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def __enter__(self) -> RpcProcess:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def notify(self, method: str) -> None:
        self._send({"method": method})

    def call(self, method: str, params: dict[str, object]) -> dict[str, object]:
        """The result of ``method``; a refusal naming the server's error, or its silence."""
        self.next_id += 1
        wanted = self.next_id
        self._send({"id": wanted, "method": method, "params": params})
        while True:
            try:
                message = self.answers.get(timeout=max(0.0, self.deadline - time.monotonic()))
            except queue.Empty:
                raise UserError(
                    f"{self.name} did not answer {method} within {self.timeout:.0f} s."
                ) from None
            if message is None:
                raise UserError(
                    f"{self.name} ended before it answered {method}; check that the client "
                    "starts on its own, then try again."
                )
            if "method" in message and "id" in message:  # a request of the server's: declined
                self._send({"id": message["id"], "error": {"code": -32601, "message": "no"}})
            elif message.get("id") == wanted:
                error = message.get("error")
                if isinstance(error, dict):
                    said = " ".join(str(error.get("message", error)).split())[:300]
                    raise UserError(f"{self.name} refused {method}: {said}.")
                result = message.get("result")
                return result if isinstance(result, dict) else {}

    def close(self) -> None:
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def _send(self, message: dict[str, object]) -> None:
        assert self.process.stdin is not None
        if self.framing == CONTENT_LENGTH:
            body = json.dumps({"jsonrpc": "2.0", **message}).encode()
            data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        else:
            data = json.dumps(message).encode() + b"\n"
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except OSError:
            raise UserError(f"{self.name} ended before rewind could ask it.") from None

    def _read(self, stream: IO[bytes]) -> None:
        while True:
            body = self._next_body(stream)
            if body is None:
                self.answers.put(None)
                return
            try:
                message = loads(body.decode("utf-8"))
            except ValueError:  # not UTF-8 or JSON, or nested too deep
                continue
            if isinstance(message, dict):
                self.answers.put(message)

    def _next_body(self, stream: IO[bytes]) -> bytes | None:
        if self.framing != CONTENT_LENGTH:
            line = stream.readline(RPC_MESSAGE_BYTES + 1)
            return line if line and len(line) <= RPC_MESSAGE_BYTES else None
        length = None
        while True:
            line = stream.readline(RPC_MESSAGE_BYTES + 1)
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                if length is not None:
                    return stream.read(length) if length <= RPC_MESSAGE_BYTES else None
                continue
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length" and value.strip().isdigit():
                length = int(value)
