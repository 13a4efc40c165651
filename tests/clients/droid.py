"""Droid, the real client: ``droid exec PROMPT`` against the scripted Messages API, as a custom
model of the person's ``~/.factory/settings.json`` (``provider: anthropic``); the next prompt
continues the session with ``-s ID``.

``droid exec -s`` first asks Factory's API for the session, and goes on from its own copy in
``~/.factory/sessions/`` when the API answers 404; the scripted server stands in for that API
too (``FACTORY_API_BASE_URL``), answering 404 to all but the Messages API. No Factory account
is needed, and nothing leaves the machine."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from tests.clients.anthropic import AnthropicServer
from tests.clients.clients import DROID
from tests.clients.model_server import ModelServer
from tests.clients.scenario import Call, Script, Tools

if TYPE_CHECKING:
    from tests.clients.world import World

MODEL = "scripted-model"


class Droid:
    agent = DROID.agent

    def __init__(self, program: Path, deny: tuple[str, ...] = ()) -> None:
        self.program = program
        self.deny = deny  # the person's commandDenylist

    def server(self, script: Script) -> ModelServer:
        return AnthropicServer(script)

    def prepare(self, world: World) -> None:
        """The person's settings: the scripted model, no copy of the sessions in Factory's
        cloud (a new session's would wait 5 s for the unreachable API at its end), and the
        commands they deny."""
        factory = world.home / ".factory"
        factory.mkdir(parents=True, exist_ok=True)
        model = {
            "model": MODEL,
            "displayName": "Scripted",
            "baseUrl": world.server.url,
            "apiKey": "sk-scripted",
            "provider": "anthropic",
            "maxOutputTokens": 4096,
        }
        settings: dict[str, object] = {"customModels": [model], "cloudSessionSync": False}
        if self.deny:
            settings["commandDenylist"] = list(self.deny)
        (factory / "settings.json").write_text(json.dumps(settings, indent=2))

    def environment(self, world: World) -> dict[str, str]:
        return {"FACTORY_API_BASE_URL": world.server.url}

    def argv(self, world: World, prompt: str, session: str | None) -> list[str]:
        resume = ["-s", session] if session else []
        model = ["-m", f"custom:{MODEL}", "--auto", "high"]
        return [str(self.program), "exec", prompt, *resume, *model, "-o", "json"]

    def session_of(self, world: World, completed: subprocess.CompletedProcess[str]) -> str:
        """The session of the run's result (``-o json`` prints one object)."""
        result = json.loads(completed.stdout)
        assert result.get("is_error") is False, completed.stdout[-2000:]
        session: str = result["session_id"]
        return session


def write(path: str, content: str) -> Call:
    return Call("Create", {"file_path": "{root}/" + path, "content": content})


def edit(path: str, old: str, new: str) -> Call:
    return Call("Edit", {"file_path": "{root}/" + path, "old_str": old, "new_str": new})


def read(path: str) -> Call:
    return Call("Read", {"file_path": "{root}/" + path})


def shell(command: str) -> Call:
    return Call("Execute", {"command": command, "riskLevel": "low", "riskLevelReason": "edits"})


TOOLS = Tools(write, edit, read, shell)
