"""The Cline CLI, the real client, against the scripted Chat Completions API as its
``openai-compatible`` provider: ``cline --acp``, an agent an editor drives over the Agent Client
Protocol, holding a session open across prompts (:class:`Cline`), and ``cline --json PROMPT``,
one prompt in a new session (:class:`ClineOneShot`).

``cline --json`` cannot resume a session without a terminal; ACP is how a session of several
prompts runs without one. ACP takes its key from
``CLINE_API_KEY`` (or an account login); the provider, its base URL and model come from
``providers.json``, as ``cline auth -p openai-compatible -k KEY -m MODEL -b URL`` writes it
(without ``updatedAt`` Cline ignores the entry). ``session/set_model`` picks that model for the
session (Cline's ACP offers ``gpt-4o`` first, whose tools differ: ``apply_patch``, no
``editor``). ``CLINE_SESSION_BACKEND_MODE=local`` keeps the session in the process, rather than
in a hub daemon that outlives it.
"""

from __future__ import annotations

import itertools
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.clients.acp import AcpAgent
from tests.clients.clients import CLINE
from tests.clients.model_server import ModelServer
from tests.clients.openai_chat import ChatServer
from tests.clients.scenario import Call, Script, Tools

if TYPE_CHECKING:
    from tests.clients.world import World

MODEL = "scripted-model"
_PROCESSES = itertools.count(1)  # names each process's standard error file
PROVIDER = "openai-compatible"


class ClineSetup:
    """What both ways of running Cline share: the provider, the environment."""

    agent = CLINE.agent

    def __init__(self, program: Path) -> None:
        self.program = program

    def server(self, script: Script) -> ModelServer:
        return ChatServer(script, MODEL)

    def data(self, world: World) -> Path:
        return world.home / ".cline" / "data"

    def prepare(self, world: World) -> None:
        settings = self.data(world) / "settings"
        settings.mkdir(parents=True, exist_ok=True)
        provider = {"provider": PROVIDER, "apiKey": "sk-scripted", "model": MODEL}
        provider["baseUrl"] = f"{world.server.url}/v1"
        entry = {"settings": provider, "updatedAt": "2026-01-01T00:00:00.000Z"}
        providers = {"version": 1, "lastUsedProvider": PROVIDER, "providers": {PROVIDER: entry}}
        (settings / "providers.json").write_text(json.dumps(providers))

    def environment(self, world: World) -> dict[str, str]:
        return {
            "CLINE_SESSION_BACKEND_MODE": "local",
            "CLINE_API_KEY": "sk-scripted",
            "CLINE_PROVIDER": PROVIDER,
            "CLINE_NO_AUTO_UPDATE": "1",
        }


class ClineOneShot(ClineSetup):
    """``cline --json -c ROOT PROMPT``: one prompt, a new session each time (a prompt of one word
    is taken for a command: the script's prompts have several). Its hooks for the run's end run
    without Cline waiting for them, and may outlive the process."""

    def argv(self, world: World, prompt: str, session: str | None) -> list[str]:
        assert session is None, "cline --json cannot resume a session"
        return [str(self.program), "--json", "-c", str(world.root), prompt]

    def session_of(self, world: World, completed: subprocess.CompletedProcess[str]) -> str:
        """Rewind's session: Cline's session (its hooks' ``sessionContext.rootSessionId``),
        which the output does not name: the newest folder of its session data, named after
        the millisecond it began (``1796601237722_buoii``)."""
        sessions = [path.name for path in (self.data(world) / "sessions").iterdir()]
        assert sessions, f"Cline kept no session: {completed.stdout[-2000:]}"
        return max(sessions, key=lambda name: int(name.partition("_")[0]))


def hook_log(data: Path) -> list[dict[str, Any]]:
    """The events of Cline's hook log, ``<data>/logs/hooks.jsonl``, that name a session."""
    log = data / "logs" / "hooks.jsonl"
    found = []
    for line in log.read_text().splitlines() if log.exists() else []:
        try:
            event = json.loads(line)
        except ValueError:
            continue  # a line another Cline is writing
        if isinstance(event, dict) and isinstance(event.get("sessionContext"), dict):
            found.append(event)
    return found


