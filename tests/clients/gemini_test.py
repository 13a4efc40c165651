"""Gemini CLI itself, from npm, driven by a scripted model: what rewind records of what the
real client does, prompt by prompt, resumed with ``--resume`` as a person continues a session."""

from __future__ import annotations

from typing import Any

import pytest

from tests.clients.clients import GEMINI
from tests.clients.conftest import MakeWorld
from tests.clients.gemini import Gemini
from tests.clients.scenario import Call, Prompt, Script, calls, done
from tests.clients.shared_scenarios import (
    HOOKED_BEFORE_THE_CHECK,
    check_programs_rewind,
    check_two_sessions_at_once,
    edit_by_hand_then_change_the_config,
    programs,
    two_at_once,
)


@pytest.fixture(scope="module")
def program() -> Any:
    return GEMINI.program()


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


def shell(command: str) -> Call:
    return Call("run_shell_command", {"command": command, "description": "run"})


WORKING = Script(
    [
        Prompt(  # a new file, and two tool calls in one model message
            "Start the notes",
            (calls(write("notes.txt", "one\ntwo\n"), write("draft.txt", "draft\n")), done()),
        ),
        Prompt(  # read, then edit
            "Polish the notes",
            (
                calls(Call("read_file", {"file_path": "{root}/notes.txt"})),
                calls(replace("notes.txt", "two", "TWO")),
                done(),
            ),
        ),
        Prompt(  # two shell calls in one message: Gemini may run them at once
            "Tidy up with the shell",
            (
                calls(
                    shell(
                        "rm draft.txt && mv notes.txt NOTES.txt && sed -i 's/one/ONE/' NOTES.txt"
                        " && echo new > made.txt && echo more >> NOTES.txt"
                    ),
                    shell("printf '#!/bin/sh\\n' > run.sh && chmod +x run.sh"),
                ),
                done(),
            ),
        ),
    ]
)


def test_files_written_edited_and_changed_by_the_shell_rewind(
    make_world: MakeWorld, program: Any
) -> None:
    world = make_world(Gemini(program), WORKING)
    session = world.prompt("Start the notes")
    world.prompt("Polish the notes", session)
    world.prompt("Tidy up with the shell", session)
    assert (world.root / "NOTES.txt").read_text() == "ONE\nTWO\nmore\n"
    assert not (world.root / "draft.txt").exists()
    assert all(result["error"] is None for result in tool_results(world.server.requests))
    world.check_every_turn_rewinds(
        session, ["Start the notes", "Polish the notes", "Tidy up with the shell"]
    )


FAILING = Script(
    [
        Prompt("Write the config", (calls(write("config.ini", "a=1\n")), done())),
        Prompt(
            "Try what fails",
            (
                calls(replace("config.ini", "missing", "x")),  # the client refuses: no such text
                calls(shell("echo half > half.txt; exit 3")),  # fails after writing a file
                calls(write("secret.txt", "secret\n")),  # refused by the person's policy
                done(),
            ),
        ),
        Prompt("Change the config", (calls(replace("config.ini", "a=1", "a=100")), done())),
    ]
)


def test_failing_and_refused_calls_and_a_hand_edit_rewind(
    make_world: MakeWorld, program: Any
) -> None:
    world = make_world(Gemini(program, deny=(("write_file", "secret\\.txt"),)), FAILING)
    session = world.prompt("Write the config")
    world.prompt("Try what fails", session)
    results = tool_results(world.server.requests)
    assert [result["name"] for result in results] == [
        "write_file",
        "replace",
        "run_shell_command",
        "write_file",
    ], results
    assert "Could not find" in results[1]["error"], results[1]
    assert "Exit Code: 3" in results[2]["response"]["output"], results[2]  # not an error
    assert "denied by policy" in results[3]["error"], results[3]
    assert (world.root / "half.txt").read_text() == "half\n"
    assert not (world.root / "secret.txt").exists()
    edit_by_hand_then_change_the_config(world, session)
    changes = world.changes(session)
    # Gemini runs BeforeTool for a call that then fails, or that its policy denies (Claude Code
    # runs no hook for either): rewind records those files, unchanged.
    assert changes == HOOKED_BEFORE_THE_CHECK, changes
    world.check_every_turn_rewinds(
        session, ["Write the config", "Try what fails", "Change the config"], force=True
    )


def test_what_programs_change_rewinds_by_default(make_world: MakeWorld, program: Any) -> None:
    check_programs_rewind(make_world(Gemini(program), programs(shell)))


TWO_AT_ONCE = two_at_once(write, replace)


def test_two_sessions_at_once_in_one_project(make_world: MakeWorld, program: Any) -> None:
    check_two_sessions_at_once(make_world(Gemini(program), TWO_AT_ONCE))


def tool_results(requests: list[Any]) -> list[dict[str, Any]]:
    """The tool results the client sent back to the model in its turns, in order, once each
    (a resumed session's history holds each result twice, under the same id; the router's
    requests rename the ids): ``{"name", "response", "error"}``, ``error`` the client's error
    text or None."""
    found: dict[str, dict[str, Any]] = {}
    for request in requests:
        body = request.body if isinstance(request.body, dict) else {}
        if not body.get("tools"):
            continue
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                result = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(result, dict):
                    response = result.get("response") or {}
                    found.setdefault(
                        str(result.get("id")),
                        {
                            "name": result.get("name"),
                            "response": response,
                            "error": response.get("error"),
                        },
                    )
    return list(found.values())
