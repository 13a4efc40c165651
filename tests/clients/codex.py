"""The Codex CLI, the real client: ``codex exec PROMPT`` (then ``codex exec resume SESSION
PROMPT``) against the scripted Responses API, as a provider of the person's ``config.toml``.

The model's name decides which tools Codex offers: for a model its catalog knows (``gpt-5.5``)
``apply_patch`` is a freeform tool of its own; for any other name there is no such tool, and
Codex tells the model to run ``apply_patch`` through the shell, where it intercepts the
command and applies the patch itself.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from tests.clients.clients import CODEX
from tests.clients.model_server import ModelServer
from tests.clients.openai_responses import ResponsesServer
from tests.clients.scenario import Call, Script, Tools

if TYPE_CHECKING:
    from tests.clients.world import World

KNOWN_MODEL = "gpt-5.5"  # in Codex's catalog: apply_patch is a freeform tool
UNKNOWN_MODEL = "scripted-model"  # not in it: apply_patch goes through the shell
KEY_VARIABLE = "SCRIPTED_API_KEY"

FLAGS = (
    "--json",  # events on stdout, the first of them names the session
    # Runs the hooks rewind's installer wrote without the review a person does once in the
    # interactive client (docs/integrations/codex.md, "Trust").
    "--dangerously-bypass-hook-trust",
    # No sandbox: the tests' machine may have none that works; the shell must really write.
    "--dangerously-bypass-approvals-and-sandbox",
)


class Codex:
    agent = CODEX.agent

    def __init__(self, program: Path, model: str = KNOWN_MODEL, rules: str = "") -> None:
        self.program = program
        self.model = model
        self.rules = rules  # the person's exec policy (Starlark), e.g. a forbidden prefix

    def server(self, script: Script) -> ModelServer:
        return ResponsesServer(script)

    def home(self, world: World) -> Path:
        return world.home / ".codex"

    def prepare(self, world: World) -> None:
        home = self.home(world)
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(
            f'model = "{self.model}"\n'
            'model_provider = "scripted"\n'
            "\n"
            "[model_providers.scripted]\n"
            'name = "scripted"\n'
            f'base_url = "{world.server.url}/v1"\n'
            'wire_api = "responses"\n'
            f'env_key = "{KEY_VARIABLE}"\n'
        )
        if self.rules:
            (home / "rules").mkdir(exist_ok=True)
            (home / "rules" / "person.rules").write_text(self.rules)

    def environment(self, world: World) -> dict[str, str]:
        return {"CODEX_HOME": str(self.home(world)), KEY_VARIABLE: "sk-scripted"}

    def argv(self, world: World, prompt: str, session: str | None) -> list[str]:
        if session is None:  # --trust: a project's .codex/ is read only in a trusted project
            return [str(self.program), "exec", *FLAGS, "--trust", prompt]
        return [str(self.program), "exec", "resume", *FLAGS, session, prompt]

    def session_of(self, world: World, completed: subprocess.CompletedProcess[str]) -> str:
        for line in completed.stdout.splitlines():
            event = json.loads(line) if line.startswith("{") else {}
            if event.get("type") == "thread.started":
                session: str = event["thread_id"]
                return session
        raise AssertionError(f"no thread.started event: {completed.stdout[-2000:]}")


def shell(command: str) -> Call:
    return Call("exec_command", {"cmd": command})


def patch(*hunks: str) -> Call:
    """The freeform ``apply_patch`` (a model Codex knows): the patch is the call's raw text."""
    return Call("apply_patch", {"input": patch_text(*hunks)})


def patch_text(*hunks: str) -> str:
    return "*** Begin Patch\n" + "".join(hunks) + "*** End Patch\n"


def add(path: str, content: str) -> str:
    lines = "".join(f"+{line}\n" for line in content.splitlines())
    return f"*** Add File: {path}\n{lines}"


def update(path: str, old: str, new: str) -> str:
    return f"*** Update File: {path}\n@@\n-{old}\n+{new}\n"


# A model Codex knows: files made and changed by patches, read through the shell.
TOOLS = Tools(
    write=lambda path, content: patch(add(path, content)),
    edit=lambda path, old, new: patch(update(path, old, new)),
    read=lambda path: shell(f"cat {path}"),
    shell=shell,
)
# Everything through the shell (a model it does not know, whose patches go through the shell).
SHELL_TOOLS = Tools(
    write=lambda path, content: shell(f"echo {content.strip()} > {path}"),
    edit=lambda path, old, new: shell(f"sed -i 's/{old}/{new}/' {path}"),
    read=lambda path: shell(f"cat {path}"),
    shell=shell,
)
