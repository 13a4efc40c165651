"""``rewind mcp`` through the real Claude Code (issue 25, item 5): registered in the project's
``.mcp.json``, the scripted model calls the read tools and a restore, plan then apply; the test
checks the tool results the client sent back to the model and the work tree afterwards."""

from __future__ import annotations

import json
import re

from tests.clients.claude_code import ClaudeCode
from tests.clients.clients import CLAUDE_CODE
from tests.clients.conftest import MakeWorld
from tests.clients.scenario import Call, Prompt, Script, calls, done
from tests.clients.world import World

TOOL = "mcp__rewind__"  # Claude Code's name of a tool of the server "rewind"


def register(world: World) -> None:
    """The server in the project's .mcp.json, its project servers allowed in the settings."""
    (world.root / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"rewind": {"command": "rewind", "args": ["mcp"]}}})
    )
    settings = world.root / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["enableAllProjectMcpServers"] = True
    settings.write_text(json.dumps(data))


def results_sent(world: World, text: str) -> list[str]:
    """The tool results the client sent back to the model that hold ``text``."""
    found = []
    for request in world.server.requests:
        for message in request.body.get("messages", []):
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    body = json.dumps(block.get("content"))
                    if text in body:
                        found.append(body)
    return found


def test_claude_code_reads_its_history_and_restores_a_turn_through_rewind_mcp(
    make_world: MakeWorld,
) -> None:
    write = Call("Write", {"file_path": "{root}/notes.md", "content": "first draft\n"})
    script = Script(
        [
            Prompt("Write the first draft", (calls(write), done("Written."))),
            Prompt(
                "What did you do, and plan putting it back",
                (
                    calls(Call(f"{TOOL}rewind_log", {})),
                    calls(Call(f"{TOOL}rewind_restore", {"turn": "1"})),
                    done("Here is the plan."),
                ),
            ),
        ]
    )
    world = make_world(ClaudeCode(CLAUDE_CODE.program()), script)
    register(world)
    session = world.prompt("Write the first draft")
    assert (world.root / "notes.md").read_text() == "first draft\n"
    world.prompt("What did you do, and plan putting it back", session)
    logged = results_sent(world, "Write the first draft")
    assert logged, "the client sent the model no result of rewind_log"
    # Claude Code sends the model a tool's structured content (the plan as data) when it has one.
    planned = results_sent(world, "plan_id")
    assert planned, "the client sent the model no plan"
    plan_id = re.search(r"plan_id\W+([0-9a-f]{16})", planned[-1])
    assert plan_id is not None, planned[-1]
    assert (world.root / "notes.md").read_text() == "first draft\n"  # a plan changes nothing

    apply = Call(f"{TOOL}rewind_restore", {"turn": "1", "plan_id": plan_id.group(1)})
    world.server.script.prompts.append(Prompt("Apply that plan", (calls(apply), done("Restored."))))
    world.prompt("Apply that plan", session)
    applied = [
        body for body in results_sent(world, "applied") if re.search(r"applied\W+true", body)
    ]
    assert applied, "the client sent the model no result of the applied restore"
    assert not (world.root / "notes.md").exists()  # back to before turn 1
    kinds = [entry["kind"] for entry in world.log(session)]
    assert "restore" in kinds
