"""Each client as the common scenarios (tests/clients/scenarios_test.py) run it: its program,
its tool calls, how the person's rules make it refuse a call, and what it alone is checked for
(what it offers the model, what it answers a call that failed, what rewind records of a call it
runs its hooks for before it checks it)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.clients import (
    anthropic,
    claude_code,
    cline,
    codex,
    copilot,
    droid,
    gemini,
    gemini_api,
    openai_responses,
    opencode,
    pi,
    qwen,
)
from tests.clients.claude_code import ClaudeCode
from tests.clients.clients import CLAUDE_CODE, CLINE, CODEX, DROID, GEMINI, OPENCODE, PI, QWEN
from tests.clients.cline import Cline, held
from tests.clients.copilot import Copilot, unpacked_program
from tests.clients.gemini import Gemini
from tests.clients.opencode import OpenCode
from tests.clients.pi import Pi
from tests.clients.scenario import Call, Tools
from tests.clients.shared_scenarios import HOOKED_BEFORE_THE_CHECK
from tests.clients.world import AnyClient, World


def nothing_more(world: World) -> None:
    """No check of the client's own beyond the scenario's."""


@dataclass(frozen=True)
class Driver:
    """One client in the common scenarios."""

    program: Callable[[], Path]  # the client's program, installed from npm
    client: Callable[[Path], AnyClient]  # the client as a person runs it
    tools: Tools
    # The failing scenario: the calls the person's rules refuse, the client with those rules,
    # the check of its answers to the calls that failed (given the session), and of what
    # rewind recorded of the session.
    refused: tuple[Call, ...]
    refusing: Callable[[Path], AnyClient]
    answers: Callable[[World, str], None]
    recorded: Callable[[World, str], None]
    offered: Callable[[World], None] = nothing_more  # more checks of the working session
    shells_at_once: bool = False  # the working session's shell part: two calls in one message
    # The client and tools of two sessions at once, when not the person's and the usual.
    two_at_once: tuple[Callable[[Path], AnyClient], Tools] | None = field(default=None)


def changes_are(expected: list[dict[str, tuple[str, str]]]) -> Callable[[World, str], None]:
    """The check that rewind recorded ``expected`` of the failing session (``World.changes``)."""

    def check(world: World, session: str) -> None:
        changes = world.changes(session)
        assert changes == expected, (changes, world.ok("log", "--session", session))

    return check


# Claude Code ------------------------------------------------------------------------------------


def claude_code_answers(world: World, session: str) -> None:
    results = anthropic.tool_results(world.server.requests)
    assert len(results) == 4 and all(result.get("is_error") for result in results[1:]), results


def claude_code_recorded(world: World, session: str) -> None:
    """Claude Code runs no hook for a call that fails or that its rules refuse."""
    sources = [{file["source"] for file in entry["files"]} for entry in world.log(session)]
    assert sources == [{"edit"}, {"shell"}, {"external"}, {"edit"}], sources


CLAUDE_CODE_DRIVER = Driver(
    program=CLAUDE_CODE.program,
    client=ClaudeCode,
    tools=claude_code.TOOLS,
    refused=(claude_code.write("secret.txt", "secret\n"),),
    refusing=lambda program: ClaudeCode(program, deny=("Edit(**/secret.txt)",)),
    answers=claude_code_answers,
    recorded=claude_code_recorded,
)


# Codex ------------------------------------------------------------------------------------------


def codex_offered(world: World) -> None:
    assert openai_responses.tools_offered(world.server.requests[0])["apply_patch"] == "custom"


def codex_answers(world: World, session: str) -> None:
    outputs = openai_responses.tool_outputs(world.server.requests)
    assert len(outputs) == 4, outputs
    assert "Failed to find expected lines" in outputs[1], outputs[1]
    assert "exited with code 3" in outputs[2], outputs[2]
    assert "rejected: policy forbids commands starting with `rm`" in outputs[3], outputs[3]


CODEX_DRIVER = Driver(
    program=CODEX.program,
    client=codex.Codex,
    tools=codex.TOOLS,
    refused=(codex.shell("rm config.ini"),),  # refused by the person's exec policy
    refusing=lambda program: codex.Codex(
        program, rules='prefix_rule(pattern=["rm"], decision="forbidden")\n'
    ),
    answers=codex_answers,
    # Codex calls the hooks before it checks a patch or its exec policy: the refused patch and
    # the refused rm leave config.ini in the turn, as it was.
    recorded=changes_are(
        [
            {"config.ini": ("edit", "added")},
            {"config.ini": ("edit", "unchanged"), "half.txt": ("shell", "added")},
            {"config.ini": ("external", "modified")},
            {"config.ini": ("edit", "modified")},
        ]
    ),
    offered=codex_offered,
    two_at_once=(
        lambda program: codex.Codex(program, model=codex.UNKNOWN_MODEL),
        codex.SHELL_TOOLS,
    ),
)


# Gemini CLI -------------------------------------------------------------------------------------


def gemini_offered(world: World) -> None:
    assert all(result["error"] is None for result in gemini_api.tool_results(world.server.requests))


def gemini_answers(world: World, session: str) -> None:
    results = gemini_api.tool_results(world.server.requests)
    names = [result["name"] for result in results]
    assert names == ["write_file", "replace", "run_shell_command", "write_file"], results
    assert "Could not find" in results[1]["error"], results[1]
    assert "Exit Code: 3" in results[2]["response"]["output"], results[2]  # not an error
    assert "denied by policy" in results[3]["error"], results[3]


GEMINI_DRIVER = Driver(
    program=GEMINI.program,
    client=Gemini,
    tools=gemini.TOOLS,
    refused=(gemini.write("secret.txt", "secret\n"),),
    refusing=lambda program: Gemini(program, deny=(("write_file", "secret\\.txt"),)),
    answers=gemini_answers,
    # Gemini runs BeforeTool for a call that then fails, or that its policy denies (Claude Code
    # runs no hook for either): rewind records those files, unchanged.
    recorded=changes_are(HOOKED_BEFORE_THE_CHECK),
    offered=gemini_offered,
    shells_at_once=True,  # Gemini may run two shell calls of one message at once
)


# GitHub Copilot CLI -----------------------------------------------------------------------------


def copilot_offered(world: World) -> None:
    offered = {tool["name"] for tool in world.server.requests[0].body["tools"]}
    assert {"create", "edit", "view", "bash"} <= offered, offered


def copilot_answers(world: World, session: str) -> None:
    results = [result["content"] for result in anthropic.tool_results(world.server.requests)]
    assert len(results) == 5, results
    assert results[1].startswith("No match found: old_str not found"), results[1]
    assert "completed with exit code 3" in results[2], results[2]
    assert "denied due to the following rules: `shell(rm)`" in results[3], results[3]
    assert "denied due to the following rules: `write(secret.txt)`" in results[4], results[4]


COPILOT_DRIVER = Driver(
    program=unpacked_program,
    client=Copilot,
    tools=copilot.TOOLS,
    refused=(copilot.bash("rm config.ini"), copilot.create("secret.txt", "secret\n")),
    refusing=lambda program: Copilot(program, deny=("shell(rm)", "write(secret.txt)")),
    answers=copilot_answers,
    # Copilot runs the preToolUse hooks before it checks its permission rules: the refused rm
    # and create leave config.ini and secret.txt in the turn, as they were.
    recorded=changes_are(HOOKED_BEFORE_THE_CHECK),
    offered=copilot_offered,
)


# Cline ------------------------------------------------------------------------------------------


def refuse_secrets(call: dict[str, Any]) -> bool:
    """The person's answer when Cline asks to run a tool call: no to anything on secret.txt."""
    return "secret.txt" in str(call.get("rawInput"))


