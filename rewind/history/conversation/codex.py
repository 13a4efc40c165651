"""Codex: the client's own fork, by turn, through its app server; then ``codex resume``.

``codex app-server`` (JSON-RPC, one object per line) forks a thread before a turn with
``thread/fork {threadId, beforeTurnId}`` (an experimental field, so the client declares
``experimentalApi``); the hook's ``turn_id`` is that turn. The fork makes no model call, writes
a new rollout for the new thread and leaves the original rollout as it was (the client updates
its own SQLite index of threads).
"""

from __future__ import annotations

import os

from rewind.errors import UserError
from rewind.history.conversation.branch import (
    Branch,
    Request,
    began_the_conversation,
    read_transcript,
)
from rewind.history.conversation.clients import CLIENTS, files_only
from rewind.history.conversation.rpc import LINES, RpcProcess
from rewind.history.kept_conversation import chain
from rewind.store.fastjson import load_object

CLIENT = CLIENTS["codex"]
FORK_TIMEOUT = 60.0  # seconds for the app server to start and fork


def check(request: Request) -> list[str]:
    """The rollout's turn ids, once the recording client's version and the rollout show the
    thread can be forked before the turn; asks the client nothing."""
    CLIENT.check(request.cut.version, f"the client that recorded turn {request.turn}", request.turn)
    return _turns(request)


def branch(request: Request) -> Branch:
    cut = request.cut
    found = Branch(CLIENT.agent, request.program)
    turns = check(request)
    if turns and turns[0] == cut.turn:
        found.notes.append(began_the_conversation(request))
        found.head, found.tail = (["exec"], [request.prompt]) if request.prompt else ([], [])
        return found
    thread = fork(request.program, cut.session, cut.turn, os.fsdecode(request.store.root.path))
    found.session = thread
    found.head = ["exec", "resume"] if request.prompt else ["resume"]
    found.tail = [thread, request.prompt] if request.prompt else [thread]
    found.notes.append(
        f"Codex forked its thread before turn {request.turn} as {thread}; the original rollout "
        "is left as it is."
    )
    return found


def _turns(request: Request) -> list[str]:
    """The turn ids the rollout starts, in order; a refusal when the rollout or the turn is
    not there."""
    cut = request.cut
    way_out = files_only(request.turn)
    try:
        data = read_transcript(cut.transcript)
        lines = [line for line in data.splitlines() if b'"task_started"' in line]
    except FileNotFoundError:
        kept = ""
        if request.session and chain(request.store, request.session):
            kept = (
                " (the conversation kept with the history is not given back to Codex: it "
                "indexes its threads in a database of its own)"
            )
        raise UserError(
            f"Codex's rollout of turn {request.turn} ({cut.transcript}) is gone{kept}; {way_out}"
        ) from None
    except OSError as error:
        raise UserError(f"{cut.transcript} cannot be read ({error.strerror}); {way_out}") from None
    turns = []
    for line in lines:
        try:
            payload = load_object(line.decode("utf-8")).get("payload")
        except (UnicodeDecodeError, ValueError, RecursionError):
            continue
        if isinstance(payload, dict) and payload.get("type") == "task_started":
            turn = payload.get("turn_id")
            if isinstance(turn, str):
                turns.append(turn)
    if cut.turn not in turns:
        raise UserError(
            f"Codex's rollout ({cut.transcript}) has no turn {cut.turn} (turn {request.turn} "
            f"here); {way_out}"
        )
    return turns


def fork(program: str, thread: str, before_turn: str, directory: str) -> str:
    """The id of the thread Codex forks from ``thread`` before ``before_turn``."""
    server = RpcProcess(
        [program, "app-server"], directory, "Codex's app server", LINES, FORK_TIMEOUT
    )
    with server:
        server.call(
            "initialize",
            {
                "clientInfo": {"name": "rewind", "version": "1"},
                "capabilities": {"experimentalApi": True},
            },
        )
        server.notify("initialized")
        result = server.call("thread/fork", {"threadId": thread, "beforeTurnId": before_turn})
    forked = result.get("thread")
    new = forked.get("id") if isinstance(forked, dict) else None
    if not isinstance(new, str) or not new:
        raise UserError("Codex's app server forked no thread; check 'codex app-server' works.")
    return new
