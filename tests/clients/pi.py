"""Pi, the real client: ``pi -p PROMPT --mode json`` against the scripted Messages API, as a
provider of the person's ``~/.pi/agent/models.json``; the next prompt continues the session
with ``--session ID``. Pi has no permission rules of its own: a person refuses calls with an
extension of theirs that blocks them (:data:`GATE`, as Pi's permission-gate example does)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from tests.clients.anthropic import AnthropicServer
from tests.clients.clients import PI
from tests.clients.model_server import ModelServer
from tests.clients.scenario import Call, Script, Tools

if TYPE_CHECKING:
    from tests.clients.world import World

PROVIDER, MODEL = "scripted", "scripted-model"
# The person's own extension: no tool call may name secret.txt.
GATE = """export default function (pi) {
  pi.on("tool_call", async (event) => {
    if (JSON.stringify(event.input).includes("secret.txt")) {
      return { block: true, reason: "The person refuses anything on secret.txt." };
    }
  });
}
"""


class Pi:
    agent = PI.agent

    def __init__(self, program: Path, gate: bool = False, continued: bool = False) -> None:
        self.program = program
        self.gate = gate  # the person's extension that refuses calls on secret.txt
        # True: a session's next prompt continues the folder's newest session (-c), as a
        # person does, rather than the session named (--session ID)
        self.continued = continued

    def server(self, script: Script) -> ModelServer:
        return AnthropicServer(script)

    def agent_directory(self, world: World) -> Path:
        return world.home / ".pi" / "agent"

    def prepare(self, world: World) -> None:
        directory = self.agent_directory(world)
        directory.mkdir(parents=True, exist_ok=True)
        provider = {
            "baseUrl": world.server.url,
            "api": "anthropic-messages",
            "apiKey": "sk-scripted",
            "models": [{"id": MODEL}],
        }
        (directory / "models.json").write_text(json.dumps({"providers": {PROVIDER: provider}}))
        if self.gate:
            (directory / "extensions").mkdir(exist_ok=True)
            (directory / "extensions" / "gate.js").write_text(GATE)

    def environment(self, world: World) -> dict[str, str]:
        return {"PI_OFFLINE": "1"}  # no version check, no network

    def argv(self, world: World, prompt: str, session: str | None) -> list[str]:
        resume = (["-c"] if self.continued else ["--session", session]) if session else []
        model = ["--provider", PROVIDER, "--model", MODEL]
        return [str(self.program), "-p", prompt, *resume, *model, "--mode", "json"]

    def session_of(self, world: World, completed: subprocess.CompletedProcess[str]) -> str:
        """The session's id: its header, the first line ``--mode json`` prints."""
        header = json.loads(completed.stdout.splitlines()[0])
        assert header.get("type") == "session", completed.stdout[:2000]
        session: str = header["id"]
        return session


def write(path: str, content: str) -> Call:
    return Call("write", {"path": path, "content": content})


def edit(path: str, old: str, new: str) -> Call:
    return Call("edit", {"path": path, "edits": [{"oldText": old, "newText": new}]})


def read(path: str) -> Call:
    return Call("read", {"path": path})


def bash(command: str) -> Call:
    return Call("bash", {"command": command})


TOOLS = Tools(write, edit, read, bash)
