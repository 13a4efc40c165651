"""Gemini CLI: a copy of the session file up to the cut, given to ``--session-file``.

The session file (``~/.gemini/tmp/<project>/chats/session-*.jsonl``) is append-only JSON
lines: a header, messages, ``$set`` and ``$rewindTo`` records. At the prompt event the new
prompt is not in it yet, so its size then is the cut. ``gemini --session-file COPY`` reads the
copy and writes the branch as a new session of the project it runs in (the client also leaves a
small second session file of its own); the copy and the original are only read.
"""

from __future__ import annotations

from rewind.errors import UserError
from rewind.history.conversation.branch import (
    Branch,
    Request,
    from_copy,
    transcript_prefix,
    whole_lines,
)
from rewind.history.conversation.clients import CLIENTS
from rewind.store.fastjson import load_object

CLIENT = CLIENTS["gemini"]


def check(request: Request) -> bytes:
    """The copy (nothing when the turn began the conversation), once the recording client's
    version and the session file show it can be made; writes nothing."""
    CLIENT.check(request.cut.version, f"the client that recorded turn {request.turn}", request.turn)
    if not request.cut.offset:
        return b""
    data = whole_lines(transcript_prefix(request))
    _check_format(data, request.turn)
    return data


def branch(request: Request) -> Branch:
    return from_copy(request, check(request), "--session-file", "session file")


def _check_format(data: bytes, turn: int) -> None:
    """The copy starts with a session header and ends with a whole record."""
    lines = data.splitlines()
    try:
        first = load_object(lines[0].decode("utf-8")) if lines else {}
        load_object(lines[-1].decode("utf-8")) if lines else {}
    except (UnicodeDecodeError, ValueError, RecursionError):
        first = {}
    if not isinstance(first.get("sessionId"), str):
        raise UserError(
            f"the session file of turn {turn} is not in Gemini CLI's format as rewind knows it "
            f"(a JSON lines file that begins with a session header); restore the files alone "
            f"with 'rewind restore {turn}'."
        )
