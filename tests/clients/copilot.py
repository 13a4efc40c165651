"""The GitHub Copilot CLI, the real client: ``copilot -p PROMPT`` (then with ``--resume
SESSION``) against the scripted Messages API, as a provider of the person's own (``COPILOT_
PROVIDER_*``), offline: no GitHub sign-in, no update check.

Copilot loads a repository's hooks in ``-p`` mode only in a folder the person trusted, which
the interactive client records in ``~/.copilot/config.json`` (``trustedFolders``) once they
accept its prompt: :meth:`Copilot.prepare` writes that, as after the person accepted.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from tests.clients.anthropic import AnthropicServer
from tests.clients.clients import COPILOT
from tests.clients.model_server import ModelServer
from tests.clients.npm_install import cache_dir, with_node
from tests.clients.scenario import Call, Script, Tools

if TYPE_CHECKING:
    from tests.clients.world import World

MODEL = "claude-sonnet-4.5"
TRUST_FILE = "config.json"  # where the client keeps the folders the person trusted
# A person's GitHub credentials, which the client would check (a classic token stops it): empty
# is as unset.
CREDENTIALS = ("GH_TOKEN", "GITHUB_TOKEN", "COPILOT_GITHUB_TOKEN")


def unpacked_cache() -> Path:
    """Where the client unpacks itself (about 235 MB at its first start, ``$XDG_CACHE_HOME/
    copilot/pkg``): one folder beside the npm cache, shared by every test's home."""
    return cache_dir() / "copilot-xdg-cache"


def unpacked_program() -> Path:
    """The pinned client, installed and unpacked once (two first starts at the same time
    would unpack into the same folder)."""
    found = COPILOT.program()
    cache = unpacked_cache()
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(
            [str(found), "--version"],
            env=with_node({"PATH": os.defpath, "HOME": str(cache), "XDG_CACHE_HOME": str(cache)}),
            capture_output=True,
            timeout=300,
            check=True,
        )
    return found


class Copilot:
    agent = COPILOT.agent

    def __init__(
        self,
        program: Path,
        deny: tuple[str, ...] = (),
        trust_file: str = TRUST_FILE,
        allow_all: bool = True,
    ) -> None:
        self.program = program
        self.deny = deny  # the person's --deny-tool rules, e.g. "shell(rm)"
        self.trust_file = trust_file  # the file of ~/.copilot/ listing the project as trusted
        # False: no --allow-all-tools; in -p a tool that would ask is refused
        self.allow_all = allow_all

    def server(self, script: Script) -> ModelServer:
        return AnthropicServer(script)

    def prepare(self, world: World) -> None:
        trust = world.home / ".copilot" / self.trust_file
        trust.parent.mkdir(parents=True, exist_ok=True)
        trust.write_text(json.dumps({"trustedFolders": [str(world.root)]}))

    def environment(self, world: World) -> dict[str, str]:
        return {
            "COPILOT_OFFLINE": "true",
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_PROVIDER_TYPE": "anthropic",
            "COPILOT_PROVIDER_BASE_URL": world.server.url,
            "COPILOT_MODEL": MODEL,
            "XDG_CACHE_HOME": str(unpacked_cache()),
            **dict.fromkeys(CREDENTIALS, ""),
        }

    def argv(self, world: World, prompt: str, session: str | None) -> list[str]:
        resume = ["--resume", session] if session else []
        deny = [f"--deny-tool={rule}" for rule in self.deny]
        return [
            str(self.program),
            "-p",
            prompt,
            *resume,
            *(["--allow-all-tools"] if self.allow_all else []),
            *deny,
            "--output-format",
            "json",
        ]

    def session_of(self, world: World, completed: subprocess.CompletedProcess[str]) -> str:
        last = json.loads(completed.stdout.strip().splitlines()[-1])
        assert last.get("type") == "result", completed.stdout[-2000:]
        session: str = last["sessionId"]
        return session


def create(path: str, content: str) -> Call:
    return Call("create", {"path": "{root}/" + path, "file_text": content})


def edit(path: str, old: str, new: str) -> Call:
    return Call("edit", {"path": "{root}/" + path, "old_str": old, "new_str": new})


def view(path: str) -> Call:
    return Call("view", {"path": "{root}/" + path})


def bash(command: str) -> Call:
    return Call("bash", {"command": command, "description": "run"})


TOOLS = Tools(create, edit, view, bash)
