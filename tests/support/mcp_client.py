"""A minimal MCP client over stdio for the tests and the benchmarks: ``rewind mcp`` as a real
process, JSON-RPC requests written one per line, answers read by id."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PROTOCOL = "2025-06-18"


class McpClient:
    def __init__(
        self, project: Path, env: dict[str, str] | None = None, rewind: str | None = None
    ) -> None:
        """Starts ``rewind mcp`` in ``project`` (``rewind``: the console script to run, else
        this interpreter's ``-m rewind``) and initializes the session."""
        program = [rewind] if rewind is not None else [sys.executable, "-m", "rewind"]
        self.process = subprocess.Popen(
            [*program, "mcp"],
            cwd=project,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self.next_id = 0
        self.buffer = b""
        self.initialized = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "tests", "version": "1"},
            },
        )
        self.notify("notifications/initialized")

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)
        return self._answer(self.next_id)

    def tools(self) -> dict[str, dict[str, Any]]:
        listed = self.request("tools/list")["result"]["tools"]
        return {tool["name"]: tool for tool in listed}

    def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        """The tool's result: ``content``, ``structuredContent``, ``isError``."""
        answer = self.request("tools/call", {"name": name, "arguments": arguments})
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    def raw(self, line: bytes, timeout: float = 60.0) -> dict[str, Any]:
        """Sends ``line`` as it is (a newline added) and returns the next message the server
        writes, whatever its id."""
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()
        return self._answer(None, timeout)

    def close(self) -> str:
        """Ends the server (its standard input closed) and returns what it wrote on standard
        error."""
        assert self.process.stdin is not None
        if not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        errors = b""
        if self.process.stderr is not None and not self.process.stderr.closed:
            errors = self.process.stderr.read()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return errors.decode("utf-8", "replace")

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def _answer(self, wanted: int | None, timeout: float = 60.0) -> dict[str, Any]:
        """The message answering request ``wanted`` (None: the next message)."""
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                message = json.loads(line)
                if wanted is None or message.get("id") == wanted:
                    found: dict[str, Any] = message
                    return found
            left = deadline - time.monotonic()
            assert left > 0, f"no answer to request {wanted}"
            ready, _, _ = select.select([self.process.stdout], [], [], left)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    errors = self.process.stderr.read() if self.process.stderr else b""
                    raise AssertionError(f"rewind mcp ended: {errors.decode(errors='replace')}")
                self.buffer += chunk


def text_of(result: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result["content"])
