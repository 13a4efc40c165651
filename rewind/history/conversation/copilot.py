"""Copilot CLI: the client's own fork, up to an event, through its runtime; then
``copilot --resume``.

The session (``~/.copilot/session-state/<session>/events.jsonl``) is written late, so its size
at the prompt event says nothing; the prompt's ``timestamp`` does: the runtime records each
prompt hook's input in a ``hook.start`` event, and the turn's ``user.message`` follows it. The
runtime (``copilot --headless --stdio``, JSON-RPC with ``Content-Length`` framing) forks the
session up to that message (``sessions.fork {sessionId, toEventId}``, the event left out) as a
new session; the original events file is left as it was (the client counts the fork in the
session's own ``workspace.yaml``).
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
from rewind.history.conversation.rpc import CONTENT_LENGTH, RpcProcess
from rewind.store.fastjson import load_object

CLIENT = CLIENTS["copilot"]
FORK_TIMEOUT = 60.0  # seconds for the runtime to start and fork


def check(request: Request) -> tuple[str, bool]:
    """The turn's ``user.message`` id and whether it is the session's first, once the
    recording client's version and the events file show the session can be forked there;
    asks the client nothing."""
    CLIENT.check(request.cut.version, f"the client that recorded turn {request.turn}", request.turn)
    return _turn_message(request)


def branch(request: Request) -> Branch:
    cut = request.cut
    found = Branch(CLIENT.agent, request.program)
    message, first = check(request)
    if first:
        found.notes.append(began_the_conversation(request))
    else:
        session = fork(request.program, cut.session, message, os.fsdecode(request.store.root.path))
        found.session = session
        found.head = ["--resume", session]
        found.notes.append(
            f"Copilot CLI forked the session before turn {request.turn} as {session}; its events "
            "file is left as it is."
        )
    if request.prompt:
        found.tail = ["-p", request.prompt]
    return found


def _turn_message(request: Request) -> tuple[str, bool]:
    """The id of the ``user.message`` event of the turn's prompt, and whether it is the
    session's first; a refusal when the events file does not hold it (yet)."""
    cut = request.cut
    way_out = files_only(request.turn)
    try:
        lines = read_transcript(cut.transcript).splitlines()
    except FileNotFoundError:
        raise UserError(
            f"Copilot CLI's session of turn {request.turn} ({cut.transcript}) is not there (it is "
            f"written when the agent is idle, and removed with the session); {way_out}"
        ) from None
    except OSError as error:
        raise UserError(f"{cut.transcript} cannot be read ({error.strerror}); {way_out}") from None
    seen_prompt, earlier = False, 0
    for line in lines:
        try:
            event = load_object(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            continue
        kind, data = event.get("type"), event.get("data")
        if kind == "hook.start" and isinstance(data, dict) and _is_prompt_of(data, cut.turn):
            seen_prompt = True
        elif kind == "user.message":
            if seen_prompt and isinstance(event.get("id"), str):
                return str(event["id"]), earlier == 0
            earlier += 1
    raise UserError(
        f"Copilot CLI's session ({cut.transcript}) does not hold turn {request.turn}'s prompt yet "
        f"(it writes its events late); try again once the agent is idle, or {way_out}"
    )


def _is_prompt_of(data: dict[str, object], stamp: str) -> bool:
    payload = data.get("input")
    return (
        data.get("hookType") == "userPromptSubmitted"
        and isinstance(payload, dict)
        and str(payload.get("timestamp")) == stamp
    )


def fork(program: str, session: str, before_event: str, directory: str) -> str:
    """The id of the session Copilot CLI forks from ``session``, up to ``before_event``."""
    argv = [program, "--headless", "--no-auto-update", "--no-auto-login", "--stdio"]
    with RpcProcess(
        argv, directory, "Copilot CLI's runtime", CONTENT_LENGTH, FORK_TIMEOUT
    ) as runtime:
        runtime.call("ping", {"message": "rewind"})
        result = runtime.call("sessions.fork", {"sessionId": session, "toEventId": before_event})
    new = result.get("sessionId")
    if not isinstance(new, str) or not new:
        raise UserError("Copilot CLI forked no session; check 'copilot --headless --stdio' works.")
    return new
