"""``rewind mcp`` through the real clients (issue 25, item 5): the server registered in each
client's own settings, the scripted model calls the read tools and a restore, plan then
apply; the test checks what the client sent back to the model (the log, the plan and its id,
the restore applied) and the work tree afterwards.

The name a client gives a server's tool differs (``mcp__rewind__rewind_log`` in Claude Code):
the first prompt asks nothing, and the names are read off the tools the client offered the
model, before the rest of the script is written. Codex (0.171) offers a server's tools only
through its tool search: it lists the server's namespace (``mcp__rewind``) and the model loads
its tools with a search before it calls them."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.clients.claude_code import ClaudeCode
from tests.clients.clients import CLAUDE_CODE, CODEX, GEMINI
from tests.clients.codex import Codex
from tests.clients.conftest import MakeWorld
from tests.clients.gemini import Gemini
from tests.clients.openai_responses import namespaced_tools
from tests.clients.scenario import Call, Prompt, Reply, Script, calls, done
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


def codex_settings(world: World) -> None:
    """The person's ~/.codex/config.toml (the driver wrote its model provider there); JSON's
    strings and lists are TOML's too. Codex starts a server with a few variables of its own
    environment only (HOME, PATH, ...): the store the tests give rewind (REWIND_HOME) is passed
    by name."""
    config = world.home / ".codex" / "config.toml"
    with config.open("a") as out:
        out.write("\n[mcp_servers.rewind]\n")
        out.write(f"command = {json.dumps(SERVER['command'])}\n")
        out.write(f"args = {json.dumps(SERVER['args'])}\n")
        out.write('env_vars = ["REWIND_HOME"]\n')


@dataclass(frozen=True)
class Case:
    make: Callable[[Path], Client]
    program: Callable[[], Path]
    write: Callable[[str, str], Call]
    register: Callable[[World], None]
    prefix: str  # how the client names a tool of the server "rewind" to the model
    # A client that offers the server's tools only through its tool search: the call that
    # loads them, and the name the client lists the server under before that.
    search: Call | None = None
    listed: str = ""


CASES = {
    "claude-code": Case(
        ClaudeCode,
        CLAUDE_CODE.program,
        lambda path, text: Call("Write", {"file_path": "{root}/" + path, "content": text}),
        claude_code_settings,
        "mcp__rewind__",
    ),
    "codex": Case(
        Codex,
        CODEX.program,
        lambda path, text: Call(
            "apply_patch",
            {"input": f"*** Begin Patch\n*** Add File: {path}\n+{text}\n*** End Patch\n"},
        ),
        codex_settings,
        "mcp__rewind__",
        search=Call("tool_search", {"query": "rewind history restore", "limit": 8}),
        listed="mcp__rewind",
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


def searched(world: World) -> set[str]:
    """The tools the client's tool search found and sent the model (Codex), by the name Codex
    gives them (the namespace, then the tool's own name)."""
    return {name for request in world.server.requests for name in namespaced_tools(request.body)}


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
    offered(world, case.listed or log)
    load: tuple[Reply, ...] = (calls(case.search),) if case.search else ()
    prompts = world.server.script.prompts
    prompts.append(
        Prompt(
            "What did you do, and plan putting it back",
            (*load, calls(Call(log, {})), calls(Call(restore, {"turn": "2"})), done("The plan.")),
        )
    )
    world.prompt("Write the first draft", session)
    assert (world.root / "notes.md").exists()
    world.prompt("What did you do, and plan putting it back", session)
    if case.search:
        found_tools = searched(world)
        assert {log, restore} <= found_tools, f"the tool search found {sorted(found_tools)}"
    # The log's entries (as JSON, or Gemini CLI's text): not "undone" alone, which the server's
    # instructions hold.
    logged = sent(world, r"undone\W+false|turn 2 \(")
    assert logged, "the client sent the model no result of rewind_log"
    ids = [re.search(r"plan_id\W+([0-9a-f]{16})", body) for body in sent(world, "plan_id")]
    found = next((one for one in ids if one is not None), None)
    assert found is not None, "the client sent the model no plan and its id"
    assert (world.root / "notes.md").exists()  # a plan changes nothing

    apply = Call(restore, {"turn": "2", "plan_id": found.group(1)})
    prompts.append(Prompt("Apply that plan", (calls(apply), done("Restored."))))
    world.prompt("Apply that plan", session)
    # The structured content (Claude Code and Codex send the model that) or the text (Gemini).
    applied = sent(world, r"applied\W+true|Done: \d+ file")
    assert applied, "the client sent the model no applied restore"
    assert not (world.root / "notes.md").exists()  # as before turn 2 wrote it
    assert "restore" in [entry["kind"] for entry in world.log(session)]
