"""Claude Code, the real client: ``claude -p PROMPT`` against the scripted Messages API."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from tests.clients.anthropic import AnthropicServer
from tests.clients.clients import CLAUDE_CODE
from tests.clients.model_server import ModelServer
from tests.clients.scenario import Call, Script, Tools

if TYPE_CHECKING:
    from tests.clients.world import World


class ClaudeCode:
    agent = CLAUDE_CODE.agent

    def __init__(
        self, program: Path, deny: tuple[str, ...] = (), permission_mode: str | None = None
    ) -> None:
        self.program = program
        self.deny = deny  # permission rules the person set, e.g. "Write(secret.txt)"
        # None: every tool allowed (--dangerously-skip-permissions); else the mode's rules, and
        # in -p a tool they do not allow is refused, as if the person said no.
        self.permission_mode = permission_mode

    def server(self, script: Script) -> ModelServer:
        return AnthropicServer(script)

    def prepare(self, world: World) -> None:
        if not self.deny:
            return
        settings = world.home / ".claude" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps({"permissions": {"deny": list(self.deny)}}))

    def environment(self, world: World) -> dict[str, str]:
        return {
            "ANTHROPIC_BASE_URL": world.server.url,
            "ANTHROPIC_API_KEY": "sk-scripted",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            # --dangerously-skip-permissions as root asks for a sandbox to be declared.
            "IS_SANDBOX": "1",
            # Claude Code connects MCP servers in the background and sends its first request
            # without waiting for them (2.1.332: MCP_CONNECTION_NONBLOCKING, true unless 0): on
            # a loaded machine rewind's server (0.6 s to start) lost that race and its tools
            # were not offered. As Codex's is made required in its tests, this one is awaited.
            "MCP_CONNECTION_NONBLOCKING": "0",
        }

    def argv(self, world: World, prompt: str, session: str | None) -> list[str]:
        resume = ["--resume", session] if session else []
        return [
            str(self.program),
            "-p",
            prompt,
            *resume,
            "--output-format",
            "json",
            *(
                ["--permission-mode", self.permission_mode]
                if self.permission_mode
                else ["--dangerously-skip-permissions"]
            ),
        ]

    def session_of(self, world: World, completed: subprocess.CompletedProcess[str]) -> str:
        session: str = json.loads(completed.stdout)["session_id"]
        return session


def write(path: str, content: str) -> Call:
    return Call("Write", {"file_path": "{root}/" + path, "content": content})


def edit(path: str, old: str, new: str) -> Call:
    return Call("Edit", {"file_path": "{root}/" + path, "old_string": old, "new_string": new})


def read(path: str) -> Call:
    return Call("Read", {"file_path": "{root}/" + path})


def bash(command: str) -> Call:
    return Call("Bash", {"command": command, "description": "run"})


TOOLS = Tools(write, edit, read, bash)
