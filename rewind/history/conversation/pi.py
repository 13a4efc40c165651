"""Pi: a copy of the session up to the cut, as one branch of its tree, given to ``--fork``.

Pi's session file (``~/.pi/agent/sessions/<folder of the cwd>/<time>_<id>.jsonl``) is
append-only JSON lines: a header (``"type": "session"``), then entries, each with its ``id`` and
``parentId``, forming a tree (``/tree`` and ``/fork`` add branches to the same file); the entry
Pi continues from when it loads a file is its last. At the prompt event the prompt is not in
the file yet: its size then is the cut, and the extension sends ``leaf_id``, the entry the
prompt follows. The copy is the header, then the entries from the root to that leaf, in order:
the conversation as the model saw it before the turn, and nothing of the other branches.
``pi --fork COPY`` writes it as a new session of the project (its header naming the copy as its
parent); the copy and the original are only read.
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

CLIENT = CLIENTS["pi"]


def check(request: Request) -> bytes:
    """The copy (nothing when the turn began the conversation), once the recording client's
    version and the session file show it can be made; writes nothing."""
    CLIENT.check(request.cut.version, f"the client that recorded turn {request.turn}", request.turn)
    if not request.cut.offset or not request.cut.turn:
        return b""
    return branch_to(whole_lines(transcript_prefix(request)), request.cut.turn, request.turn)


def branch(request: Request) -> Branch:
    return from_copy(request, check(request), "--fork", "session file")


def branch_to(data: bytes, leaf: str, turn: int) -> bytes:
    """The header line of the session file ``data``, then the lines of the entries from the
    root to ``leaf``, root first."""
    lines = data.splitlines(keepends=True)
    header, parents, at = b"", dict[str, str](), dict[str, bytes]()
    for line in lines:
        record = _record(line, turn)
        kind, key, parent = record.get("type"), record.get("id"), record.get("parentId")
        if kind == "session" and not header:
            header = line
        elif isinstance(key, str) and key:
            at[key] = line
            parents[key] = parent if isinstance(parent, str) else ""
    if not header:
        raise UserError(_not_pi(turn))
    path: list[bytes] = []
    key = leaf
    while key:
        if key not in at or len(path) > len(at):  # a missing entry, or a loop
            raise UserError(
                f"Pi's session file of turn {turn} has no whole branch to the entry the turn "
                f"followed ({leaf}); {files_only(turn)}"
            )
        path.append(at[key])
        key = parents[key]
    return header + b"".join(reversed(path))


def _record(line: bytes, turn: int) -> dict[str, object]:
    try:
        return load_object(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise UserError(_not_pi(turn)) from None


def _not_pi(turn: int) -> str:
    return (
        f"the session file of turn {turn} is not in Pi's format as rewind knows it (JSON lines "
        f"that begin with a session header); {files_only(turn)}"
    )
