"""``rewind mcp`` through the real clients (issue 25, item 5; Pi, which has no MCP, through its
extension's tools): the server registered in each
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

from rewind.mcp.names import CHANGE_TOOLS, READ_TOOLS
from tests.clients.claude_code import ClaudeCode
from tests.clients.clients import CLAUDE_CODE, CODEX, COPILOT, GEMINI, OPENCODE, PI
from tests.clients.codex import Codex
from tests.clients.conftest import MakeWorld
from tests.clients.copilot import Copilot
from tests.clients.gemini import Gemini
from tests.clients.openai_responses import namespaced_tools
from tests.clients.opencode import OpenCode, tool_calls
from tests.clients.pi import Pi
from tests.clients.scenario import Call, Prompt, Reply, Script, calls, done
from tests.clients.world import Client, World


def claude_code_settings(world: World) -> None:
    """As a team would: the project's .mcp.json, approved in the project's settings."""
    world.ok("install", "claude-code", "--mcp", "--project")


def gemini_settings(world: World) -> None:
    """The person's ~/.gemini/settings.json (the project's is read in trusted folders only)."""
    world.ok("install", "gemini", "--mcp", "--user")


def copilot_settings(world: World) -> None:
    """The person's ~/.copilot/mcp-config.json."""
    world.ok("install", "copilot", "--mcp", "--user")


def pi_extension(world: World) -> None:
    """Nothing more: Pi has no MCP, and the extension 'rewind install pi' wrote gives the
    agent the server's tools as its own (each answered by 'rewind mcp')."""


def opencode_settings(world: World) -> None:
    """The person's ~/.config/opencode/opencode.json (the driver wrote its provider there)."""
    world.ok("install", "opencode", "--mcp", "--user")


def codex_settings(world: World) -> None:
    """The person's ~/.codex/config.toml (the driver wrote its model provider there), the
    server made ``required``: 'codex exec' sends its first request without waiting for an
    optional server, and on a loaded machine the server's start (0.8 s) loses that race
    (measured: a server that answers 0.6 s later than rewind's is not offered). Install leaves
    it optional, so that a server that cannot start never stops Codex (docs/mcp.md)."""
    world.ok("install", "codex", "--mcp", "--user")
    config = world.home / ".codex" / "config.toml"
    text = config.read_text()
    assert 'args = ["mcp"]\n' in text
    config.write_text(text.replace('args = ["mcp"]\n', 'args = ["mcp"]\nrequired = true\n', 1))


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
    "copilot": Case(
        Copilot,
        COPILOT.program,
        lambda path, text: Call("create", {"path": "{root}/" + path, "file_text": text}),
        copilot_settings,
        "rewind-",
    ),
    "gemini": Case(
        Gemini,
        GEMINI.program,
        lambda path, text: Call("write_file", {"file_path": "{root}/" + path, "content": text}),
        gemini_settings,
        "mcp_rewind_",
    ),
    "pi": Case(
        Pi,
        PI.program,
        lambda path, text: Call("write", {"path": path, "content": text}),
        pi_extension,
        "",
    ),
}


def offered(world: World, name: str) -> None:
    """Checks that the client told the model of the tool ``name`` (in its tools, or in the list
    of the tools it loads when asked, as Claude Code does for a server's tools)."""
    bodies = " ".join(json.dumps(request.body) for request in world.server.requests)
    last = world.runs[-1] if world.runs else None
    said = f"; it said: {last.stdout[-1500:]} {last.stderr[-1500:]}" if last else ""
    assert name in bodies, f"the client offered the model no {name}{said}"


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


def tool_results(world: World) -> dict[str, tuple[bool, str]]:
    """Claude Code's results of the tools it ran, by the tool's name: whether it was an error,
    and its text (the last result of each tool)."""
    names: dict[str, str] = {}
    results: dict[str, tuple[bool, str]] = {}
    for request in world.server.requests:
        for message in request.body.get("messages", []):
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_use":
                    names[block["id"]] = block["name"]
                elif block.get("type") == "tool_result" and block["tool_use_id"] in names:
                    text = json.dumps(block.get("content"))
                    results[names[block["tool_use_id"]]] = (bool(block.get("is_error")), text)
    return results


def test_claude_code_runs_the_read_tools_install_approved_and_asks_for_a_restore(
    make_world: MakeWorld,
) -> None:
    """Without --dangerously-skip-permissions, in -p, a tool nobody allowed is refused: the
    read tool runs (install allowed it in the project's settings), the restore does not
    (install never allows it)."""
    log, restore = "mcp__rewind__rewind_log", "mcp__rewind__rewind_restore"
    script = Script(
        [
            Prompt("Write the first draft", (calls(CASES["claude-code"].write("notes.md", "a")),)),
            Prompt(
                "What did you do, and put it back",
                (calls(Call(log, {})), calls(Call(restore, {"turn": "1"})), done("Asked.")),
            ),
        ]
    )
    # acceptEdits: the first prompt's Write needs no one; a server's tools follow the rules.
    world = make_world(ClaudeCode(CLAUDE_CODE.program(), permission_mode="acceptEdits"), script)
    claude_code_settings(world)
    # The folder trusted, as the first interactive start asks: until then Claude Code applies
    # none of the project's permission rules (read live from 2.1.332).
    config = world.home / ".claude.json"
    trusted = json.loads(config.read_text()) if config.exists() else {}
    trusted.setdefault("projects", {})[str(world.root)] = {"hasTrustDialogAccepted": True}
    config.write_text(json.dumps(trusted))
    session = world.prompt("Write the first draft")
    world.prompt("What did you do, and put it back", session)
    results = tool_results(world)
    assert log in results and restore in results, sorted(results)
    failed, text = results[log]
    assert not failed and re.search(r"undone\W+false", text), text
    failed, text = results[restore]
    assert failed and "permission" in text.lower(), text
    assert (world.root / "notes.md").read_text() == "a"
    assert "restore" not in [entry["kind"] for entry in world.log(session)]


