"""``rewind doctor``'s live check of the registered MCP server: start it as the agent would,
in the project, and ask it for its tools (``initialize``, then ``tools/list``, over stdio), with
no MCP library: three lines of JSON-RPC, read back with a deadline."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field

DEADLINE = 20.0  # seconds for the whole exchange; a server starts in about one


@dataclass
class ServerAnswer:
    """The tools the server listed and the seconds it took, or why it did not answer."""

    tools: list[str] = field(default_factory=list)
    seconds: float = 0.0
    failure: str = ""


def _requests() -> bytes:
    messages: list[dict[str, object]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "rewind-doctor", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


def list_tools(command: list[str], project: str, deadline: float = DEADLINE) -> ServerAnswer:
    """Starts ``command`` in ``project`` and asks for its tools, for at most ``deadline``
    seconds."""
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            command,
            cwd=project,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ),
            start_new_session=True,  # its children too are stopped at the end
        )
    except OSError as error:
        return ServerAnswer(failure=f"could not start: {error.strerror or error}")
    assert process.stdin and process.stdout and process.stderr
    try:
        process.stdin.write(_requests())
        process.stdin.flush()
        answer = _read_tools(process, started, deadline)
    except OSError as error:
        answer = ServerAnswer(failure=f"the server stopped reading ({error.strerror or error})")
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            process.kill()
        process.wait()
        stderr = _drain(process.stderr, 2.0).decode("utf-8", "replace").strip()
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                stream.close()
            except OSError:
                pass
    if answer.failure and stderr:
        answer.failure += f": {stderr.splitlines()[-1]}"
    answer.seconds = time.monotonic() - started
    return answer


def _read_tools(process: subprocess.Popen[bytes], started: float, deadline: float) -> ServerAnswer:
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    buffered = b""
    try:
        while True:
            left = deadline - (time.monotonic() - started)
            if left <= 0 or not selector.select(left):
                return ServerAnswer(failure=f"no answer to tools/list within {deadline:.0f} s")
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                return ServerAnswer(failure=f"the server exited ({process.wait()})")
            buffered += chunk
            while b"\n" in buffered:
                line, buffered = buffered.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except ValueError:
                    return ServerAnswer(failure="the server wrote something not JSON-RPC")
                if not isinstance(message, dict) or message.get("id") != 2:
                    continue
                result = message.get("result")
                if not isinstance(result, dict):
                    return ServerAnswer(failure=f"tools/list failed: {message.get('error')}")
                tools = result.get("tools")
                if not isinstance(tools, list):
                    return ServerAnswer(failure="tools/list answered no list of tools")
                names = [t.get("name") for t in tools if isinstance(t, dict)]
                return ServerAnswer(tools=[str(name) for name in names])
    finally:
        selector.close()


def _drain(stream: object, seconds: float) -> bytes:
    """What is left to read of a pipe, for at most ``seconds`` (a process the server started
    in a session of its own may still hold it open)."""
    fileno = getattr(stream, "fileno", None)
    if fileno is None:
        return b""
    selector = selectors.DefaultSelector()
    selector.register(fileno(), selectors.EVENT_READ)
    read = b""
    deadline = time.monotonic() + seconds
    try:
        while len(read) < 65536:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                break
            chunk = os.read(fileno(), 65536)
            if not chunk:
                break
            read += chunk
    finally:
        selector.close()
    return read
