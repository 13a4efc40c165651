"""The agents' clients a conversation is resumed with: their program, the versions whose
transcripts and fork commands rewind knows, and the installed client's version.

The transcripts and the fork commands are the clients' own, undocumented and changing from one
version to the next; a version rewind was not tried with is refused (the files can always be
restored), naming the ones it was.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass

from rewind.errors import UserError

# Seconds a client's ``--version`` may take (Gemini CLI's takes about two).
VERSION_TIMEOUT = 30.0
_VERSION = re.compile(r"(\d+\.\d+\.\d+)")


@dataclass(frozen=True)
class Client:
    """``agent`` as ``rewind install`` names it; ``program``, its command on PATH; ``name``,
    as people call it; ``supported``, the ``major.minor`` series rewind resumes."""

    agent: str
    program: str
    name: str
    supported: tuple[str, ...]

    def supports(self, version: str) -> bool:
        return any(
            version == series or version.startswith(series + ".") for series in self.supported
        )

    @property
    def series(self) -> str:
        return " and ".join(f"{series}.x" for series in self.supported)

    def check(self, version: str, whose: str, turn: int | None) -> None:
        """Refuses ``version`` (of ``whose``: "the transcript", "the installed client") when
        rewind does not know it; an unknown version (empty) passes."""
        if version and not self.supports(version):
            raise UserError(
                f"{whose} is {self.name} {version}, and rewind resumes conversations of "
                f"{self.name} {self.series} only; {files_only(turn)[:-1]}, or update rewind."
            )


CLIENTS = {
    client.agent: client
    for client in (
        Client("claude-code", "claude", "Claude Code", ("2.1",)),
        Client("gemini", "gemini", "Gemini CLI", ("0.61",)),
        Client("codex", "codex", "Codex", ("0.171",)),
        Client("copilot", "copilot", "Copilot CLI", ("1.0",)),
        Client("pi", "pi", "Pi", ("0.73",)),
        Client("opencode", "opencode", "OpenCode", ("1.18",)),
    )
}
# The agents whose conversation lives where rewind cannot branch it, and why.
NOT_RESUMABLE = {
    "cline": "Cline keeps its tasks in the editor's own storage",
    "cursor": "Cursor keeps its chats in the editor's own database",
    "windsurf": "Windsurf keeps its conversations in the editor's own storage",
    "qwen": "Qwen Code resumes a session only from its own chats folder, by its id",
    "droid": "Droid resumes a session only from its own sessions folder, by its id",
    "kilo": "Kilo Code keeps its sessions in a database of its own, which rewind forks for "
    "OpenCode alone",
}


def files_only(turn: int | None) -> str:
    """The way out when the conversation cannot be resumed."""
    return f"restore the files alone with 'rewind restore {turn or 'TURN'}'."


def client_of(agent: str, turn: int | None = None) -> Client:
    """The client of ``agent``; a refusal saying why for an agent whose conversation cannot be
    resumed."""
    client = CLIENTS.get(agent)
    if client is not None:
        return client
    why = NOT_RESUMABLE.get(
        agent, f"the turn was not recorded by an agent's hook ({agent or 'no agent'})"
    )
    names = ", ".join(found.name for found in CLIENTS.values())
    raise UserError(
        f"{why}, so rewind cannot resume its conversation (it can for {names}); " + files_only(turn)
    )


def installed(client: Client, turn: int | None = None) -> tuple[str, str]:
    """The installed client's program and version ('' when ``--version`` says none), refusing a
    version rewind does not know; a refusal saying what to do when it is not on PATH."""
    program = shutil.which(client.program)
    if program is None:
        raise UserError(
            f"{client.program} ({client.name}) is not on PATH; install it or put it there, or "
            "use --print to see the command."
        )
    program = os.path.abspath(program)  # a relative PATH entry: started from another directory
    try:
        done = subprocess.run(
            [program, "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "NO_COLOR": "1"},
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UserError(
            f"'{client.program} --version' failed ({error}); check the client."
        ) from None
    found = _VERSION.search(done.stdout)
    version = found.group(1) if found else ""
    client.check(version, "the installed client", turn)
    return program, version
