"""``rewind mcp`` through the real clients (issue 25, item 5): the server registered in each
client's own settings, the scripted model calls the read tools and a restore, plan then
apply; the test checks what the client sent back to the model (the log, the plan and its id,
the restore applied) and the work tree afterwards.

The name a client gives a server's tool differs (``mcp__rewind__rewind_log`` in Claude Code):
the first prompt asks nothing, and the names are read off the tools the client offered the
model, before the rest of the script is written."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.clients.claude_code import ClaudeCode
from tests.clients.clients import CLAUDE_CODE, GEMINI
from tests.clients.conftest import MakeWorld
from tests.clients.gemini import Gemini
from tests.clients.scenario import Call, Prompt, Script, calls, done
from tests.clients.world import Client, World

SERVER = {"command": "rewind", "args": ["mcp"]}


def claude_code_settings(world: World) -> None:
    """The project's .mcp.json, its servers allowed in the project's settings."""
    (world.root / ".mcp.json").write_text(json.dumps({"mcpServers": {"rewind": SERVER}}))
    settings = world.root / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["enableAllProjectMcpServers"] = True
    settings.write_text(json.dumps(data))


def gemini_settings(world: World) -> None:
    """The person's ~/.gemini/settings.json (the project's is read in trusted folders only)."""
    settings = world.home / ".gemini" / "settings.json"
    data = json.loads(settings.read_text())
    data["mcpServers"] = {"rewind": {**SERVER, "trust": True}}
    settings.write_text(json.dumps(data, indent=2))


@dataclass(frozen=True)
class Case:
    make: Callable[[Path], Client]
    program: Callable[[], Path]
    write: Callable[[str, str], Call]
    register: Callable[[World], None]
    prefix: str  # how the client names a tool of the server "rewind" to the model


# Codex (0.171) offers a server's tools only through its tool search (the model asks for
# them first): its case needs that step scripted.
CASES = {
    "claude-code": Case(
        ClaudeCode,
        CLAUDE_CODE.program,
        lambda path, text: Call("Write", {"file_path": "{root}/" + path, "content": text}),
        claude_code_settings,
        "mcp__rewind__",
    ),
    "gemini": Case(
        Gemini,
        GEMINI.program,
        lambda path, text: Call("write_file", {"file_path": "{root}/" + path, "content": text}),
        gemini_settings,
        "mcp_rewind_",
    ),
}


def offered(world: World, name: str) -> None:
    """Checks that the client told the model of the tool ``name`` (in its tools, or in the list
    of the tools it loads when asked, as Claude Code does for a server's tools)."""
    bodies = " ".join(json.dumps(request.body) for request in world.server.requests)
    assert name in bodies, f"the client offered the model no {name}"


def sent(world: World, pattern: str) -> list[str]:
    """The request bodies (as JSON text) the client sent the model that match ``pattern``."""
    bodies = [json.dumps(request.body) for request in world.server.requests]
    return [body for body in bodies if re.search(pattern, body)]


@pytest.mark.parametrize("agent", sorted(CASES))
def test_the_agent_reads_its_history_and_restores_a_turn_through_rewind_mcp(
    make_world: MakeWorld, agent: str
) -> None:
    case = CASES[agent]
    script = Script(
        [
            Prompt("Say hello", (done("Hello."),)),
            Prompt("Write the first draft", (calls(case.write("notes.md", "first draft")),)),
        ]
    )
    world = make_world(case.make(case.program()), script)
    case.register(world)
    session = world.prompt("Say hello")
    log, restore = f"{case.prefix}rewind_log", f"{case.prefix}rewind_restore"
    offered(world, log)
    prompts = world.server.script.prompts
    prompts.append(
        Prompt(
            "What did you do, and plan putting it back",
            (calls(Call(log, {})), calls(Call(restore, {"turn": "2"})), done("The plan.")),
        )
    )
    world.prompt("Write the first draft", session)
    assert (world.root / "notes.md").exists()
    world.prompt("What did you do, and plan putting it back", session)
    assert sent(world, r"undone|turn 2 \("), "the client sent the model no result of rewind_log"
    ids = [re.search(r"plan_id\W+([0-9a-f]{16})", body) for body in sent(world, "plan_id")]
    found = next((one for one in ids if one is not None), None)
    assert found is not None, "the client sent the model no plan and its id"
    assert (world.root / "notes.md").exists()  # a plan changes nothing

    apply = Call(restore, {"turn": "2", "plan_id": found.group(1)})
    prompts.append(Prompt("Apply that plan", (calls(apply), done("Restored."))))
    world.prompt("Apply that plan", session)
    # The structured content (Claude Code sends the model that) or the text (Gemini CLI).
    applied = sent(world, r"applied\W+true|Done: \d+ file")
    assert applied, "the client sent the model no applied restore"
    assert not (world.root / "notes.md").exists()  # as before turn 2 wrote it
    assert "restore" in [entry["kind"] for entry in world.log(session)]
