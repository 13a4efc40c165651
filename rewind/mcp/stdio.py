"""JSON-RPC over the process's standard streams, one message per line, for ``rewind mcp``.

The SDK's own stdio transport drops what it cannot read and stops writing at the first answer
it cannot encode, so a client that sent a malformed line, or a string holding a lone surrogate
(``"x\\ud800"``, which rewind's answer then echoes), waited for an answer that never came. Here
every line gets an answer: one that is not JSON, too long or nested too deep is a parse error
(-32700), JSON that is no JSON-RPC message an invalid request (-32600, with its id when it has
one), and an answer is always written, as UTF-8 where it can be and as ASCII JSON escapes
where it holds what UTF-8 cannot (a lone surrogate the client sent).

While serving, file descriptor 1 points at standard error and 0 at the null device, so that
nothing a tool or a program it starts prints can corrupt the wire.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from typing import IO, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

# The longest line a client may send. Tool arguments are short (a turn, a few paths, a plan's
# id); past this a line is refused whole, without being kept in memory.
LINE_LIMIT = 1024 * 1024
# The deepest JSON a message may nest. A JSON-RPC request nests a handful of levels.
DEPTH_LIMIT = 64
_COMPACT = (",", ":")
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


class Refused(Exception):
    """A line that is no message this server can take: its JSON-RPC error."""

    def __init__(self, code: int, message: str, request_id: object = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


def read_message(line: bytes) -> types.JSONRPCMessage:
    """The JSON-RPC message one line holds; :class:`Refused` for anything else."""
    if len(line) > LINE_LIMIT:
        raise Refused(PARSE_ERROR, f"Parse error: a message is at most {LINE_LIMIT} bytes")
    try:
        text = line.decode("utf-8")
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise Refused(PARSE_ERROR, "Parse error: the line is not JSON text in UTF-8") from None
    request_id = value.get("id") if isinstance(value, dict) else None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    if _depth(value) > DEPTH_LIMIT:
        raise Refused(PARSE_ERROR, f"Parse error: JSON nested deeper than {DEPTH_LIMIT} levels")
    if isinstance(value, dict) and "id" in value and request_id is None:
        # A request whose id is no string or integer (1.5, true, null, {}): the SDK's reader
        # takes it for a notification, which nobody answers.
        raise Refused(INVALID_REQUEST, "Invalid Request: an id is a string or an integer")
    try:
        return types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValueError:
        raise Refused(
            INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message", request_id
        ) from None


def _depth(value: object) -> int:
    """How deep ``value`` nests (a scalar: 0), without recursion."""
    deepest = 0
    waiting: list[tuple[object, int]] = [(value, 0)]
    while waiting:
        item, depth = waiting.pop()
        children: Any = None
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        if children is not None:
            deepest = max(deepest, depth + 1)
            waiting.extend((child, depth + 1) for child in children)
    return deepest


def encode(message: types.JSONRPCMessage) -> bytes:
    """One line of JSON for ``message``: UTF-8, or ASCII escapes where it holds a lone
    surrogate (valid JSON either way, which the client reads back as it sent it)."""
    value = message.model_dump(mode="json", by_alias=True, exclude_unset=True)
    try:
        return json.dumps(value, ensure_ascii=False, separators=_COMPACT).encode() + b"\n"
    except UnicodeEncodeError:
        return json.dumps(value, separators=_COMPACT).encode("ascii") + b"\n"


def error_line(refused: Refused) -> bytes:
    error = {"code": refused.code, "message": refused.message}
    answer = {"jsonrpc": "2.0", "id": refused.request_id, "error": error}
    return json.dumps(answer, separators=_COMPACT).encode() + b"\n"


@asynccontextmanager
async def stdio_streams() -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
    ]
]:
    """The server's read and write streams over standard input and output."""
    wire_in, wire_out = _claim_standard_streams()
    reader = os.fdopen(wire_in, "rb", buffering=1 << 16)
    writer = os.fdopen(wire_out, "wb")
    write_lock = anyio.Lock()
    incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](0)

    def write_and_flush(data: bytes) -> None:
        writer.write(data)
        writer.flush()

    async def write(data: bytes) -> None:
        async with write_lock:
            await anyio.to_thread.run_sync(write_and_flush, data)

    lines_send, lines = anyio.create_memory_object_stream[bytes | None](0)
    token = anyio.lowlevel.current_token()

    def pump_lines() -> None:
        """Standard input, line by line, into ``lines`` (None at its end). A daemon thread:
        an interrupted server ends without waiting for a client that sends nothing."""
        while True:
            line = _read_line(reader)
            try:
                anyio.from_thread.run(lines_send.send, line, token=token)
            except Exception:  # the server has ended
                return
            if line is None:
                return

    async def read_lines() -> None:
        async with incoming_send, lines:
            threading.Thread(target=pump_lines, name="rewind-mcp-stdin", daemon=True).start()
            async for line in lines:
                if line is None:
                    return
                if not line.strip():
                    continue
                try:
                    message = read_message(line)
                except Refused as refused:
                    await write(error_line(refused))
                    continue
                await incoming_send.send(SessionMessage(message))

    async def write_messages() -> None:
        async with outgoing_receive:
            async for session_message in outgoing_receive:
                await write(encode(session_message.message))

    async def until_closed(task: Callable[[], Awaitable[None]]) -> None:
        """Runs ``task`` until it ends, or until the server or the client has gone (the server
        interrupted, a client that closed its end): neither is an error of the transport."""
        try:
            await task()
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, BrokenPipeError):
            pass

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(until_closed, read_lines)
            tasks.start_soon(until_closed, write_messages)
            yield incoming, outgoing
            tasks.cancel_scope.cancel()
    finally:
        # The reader is left open: a thread may still be blocked reading it (closing it would
        # wait for that thread, so an interrupted server would never end).
        with suppress(OSError):
            writer.close()


def _read_line(reader: IO[bytes]) -> bytes | None:
    """The next line (None at the end of input); a line longer than :data:`LINE_LIMIT` comes
    back as its first ``LINE_LIMIT + 1`` bytes, the rest read and dropped."""
    line = reader.readline(LINE_LIMIT + 1)
    if not line:
        return None
    if len(line) > LINE_LIMIT and not line.endswith(b"\n"):
        while True:
            rest = reader.readline(LINE_LIMIT)
            if not rest or rest.endswith(b"\n"):
                break
    return line


def _claim_standard_streams() -> tuple[int, int]:
    """Copies of descriptors 0 and 1 for the wire, with 0 then pointed at the null device and
    1 at standard error."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out