def cline_answers(world: World, session: str) -> None:
    answers = [choice for call, choice in held(world, session).agent.permissions]
    assert answers == ["allow_once"] * 3 + ["reject_once"], answers
    outputs = held(world, session).tool_outputs()
    assert len(outputs) == 4, outputs
    assert "No replacement performed: text not found" in outputs[1], outputs[1]
    assert "Command exited with code 3" in outputs[2], outputs[2]
    assert "User rejected the tool call" in outputs[3], outputs[3]


CLINE_DRIVER = Driver(
    program=CLINE.program,
    client=Cline,
    tools=cline.TOOLS,
    refused=(cline.write("secret.txt", "secret\n"),),  # refused by the person
    refusing=lambda program: Cline(program, refuse=refuse_secrets),
    answers=cline_answers,
    # Cline runs the PreToolUse hook before it tries an edit or asks the person: the edit it
    # could not make and the one the person refused are in the turn, unchanged.
    recorded=changes_are(HOOKED_BEFORE_THE_CHECK),
)


# Pi ---------------------------------------------------------------------------------------------


def pi_answers(world: World, session: str) -> None:
    results = anthropic.tool_results(world.server.requests)
    assert len(results) == 4 and all(result.get("is_error") for result in results[1:]), results
    texts = [json.dumps(result.get("content")) for result in results]
    assert "Could not find" in texts[1], texts[1]
    assert "exited with code 3" in texts[2], texts[2]
    assert "The person refuses anything on secret.txt" in texts[3], texts[3]