class Cline(ClineSetup):
    """``cline --acp``: each session a process of its own, prompt after prompt."""

    def __init__(
        self, program: Path, refuse: Callable[[dict[str, Any]], bool] | None = None
    ) -> None:
        super().__init__(program)
        # The person's answer to Cline's permission requests: without it, every tool call is
        # approved by Cline itself (--auto-approve true); with it, Cline asks for each.
        self.refuse = refuse

    def open_session(self, world: World) -> ClineSession:
        return ClineSession(self, world)

    def load_session(self, world: World, session: str) -> ClineSession:
        """A new ``cline --acp`` process that resumes ``session`` (ACP's ``session/load``), as
        an editor does after it was closed. Its model's tools are ``gpt-4o``'s
        (``apply_patch``, no ``editor``): ``session/set_model`` does not change a loaded
        session's."""
        return ClineSession(self, world, session)


class ClineSession:
    """One ``cline --acp`` process holding one session: a new one, or ``resumed``."""

    def __init__(self, client: Cline, world: World, resumed: str | None = None) -> None:
        self.data = client.data(world)
        approve = "false" if client.refuse else "true"
        argv = [str(client.program), "--acp", "--auto-approve", approve, "-c", str(world.root)]
        errors = world.home / f"cline-acp-{next(_PROCESSES)}.err"
        self.agent = AcpAgent(argv, world.root, world.env, errors, client.refuse or _refuse_nothing)
        try:
            self.agent.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
            opened = {"cwd": str(world.root), "mcpServers": []}
            if resumed is None:
                self.acp_id: str = self.agent.request("session/new", opened)["sessionId"]
            else:
                self.agent.request("session/load", {**opened, "sessionId": resumed})
                self.acp_id = resumed
            model = {"sessionId": self.acp_id, "modelId": MODEL}
            self.agent.request("session/set_model", model)
        except BaseException:
            self.agent.close()
            raise

    @property
    def id(self) -> str:
        """Rewind's session: the ACP session, which Cline's hooks carry as
        ``sessionContext.rootSessionId``."""
        return self.acp_id

    def task_ids(self) -> set[str]:
        """The ``taskId`` of every hook event of the session in Cline's hook log: one per
        process that ran it."""
        return {
            event["taskId"]
            for event in hook_log(self.data)
            if event["sessionContext"].get("rootSessionId") == self.acp_id and event.get("taskId")
        }

    def prompt(self, text: str) -> None:
        """Sends ``text``; returns once Cline has answered and the hooks it does not wait for
        (the run's start and end) have ended, as they do while a person reads the answer."""
        turn = {"sessionId": self.acp_id, "prompt": [{"type": "text", "text": text}]}
        answer = self.agent.request("session/prompt", turn)
        assert answer == {"stopReason": "end_turn"}, answer
        self.agent.settle()

    def close(self) -> None:
        self.agent.close()

    def tool_outputs(self) -> list[str]:
        """What each tool call gave back (Cline's ``rawOutput`` as JSON), once each, in order:
        the last ``tool_call_update`` that ended it."""
        found: dict[str, str] = {}
        for params in self.agent.updates:
            update = params.get("update") or {}
            ended = update.get("status") in ("completed", "failed")
            if update.get("sessionUpdate") == "tool_call_update" and ended:
                found[update["toolCallId"]] = json.dumps(update.get("rawOutput"))
        return list(found.values())


def _refuse_nothing(call: dict[str, Any]) -> bool:
    return False


def held(world: World, session: str) -> ClineSession:
    """The open session of Cline that runs ``session`` in ``world``."""
    found = world.held[session]
    assert isinstance(found, ClineSession)
    return found


def write(path: str, content: str) -> Call:
    return Call("editor", {"path": "{root}/" + path, "new_text": content})


def edit(path: str, old: str, new: str) -> Call:
    return Call("editor", {"path": "{root}/" + path, "old_text": old, "new_text": new})


def read(path: str) -> Call:
    return Call("read_files", {"files": [{"path": "{root}/" + path}]})


def shell(command: str) -> Call:
    return Call("run_commands", {"commands": [command]})


TOOLS = Tools(write, edit, read, shell)
