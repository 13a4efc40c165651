"""Claude Code: a copy of the transcript up to the cut, resumed as a new session.

The transcript (``~/.claude/projects/<project>/<session>.jsonl``) is append-only JSON lines;
at the prompt event the new prompt is not in it yet, though the client may already have
queued it (``queue-operation`` records), which the copy leaves out. ``claude --resume COPY
--fork-session`` reads the copy and writes the branch as a new session of the project: with
``--fork-session`` the client never writes the file it resumed (without it, it would append
to ``<folder of the file>/<session>.jsonl``: rewind always passes it).
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
from rewind.history.conversation.clients import CLIENTS, files_only
from rewind.store.fastjson import load_object

CLIENT = CLIENTS["claude-code"]
# How many of the copy's last lines are read for the client's version.
_VERSION_LINES = 64


def check(request: Request) -> list[bytes]:
    """The lines of the copy (none when the turn began the conversation), once the transcript
    shows it still holds them, in the format of a version rewind knows; writes nothing."""
    if not request.cut.offset:
        return []
    lines = whole_lines(transcript_prefix(request)).splitlines(keepends=True)
    lines = _without_queued_prompt(lines, request.turn)
    CLIENT.check(
        _version(lines, request.turn), f"the transcript of turn {request.turn}", request.turn
    )
    return lines


def branch(request: Request) -> Branch:
    found = from_copy(request, b"".join(check(request)), "--resume", "transcript")
    if found.head:  # never without it: the client would append to a file named after the session
        found.head.append("--fork-session")
    return found


def _records(lines: list[bytes], turn: int) -> list[dict[str, object]]:
    records = []
    for line in lines:
        try:
            records.append(load_object(line.decode("utf-8")))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise UserError(
                f"the transcript of turn {turn} holds a line that is not a JSON object, which is "
                f"not Claude Code's format as rewind knows it; {files_only(turn)}"
            ) from None
    return records


def _without_queued_prompt(lines: list[bytes], turn: int) -> list[bytes]:
    """The lines without the queue records of the prompt the turn began with (written just
    before the prompt event, for the prompt that follows the cut)."""
    end = len(lines)
    while end and b'"queue-operation"' in lines[end - 1]:
        [record] = _records(lines[end - 1 : end], turn)
        if record.get("type") != "queue-operation":
            break
        end -= 1
    _records(lines[max(0, end - 1) : end], turn)  # the last line kept is a whole record
    return lines[:end]


def _version(lines: list[bytes], turn: int) -> str:
    """The client version the newest records of the transcript name ('' when none does)."""
    for record in reversed(_records(lines[-_VERSION_LINES:], turn)):
        version = record.get("version")
        if isinstance(version, str) and version:
            return version
    return ""