PI_DRIVER = Driver(
    program=PI.program,
    client=Pi,
    tools=pi.TOOLS,
    refused=(pi.write("secret.txt", "secret\n"),),  # refused by the person's own extension
    refusing=lambda program: Pi(program, gate=True),
    answers=pi_answers,
    # rewind's extension (the project's, loaded first) records a call before the person's
    # extension refuses it, and before Pi finds an edit's text missing.
    recorded=changes_are(HOOKED_BEFORE_THE_CHECK),
)


# Qwen Code --------------------------------------------------------------------------------------


def qwen_answers(world: World, session: str) -> None:
    results = qwen.tool_results(world.server)
    assert len(results) == 5, results  # the write, the read before the edit, then the three
    assert "0 occurrences found for old_string" in results[2], results[2]
    assert "Exit Code: 3" in results[3], results[3]
    assert 'denied by permission rules. Matching deny rule: \\"Write(secret.txt)' in results[4]


QWEN_DRIVER = Driver(
    program=QWEN.program,
    client=qwen.Qwen,
    tools=qwen.TOOLS,
    refused=(qwen.write("secret.txt", "secret\n"),),
    refusing=lambda program: qwen.Qwen(program, deny=("Write(secret.txt)",)),
    answers=qwen_answers,
    # Qwen checks its permission rules before PreToolUse (the refused write leaves nothing in
    # the turn), and runs it before the edit fails (config.ini is there, unchanged).
    recorded=changes_are(
        [
            {"config.ini": ("edit", "added")},
            {"config.ini": ("edit", "unchanged"), "half.txt": ("shell", "added")},
            {"config.ini": ("external", "modified")},
            {"config.ini": ("edit", "modified")},
        ]
    ),
)


# Droid ------------------------------------------------------------------------------------------


def droid_answers(world: World, session: str) -> None:
    results = [result["content"] for result in anthropic.tool_results(world.server.requests)]
    assert len(results) == 4, results
    assert "The text to replace was not found in the file" in results[1], results[1]
    assert "Command failed (exit code: 3)" in results[2], results[2]
    assert 'command "rm config.ini" requires confirmation' in results[3], results[3]


DROID_DRIVER = Driver(
    program=DROID.program,
    client=droid.Droid,
    tools=droid.TOOLS,
    refused=(droid.shell("rm config.ini"),),  # refused by the person's commandDenylist
    refusing=lambda program: droid.Droid(program, deny=("rm config.ini",)),
    answers=droid_answers,
    # Droid runs PreToolUse before an edit fails and before it checks its denylist: the edit
    # and the refused rm leave config.ini in the turn, unchanged; neither sends PostToolUse.
    recorded=changes_are(
        [
            {"config.ini": ("edit", "added")},
            {"config.ini": ("edit", "unchanged"), "half.txt": ("shell", "added")},
            {"config.ini": ("external", "modified")},
            {"config.ini": ("edit", "modified")},
        ]
    ),
)


# OpenCode ---------------------------------------------------------------------------------------


def opencode_answers(world: World, session: str) -> None:
    results = anthropic.tool_results(world.server.requests)
    texts = [json.dumps(result.get("content")) for result in results]
    assert len(results) == 4, texts
    assert "Could not find oldString in the file" in texts[1], texts[1]
    assert texts[2] == '"(no output)"', texts[2]  # exit 3 is a result, not an error
    assert "a rule which prevents you from using this specific tool call" in texts[3], texts[3]


OPENCODE_DRIVER = Driver(
    program=OPENCODE.program,
    client=OpenCode,
    tools=opencode.TOOLS,
    refused=(opencode.write("secret.txt", "secret\n"),),  # refused by the person's rules
    refusing=lambda program: OpenCode(program, permission=opencode.DENY_SECRETS),
    answers=opencode_answers,
    # The plugin's before-hook runs before OpenCode tries an edit or checks its permissions:
    # the edit that failed and the one the rules refused are in the turn, unchanged.
    recorded=changes_are(HOOKED_BEFORE_THE_CHECK),
    shells_at_once=True,  # OpenCode runs the calls of one message at once
    # Started once before: two first starts of OpenCode 1.18.33 at once both make its database,
    # and one of them fails.
    two_at_once=(lambda program: OpenCode(program, started=True), opencode.TOOLS),
)


DRIVERS = {
    "claude-code": CLAUDE_CODE_DRIVER,
    "codex": CODEX_DRIVER,
    "gemini": GEMINI_DRIVER,
    "copilot": COPILOT_DRIVER,
    "cline": CLINE_DRIVER,
    "pi": PI_DRIVER,
    "qwen": QWEN_DRIVER,
    "droid": DROID_DRIVER,
    "opencode": OPENCODE_DRIVER,
}
