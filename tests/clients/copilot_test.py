"""The GitHub Copilot CLI itself, from npm, driven by a scripted model: what rewind records of
what the real client does, prompt by prompt, resumed with ``--resume`` as a person continues a
session.

Copilot offers the model ``create``, ``edit`` and ``view`` (absolute paths) and ``bash`` (a
command line run in a persistent shell); its camelCase hooks name them so. A command that exits
non-zero is no failed call for it (``postToolUse``, the exit code in the result); a call its
permission rules refuse has a ``preToolUse`` and no event after it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.clients.claude_code_test import tool_results
from tests.clients.conftest import MakeWorld
from tests.clients.copilot import Copilot, unpacked_program
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
    return unpacked_program()


def create(path: str, content: str) -> Call:
    return Call("create", {"path": "{root}/" + path, "file_text": content})


def edit(path: str, old: str, new: str) -> Call:
    return Call("edit", {"path": "{root}/" + path, "old_str": old, "new_str": new})


def bash(command: str) -> Call:
    return Call("bash", {"command": command, "description": "run"})


WORKING = Script(
    [
        Prompt(  # a new file, and two tool calls in one model message
            "Start the notes",
            (calls(create("notes.txt", "one\ntwo\n"), create("draft.txt", "draft\n")), done()),
        ),
        Prompt(  # read, then edit
            "Polish the notes",
            (
                calls(Call("view", {"path": "{root}/notes.txt"})),
                calls(edit("notes.txt", "two", "TWO")),
                done(),
            ),
        ),
        Prompt(
            "Tidy up with the shell",
            (
                calls(
                    bash(
                        "rm draft.txt && mv notes.txt NOTES.txt && sed -i 's/one/ONE/' NOTES.txt"
                        " && echo new > made.txt && echo more >> NOTES.txt"
                        " && printf '#!/bin/sh\\n' > run.sh && chmod +x run.sh"
                    )
                ),
                done(),
            ),
        ),
    ]
)


def test_files_created_edited_and_changed_by_the_shell_rewind(
    make_world: MakeWorld, program: Any
) -> None:
    world = make_world(Copilot(program), WORKING)
    session = world.prompt("Start the notes")
    world.prompt("Polish the notes", session)
    world.prompt("Tidy up with the shell", session)
    offered = {tool["name"] for tool in world.server.requests[0].body["tools"]}
    assert {"create", "edit", "view", "bash"} <= offered, offered
    assert (world.root / "NOTES.txt").read_text() == "ONE\nTWO\nmore\n"
    assert not (world.root / "draft.txt").exists()
    world.check_every_turn_rewinds(
        session, ["Start the notes", "Polish the notes", "Tidy up with the shell"]
    )


FAILING = Script(
    [
        Prompt("Write the config", (calls(create("config.ini", "a=1\n")), done())),
        Prompt(
            "Try what fails",
            (
                calls(edit("config.ini", "missing", "x")),  # the client refuses: no such text
                calls(bash("echo half > half.txt; exit 3")),  # fails after writing a file
                calls(bash("rm config.ini")),  # refused by the person's --deny-tool
                calls(create("secret.txt", "secret\n")),  # refused by the person's --deny-tool
                done(),
            ),
        ),
        Prompt("Change the config", (calls(edit("config.ini", "a=1", "a=100")), done())),
    ]
)


def test_failing_and_refused_calls_and_a_hand_edit_rewind(
    make_world: MakeWorld, program: Any
) -> None:
    world = make_world(Copilot(program, deny=("shell(rm)", "write(secret.txt)")), FAILING)
    session = world.prompt("Write the config")
    world.prompt("Try what fails", session)
    results = [result["content"] for result in tool_results(world.server.requests)]
    assert len(results) == 5, results
    assert results[1].startswith("No match found: old_str not found"), results[1]
    assert "completed with exit code 3" in results[2], results[2]
    assert "denied due to the following rules: `shell(rm)`" in results[3], results[3]
    assert "denied due to the following rules: `write(secret.txt)`" in results[4], results[4]
    assert (world.root / "half.txt").read_text() == "half\n"
    assert (world.root / "config.ini").read_text() == "a=1\n"
    assert not (world.root / "secret.txt").exists()
    edit_by_hand_then_change_the_config(world, session)
    changes = world.changes(session)
    # Copilot runs the preToolUse hooks before it checks its permission rules: the refused
    # rm and create leave config.ini and secret.txt in the turn, as they were.
    assert changes == HOOKED_BEFORE_THE_CHECK, changes
    world.check_every_turn_rewinds(
        session, ["Write the config", "Try what fails", "Change the config"], force=True
    )


def test_what_programs_change_rewinds_by_default(make_world: MakeWorld, program: Any) -> None:
    check_programs_rewind(make_world(Copilot(program), programs(bash)))


TWO_AT_ONCE = two_at_once(create, edit)


def test_two_sessions_at_once_in_one_project(make_world: MakeWorld, program: Any) -> None:
    check_two_sessions_at_once(make_world(Copilot(program), TWO_AT_ONCE))


def test_hooks_load_only_where_copilot_reads_trust(make_world: MakeWorld, program: Any) -> None:
    """The folder listed in ``trustedFolders`` of ``settings.json`` instead of ``config.json``:
    Copilot runs the prompt and the tool, but loads no repository hook, so nothing is recorded;
    ``rewind doctor`` must say so rather than tell the person the hooks run."""
    script = Script([Prompt("Untrusted: write a.txt", (calls(create("a.txt", "a\n")), done()))])
    world = make_world(Copilot(program, trust_file="settings.json"), script)
    world.prompt("Untrusted: write a.txt")
    assert (world.root / "a.txt").read_text() == "a\n"
    assert world.log() == []
    [trust] = [
        line
        for line in world.ok("doctor").splitlines()
        if line.split()[1:3] == ["copilot", "project"] and "trustedFolders" in line
    ]
    assert trust.startswith("warn") and "reads trustedFolders only from config.json" in trust
