"""Qwen Code, the real client: ``qwen -p PROMPT --yolo`` against the scripted OpenAI Chat
Completions API, its OpenAI-compatible way in (``OPENAI_BASE_URL``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from tests.clients.clients import QWEN
from tests.clients.model_server import ModelServer
from tests.clients.openai_chat import ChatServer
from tests.clients.scenario import Call, Script, Tools

if TYPE_CHECKING:
    from tests.clients.world import World

MODEL = "scripted-model"


class Qwen:
    agent = QWEN.agent

    def __init__(self, program: Path, deny: tuple[str, ...] = ()) -> None:
        self.program = program
        self.deny = deny  # permission rules the person set ("Write(secret.txt)")

    def server(self, script: Script) -> ModelServer:
        return ChatServer(script, model=MODEL)

    def prepare(self, world: World) -> None:
        """The person's settings: the OpenAI-compatible way in, no usage statistics and no
        update check (both go to the network), and the deny rules."""
        qwen = world.home / ".qwen"
        qwen.mkdir(parents=True, exist_ok=True)
        settings: dict[str, object] = {
            "security": {"auth": {"selectedType": "openai"}},
            "model": {"name": MODEL},
            "privacy": {"usageStatisticsEnabled": False},
            "general": {"enableAutoUpdate": False},
        }
        if self.deny:
            settings["permissions"] = {"deny": list(self.deny)}
        (qwen / "settings.json").write_text(json.dumps(settings, indent=2))

    def environment(self, world: World) -> dict[str, str]:
        return {
            "OPENAI_BASE_URL": f"{world.server.url}/v1",
            "OPENAI_API_KEY": "scripted",
            "OPENAI_MODEL": MODEL,
            "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
            # The client starts a copy of itself with a larger heap, the same program: a
            # second of each run on a loaded machine, which the tier spares.
            "QWEN_CODE_NO_RELAUNCH": "true",
        }

    def argv(self, world: World, prompt: str, session: str | None) -> list[str]:
        resume = ["--resume", session] if session else []
        return [str(self.program), "-p", prompt, *resume, "--yolo", "--output-format", "json"]

    def session_of(self, world: World, completed: subprocess.CompletedProcess[str]) -> str:
        """The session of the run's last message (its output is a JSON list of messages)."""
        session: str = json.loads(completed.stdout)[-1]["session_id"]
        return session


def write(path: str, content: str) -> Call:
    return Call("write_file", {"file_path": "{root}/" + path, "content": content})


def edit(path: str, old: str, new: str) -> Call:
    return Call("edit", {"file_path": "{root}/" + path, "old_string": old, "new_string": new})


def read(path: str) -> Call:
    return Call("read_file", {"file_path": "{root}/" + path})


def shell(command: str) -> Call:
    return Call("run_shell_command", {"command": command, "description": "run"})


# Qwen Code refuses an edit of a file this process has not read (its read cache is not kept
# with the session): each edit's message reads the file first.
TOOLS = Tools(write, edit, read, shell, read_first=True)


def tool_results(server: ModelServer) -> list[str]:
    """The results of the tool calls the client sent back (``tool`` messages, each once, in the
    order they were first sent)."""
    found: dict[str, str] = {}
    for request in server.received("/chat/completions"):
        body = request.body if isinstance(request.body, dict) else {}
        for message in body.get("messages") or []:
            if isinstance(message, dict) and message.get("role") == "tool":
                content = message.get("content")
                text = content if isinstance(content, str) else json.dumps(content)
                found.setdefault(str(message.get("tool_call_id")), text)
    return list(found.values())