def gemini_offered(world: World) -> set[str]:
    """The names of the functions Gemini CLI declared to the model, over all its requests."""
    return {
        declaration["name"]
        for request in world.server.requests
        for tool in request.body.get("tools", [])
        for declaration in tool.get("functionDeclarations", [])
    }


def gemini_responses(world: World) -> dict[str, str]:
    """The function responses Gemini CLI sent the model, by the function's name (as JSON)."""
    return {
        part["functionResponse"]["name"]: json.dumps(part["functionResponse"])
        for request in world.server.requests
        for content in request.body.get("contents", [])
        for part in content.get("parts", [])
        if "functionResponse" in part
    }


def test_gemini_runs_the_read_tools_install_allowed_and_never_offers_a_restore(
    make_world: MakeWorld,
) -> None:
    """Without --yolo, in -p, Gemini CLI offers the model only the tools a policy rule allows:
    the read tools (install's rule), not the tools that change files."""
    log = "mcp_rewind_rewind_log"
    script = Script(
        [
            Prompt("Say hello", (done("Hello."),)),
            Prompt("What did you do", (calls(Call(log, {})), done("This."))),
        ]
    )
    world = make_world(Gemini(GEMINI.program(), yolo=False), script)
    gemini_settings(world)
    session = world.prompt("Say hello")
    world.prompt("What did you do", session)
    offered_names = gemini_offered(world)
    assert {f"mcp_rewind_{tool}" for tool in READ_TOOLS} <= offered_names, offered_names
    assert not {f"mcp_rewind_{tool}" for tool in CHANGE_TOOLS} & offered_names, offered_names
    answered = gemini_responses(world)
    assert log in answered and re.search(r"undone\W+false|turn 1 \(", answered[log]), answered


def test_copilot_runs_the_read_tools_unasked_and_refuses_a_restore(make_world: MakeWorld) -> None:
    """Without --allow-all-tools, in -p, Copilot CLI runs a tool marked read-only and refuses
    one that would ask: nothing pre-approved in a file, the server's annotations decide."""
    log, restore = "rewind-rewind_log", "rewind-rewind_restore"
    script = Script(
        [
            Prompt("Say hello", (done("Hello."),)),
            Prompt(
                "What did you do, and put it back",
                (calls(Call(log, {})), calls(Call(restore, {"turn": "1"})), done("Asked.")),
            ),
        ]
    )
    world = make_world(Copilot(COPILOT.program(), allow_all=False), script)
    copilot_settings(world)
    session = world.prompt("Say hello")
    world.prompt("What did you do, and put it back", session)
    results = tool_results(world)
    assert log in results and restore in results, sorted(results)
    failed, text = results[log]
    assert not failed and re.search(r"undone\W+false|turn 1 \(", text), text
    failed, text = results[restore]
    # Not even the plan: the tool did not run, for want of the person's approval.
    assert "Permission denied" in text and "plan_id" not in text, text
    assert "restore" not in [entry["kind"] for entry in world.log(session)]


def test_opencode_runs_the_read_tools_install_allowed_and_refuses_a_restore(
    make_world: MakeWorld,
) -> None:
    """With the person's ``"permission": {"*": "ask"}``, ``opencode run`` refuses every call
    that would ask (no one is there to answer): the read tool runs (install allowed it), the
    restore does not (install never allows it)."""
    log, restore = "rewind_rewind_log", "rewind_rewind_restore"
    script = Script(
        [
            Prompt(
                "What did you do, and put it back",
                (calls(Call(log, {})), calls(Call(restore, {"turn": "1"})), done("Asked.")),
            ),
        ]
    )
    world = make_world(OpenCode(OPENCODE.program(), permission={"*": "ask"}), script)
    opencode_settings(world)
    session = world.prompt("What did you do, and put it back")
    calls_run = tool_calls(world.runs[-1])  # the run ended at the refusal: its own account
    assert calls_run.keys() == {log, restore}, calls_run
    status, text = calls_run[log]
    assert status == "completed" and re.search(r"undone\W+false|turn 1 \(", text), text
    status, text = calls_run[restore]
    assert status == "error" and "rejected permission" in text and "plan_id" not in text, text
    assert "restore" not in [entry["kind"] for entry in world.log(session)]
