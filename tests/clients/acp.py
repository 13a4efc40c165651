"""The Agent Client Protocol (ACP) over standard input and output, from the editor's side: an
agent's process that takes JSON-RPC 2.0 messages, one per line, and sends its own back the same
way (its answers, ``session/update`` notifications, and requests such as
``session/request_permission``, which the editor answers).

The process runs in a process group of its own. Hooks the agent starts without waiting for
them are its children until they end: :meth:`AcpAgent.settle` waits for them, as a person
reading the answer before typing the next prompt gives them time to.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

# The options an ACP agent offers in a permission request, as Cline names them.
ALLOW, REJECT = "allow_once", "reject_once"


class AcpError(AssertionError):
    """The agent answered a request with an error, or not in time."""


class AcpAgent:
    """One agent process. ``refuse`` is the person's answer to a permission request: given the
    tool call the agent asks to run (``toolCall``, with its ``rawInput``), whether to refuse it."""

    def __init__(
        self,
        argv: list[str],
        cwd: Path,
        env: dict[str, str],
        errors: Path,
        refuse: Callable[[dict[str, Any]], bool] = lambda call: False,
    ) -> None:
        self.refuse = refuse
        self.updates: list[dict[str, Any]] = []  # the session/update notifications' params
        self.permissions: list[tuple[dict[str, Any], str]] = []  # each tool call, the answer
        self._errors = errors
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._next_id = 0
        with open(errors, "ab") as stderr:
            self.process = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                start_new_session=True,
            )
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def request(self, method: str, params: dict[str, Any], timeout: float = 120) -> Any:
        """Sends a request and returns its result, answering the agent's own requests and
        keeping its notifications meanwhile."""
        self._next_id += 1
        mine = self._next_id
        self._send({"jsonrpc": "2.0", "id": mine, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self._inbox.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AcpError(f"no answer to {method} in {timeout} s{self._stderr()}") from None
            if message is None:
                raise AcpError(f"the agent exited during {method}{self._stderr()}")
            if "method" not in message:
                if message.get("id") != mine:
                    continue
                if "error" in message:
                    raise AcpError(f"{method}: {message['error']}{self._stderr()}")
                return message.get("result")
            if "id" in message:
                self._answer(message)
            elif message["method"] == "session/update":
                self.updates.append(message.get("params") or {})

    def settle(self, timeout: float = 60) -> None:
        """Waits until the agent's process has no children left (the hooks it did not wait
        for have ended)."""
        deadline = time.monotonic() + timeout
        while _children(self.process.pid):
            if time.monotonic() > deadline:
                raise AcpError(f"the agent's children still run after {timeout} s")
            time.sleep(0.02)

    def close(self, timeout: float = 30) -> None:
        """Ends the process as an editor does, by closing its input, once its hooks have
        ended; a process that does not exit in time, or leaves a process of its group behind,
        is killed and fails the test."""
        try:
            self.settle(timeout)
        finally:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(self.process.pid)
                self.process.wait()
                raise AcpError(f"the agent did not exit in {timeout} s{self._stderr()}") from None
        if _kill_group(self.process.pid):
            raise AcpError("the agent left processes of its group behind; they were killed")

    def _answer(self, message: dict[str, Any]) -> None:
        if message["method"] != "session/request_permission":
            error = {"code": -32601, "message": f"{message['method']} is not offered"}
            self._send({"jsonrpc": "2.0", "id": message["id"], "error": error})
            return
        call = (message.get("params") or {}).get("toolCall") or {}
        choice = REJECT if self.refuse(call) else ALLOW
        self.permissions.append((call, choice))
        outcome = {"outcome": {"outcome": "selected", "optionId": choice}}
        self._send({"jsonrpc": "2.0", "id": message["id"], "result": outcome})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def _read(self, stdout: IO[str]) -> None:
        for line in stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue  # not protocol: the agent's own output
            if isinstance(message, dict):
                self._inbox.put(message)
        self._inbox.put(None)

    def _stderr(self) -> str:
        text = self._errors.read_text(errors="replace") if self._errors.exists() else ""
        return f"; its standard error ends: {text[-2000:]}" if text else ""


def _children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(word) for word in found.stdout.split()]


def _kill_group(group: int) -> bool:
    """Kills what is left of the process group; whether anything was."""
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True
