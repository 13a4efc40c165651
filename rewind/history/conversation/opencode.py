"""OpenCode: the client's own fork, at the turn's user message, through its server; then
``opencode -s NEW`` (``opencode run -s NEW PROMPT`` with a prompt).

OpenCode keeps its sessions in a SQLite database of its own, which rewind never opens: the
prompt's hook records the id of the turn's user message (the cut point's ``turn``), and
``opencode serve``, started in the project's root on a free port of 127.0.0.1 with a password
of rewind's own for the few seconds of the calls, lists the session's messages (``GET
/session/ID/message``) and forks the session there (``POST /session/ID/fork {"messageID"}``): a
new session holding copies of the messages before that one, titled "TITLE (fork #N)". The fork
makes no model call; the original session is left as it was (read from 1.18.33).
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import queue
import secrets
import subprocess
import threading
import time
from typing import IO
from urllib.parse import quote, urlsplit

from rewind.errors import UserError
from rewind.history.conversation.branch import Branch, Request, began_the_conversation
from rewind.history.conversation.clients import CLIENTS, files_only
from rewind.store.fastjson import loads
from rewind.store.input_limits import TRANSCRIPT_BYTES, too_large

CLIENT = CLIENTS["opencode"]
SERVER_TIMEOUT = 60.0  # seconds for the server to start and answer
LISTENING = "listening on "
USER = "rewind"


def check(request: Request) -> bool:
    """Whether the turn began the session, once the recording client's version, and (with the
    client installed: ``request.program`` is its path) the session's messages, show it can be
    forked there; writes nothing, and forks nothing."""
    CLIENT.check(request.cut.version, f"the client that recorded turn {request.turn}", request.turn)
    if not os.path.isabs(request.program):
        return False
    with Server(request.program, os.fsdecode(request.store.root.path)) as server:
        return _turn_began_the_session(server, request)


def branch(request: Request) -> Branch:
    cut = request.cut
    found = Branch(CLIENT.agent, request.program)
    CLIENT.check(cut.version, f"the client that recorded turn {request.turn}", request.turn)
    with Server(request.program, os.fsdecode(request.store.root.path)) as server:
        first = _turn_began_the_session(server, request)
        session = "" if first else server.fork(cut.session, cut.turn, request.turn)
    if first:
        found.notes.append(began_the_conversation(request))
    else:
        found.session = session
        found.head = ["-s", session]
        found.notes.append(
            f"OpenCode forked its session before turn {request.turn} as {session}; the original "
            "session is left as it is."
        )
    if request.prompt:
        found.head = ["run", *found.head]
        found.tail = [request.prompt]
    return found


def _turn_began_the_session(server: Server, request: Request) -> bool:
    """Whether the turn's user message is the session's first; a refusal when the session
    does not hold it."""
    cut = request.cut
    way_out = files_only(request.turn)
    users = server.user_messages(cut.session, request.turn)
    if cut.turn not in users:
        raise UserError(
            f"OpenCode's session {cut.session} has no message {cut.turn} (turn {request.turn} "
            f"here: the message or the session was deleted, or reverted); {way_out}"
        )
    return users[0] == cut.turn


class Server:
    """``opencode serve`` as a child process for the length of a few calls, in ``directory``."""

    def __init__(self, program: str, directory: str) -> None:
        self.directory = directory
        self.password = secrets.token_urlsafe(24)
        environment = {
            **os.environ,
            "PWD": directory,
            "OPENCODE_SERVER_USERNAME": USER,
            "OPENCODE_SERVER_PASSWORD": self.password,
        }
        argv = [program, "serve", "--port", "0", "--hostname", "127.0.0.1"]
        try:
            self.process = subprocess.Popen(
                argv,
                cwd=directory,
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as error:
            raise UserError(
                f"OpenCode's server could not start ({error.strerror}); check the client's "
                "installation."
            ) from None
        self.deadline = time.monotonic() + SERVER_TIMEOUT
        self.lines: queue.Queue[str | None] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()
        try:
            self.address = self._listening()
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def user_messages(self, session: str, turn: int) -> list[str]:
        """The ids of the session's user messages, in order."""
        answer = self._call("GET", f"/session/{quote(session, safe='')}/message", None, turn)
        ids = []
        for message in answer if isinstance(answer, list) else []:
            info = message.get("info") if isinstance(message, dict) else None
            if isinstance(info, dict) and info.get("role") == "user":
                ids.append(str(info.get("id")))
        return ids

    def fork(self, session: str, message: str, turn: int) -> str:
        """The id of the session OpenCode forks from ``session`` before ``message``."""
        answer = self._call(
            "POST", f"/session/{quote(session, safe='')}/fork", {"messageID": message}, turn
        )
        new = answer.get("id") if isinstance(answer, dict) else None
        if not isinstance(new, str) or not new:
            raise UserError("OpenCode forked no session; check that 'opencode serve' works.")
        return new

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()

    def _read(self, stream: IO[bytes]) -> None:
        for line in iter(lambda: stream.readline(4096), b""):
            self.lines.put(line.decode("utf-8", "replace"))
        self.lines.put(None)

    def _listening(self) -> tuple[str, int]:
        """The host and port the server says it listens on."""
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, self.deadline - time.monotonic()))
            except queue.Empty:
                raise UserError(
                    f"OpenCode's server did not start within {SERVER_TIMEOUT:.0f} s; check that "
                    "'opencode serve' starts in the project."
                ) from None
            if line is None:
                raise UserError(
                    "OpenCode's server ended before it listened; check that 'opencode serve' "
                    "starts in the project."
                )
            at = line.find(LISTENING)
            if at >= 0:
                where = urlsplit(line[at + len(LISTENING) :].strip())
                if where.hostname and where.port:
                    return where.hostname, where.port

    def _call(self, method: str, path: str, body: object, turn: int) -> object:
        """The server's answer, as JSON; a refusal naming its error."""
        timeout = max(1.0, self.deadline - time.monotonic())
        connection = http.client.HTTPConnection(*self.address, timeout=timeout)
        token = base64.b64encode(f"{USER}:{self.password}".encode()).decode()
        headers = {"Authorization": f"Basic {token}", "Content-Type": "application/json"}
        data = json.dumps(body).encode() if body is not None else None
        query = "?directory=" + quote(self.directory, safe="")
        try:
            connection.request(method, path + query, body=data, headers=headers)
            response = connection.getresponse()
            raw = response.read(TRANSCRIPT_BYTES + 1)
        except (OSError, http.client.HTTPException) as error:
            raise UserError(f"OpenCode's server did not answer ({error}); try again.") from None
        finally:
            connection.close()
        if len(raw) > TRANSCRIPT_BYTES:
            larger = too_large(TRANSCRIPT_BYTES, "a transcript").of("OpenCode's answer")
            raise UserError(f"{larger}; {files_only(turn)}")
        try:
            answer = loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            answer = None
        if response.status != 200:
            said = _error_message(answer) or f"HTTP {response.status}"
            raise UserError(f"OpenCode's server refused it: {said}; {files_only(turn)}")
        return answer


def _error_message(answer: object) -> str:
    """The message of one of the server's errors (``{"name", "data": {"message"}}``)."""
    data = answer.get("data") if isinstance(answer, dict) else None
    message = data.get("message") if isinstance(data, dict) else None
    return " ".join(str(message).split())[:300] if message else ""
