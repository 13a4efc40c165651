"""Gemini CLI, the real client: ``gemini -p PROMPT --yolo`` against the scripted Gemini API."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from tests.clients.clients import GEMINI
from tests.clients.gemini_api import GeminiServer
from tests.clients.model_server import ModelServer
from tests.clients.scenario import Call, Script, Tools

if TYPE_CHECKING:
    from tests.clients.world import World


class Gemini:
    agent = GEMINI.agent

    def __init__(
        self, program: Path, deny: tuple[tuple[str, str], ...] = (), yolo: bool = True
    ) -> None:
        self.program = program
        # policy rules the person set: (tool, a pattern of its arguments as JSON) denied
        self.deny = deny
        # False: the policy's rules alone; in -p a tool no rule allows is not offered at all
        self.yolo = yolo

    def server(self, script: Script) -> ModelServer:
        return GeminiServer(script)

    def prepare(self, world: World) -> None:
        """The person's settings: an API key as the way in (the base URL alone selects a
        gateway the client then refuses), no usage statistics and no update check (both go
        to the network), no cleanup of old sessions, and the deny rules as a user policy file.

        The cleanup, on by default at every start, deletes each session file it cannot read
        as a resumable session, another client's just begun in the same project among them;
        that session's ``--resume`` then fails ("Invalid session identifier"). Two sessions
        at once need it off."""
        gemini = world.home / ".gemini"
        gemini.mkdir(parents=True, exist_ok=True)
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "general": {
                "enableAutoUpdate": False,
                "enableAutoUpdateNotification": False,
                "sessionRetention": {"enabled": False},
            },
        }
        (gemini / "settings.json").write_text(json.dumps(settings, indent=2))
        if self.deny:
            policies = gemini / "policies"
            policies.mkdir(exist_ok=True)
            (policies / "deny.toml").write_text("".join(_rule(*each) for each in self.deny))

    def environment(self, world: World) -> dict[str, str]:
        return {
            "GOOGLE_GEMINI_BASE_URL": world.server.url,
            "GEMINI_API_KEY": "scripted",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",  # else no hook runs
            # The client starts a copy of itself with a larger heap, the same program: two
            # seconds of each run on a loaded machine, which the tier spares.
            "GEMINI_CLI_NO_RELAUNCH": "true",
        }

    def argv(self, world: World, prompt: str, session: str | None) -> list[str]:
        resume = ["--resume", session] if session else []
        yolo = ["--yolo"] if self.yolo else []
        return [str(self.program), "-p", prompt, *resume, *yolo, "--output-format", "json"]

    def session_of(self, world: World, completed: subprocess.CompletedProcess[str]) -> str:
        session: str = json.loads(completed.stdout)["session_id"]
        return session


def _rule(tool: str, arguments: str) -> str:
    """A deny rule of the user's tier, which the ``--yolo`` allow-all rule (the default
    tier) does not override."""
    return (
        "[[rule]]\n"
        f"toolName = {json.dumps(tool)}\n"
        f"argsPattern = {json.dumps(arguments)}\n"
        'decision = "deny"\n'
        "priority = 900\n"
        'denyMessage = "The person denies it."\n\n'
    )


def write(path: str, content: str) -> Call:
    return Call("write_file", {"file_path": "{root}/" + path, "content": content})


def replace(path: str, old: str, new: str) -> Call:
    return Call(
        "replace",
        {
            "file_path": "{root}/" + path,
            "instruction": f"Replace {old!r} with {new!r}.",
            "old_string": old,
            "new_string": new,
        },
    )


def read(path: str) -> Call:
    return Call("read_file", {"file_path": "{root}/" + path})


def shell(command: str) -> Call:
    return Call("run_shell_command", {"command": command, "description": "run"})


TOOLS = Tools(write, replace, read, shell)
