"""The Codex CLI itself, from npm, driven by a scripted model: what rewind records of what the
real client does, prompt by prompt, resumed with ``codex exec resume`` as a person continues a
session.

Codex offers this provider's model ``exec_command`` (a command line, run by a shell) and, for a
model its catalog knows, the freeform ``apply_patch``; its hooks report both shells and patches
(``Bash``, ``apply_patch``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.clients.clients import CODEX
from tests.clients.codex import KNOWN_MODEL, UNKNOWN_MODEL, Codex
from tests.clients.conftest import MakeWorld
from tests.clients.model_server import Request
from tests.clients.scenario import Call, Prompt, Script, calls, done
from tests.clients.shared_scenarios import (
    check_programs_rewind,
    check_two_sessions_at_once,
    edit_by_hand_then_change_the_config,
    programs,
    two_at_once,
)


@pytest.fixture(scope="module")
def program() -> Any:
    return CODEX.program()


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


WORKING = Script(
    [
        Prompt(  # two new files, by two patches in one model message
            "Start the notes",
            (
                calls(patch(add("notes.txt", "one\ntwo\n")), patch(add("draft.txt", "draft\n"))),
                done(),
            ),
        ),
        Prompt(  # read, then patch
            "Polish the notes",
            (
                calls(shell("cat notes.txt")),
                calls(patch(update("notes.txt", "two", "TWO"))),
                done(),
            ),
        ),
        Prompt(
            "Tidy up with the shell",
            (
                calls(
                    shell(
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


def test_files_patched_and_changed_by_the_shell_rewind(make_world: MakeWorld, program: Any) -> None:
    world = make_world(Codex(program), WORKING)
    session = world.prompt("Start the notes")
    world.prompt("Polish the notes", session)
    world.prompt("Tidy up with the shell", session)
    assert offered(world.server.requests[0])["apply_patch"] == "custom"
    assert (world.root / "NOTES.txt").read_text() == "ONE\nTWO\nmore\n"
    assert not (world.root / "draft.txt").exists()
    world.check_every_turn_rewinds(
        session, ["Start the notes", "Polish the notes", "Tidy up with the shell"]
    )


FAILING = Script(
    [
        Prompt("Write the config", (calls(patch(add("config.ini", "a=1\n"))), done())),
        Prompt(
            "Try what fails",
            (
                calls(patch(update("config.ini", "missing", "x"))),  # no such line: refused
                calls(shell("echo half > half.txt; exit 3")),  # fails after writing a file
                calls(shell("rm config.ini")),  # refused by the person's exec policy
                done(),
            ),
        ),
        Prompt("Change the config", (calls(patch(update("config.ini", "a=1", "a=100"))), done())),
    ]
)
FORBID_RM = 'prefix_rule(pattern=["rm"], decision="forbidden")\n'


def test_failing_and_refused_calls_and_a_hand_edit_rewind(
    make_world: MakeWorld, program: Any
) -> None:
    world = make_world(Codex(program, rules=FORBID_RM), FAILING)
    session = world.prompt("Write the config")
    world.prompt("Try what fails", session)
    outputs = tool_outputs(world.server.requests)
    assert len(outputs) == 4, outputs
    assert "Failed to find expected lines" in outputs[1], outputs[1]
    assert "exited with code 3" in outputs[2], outputs[2]
    assert "rejected: policy forbids commands starting with `rm`" in outputs[3], outputs[3]
    assert (world.root / "half.txt").read_text() == "half\n"
    assert (world.root / "config.ini").read_text() == "a=1\n"
    edit_by_hand_then_change_the_config(world, session)
    changes = world.changes(session)
    assert changes == [
        {"config.ini": ("edit", "added")},
        # Codex calls the hooks before it checks a patch or its exec policy: the refused
        # patch and the refused rm leave config.ini in the turn, as it was.
        {"config.ini": ("edit", "unchanged"), "half.txt": ("shell", "added")},
        {"config.ini": ("external", "modified")},
        {"config.ini": ("edit", "modified")},
    ], changes
    world.check_every_turn_rewinds(
        session, ["Write the config", "Try what fails", "Change the config"], force=True
    )


def test_what_programs_change_rewinds_by_default(make_world: MakeWorld, program: Any) -> None:
    check_programs_rewind(make_world(Codex(program), programs(shell)))


TWO_AT_ONCE = two_at_once(
    lambda path, content: shell(f"echo {content.strip()} > {path}"),
    lambda path, old, new: shell(f"sed -i 's/{old}/{new}/' {path}"),
)


def test_two_sessions_at_once_in_one_project(make_world: MakeWorld, program: Any) -> None:
    check_two_sessions_at_once(make_world(Codex(program, model=UNKNOWN_MODEL), TWO_AT_ONCE))


THE_PATCH = (
    add("added.txt", "new\n"),
    update("notes.txt", "one", "ONE"),
    "*** Delete File: gone.txt\n",
    "*** Update File: old.txt\n*** Move to: moved.txt\n@@\n-a\n+A\n",
)
PATCHED = {  # what rewind's log says the patch did
    "added.txt": "added",
    "notes.txt": "modified",
    "gone.txt": "deleted",
    "old.txt": "deleted",
    "moved.txt": "added",
}
THROUGH_THE_SHELL = shell(f"apply_patch <<'PATCH'\n{patch_text(*THE_PATCH)}PATCH")
MAKE_THE_FILES = shell("echo one > notes.txt && echo a > old.txt && echo gone > gone.txt")


@pytest.mark.parametrize(
    ("model", "call"),
    [(KNOWN_MODEL, patch(*THE_PATCH)), (UNKNOWN_MODEL, THROUGH_THE_SHELL)],
    ids=["freeform-tool", "through-the-shell"],
)
def test_a_patch_that_adds_updates_deletes_and_moves_rewinds(
    make_world: MakeWorld, program: Any, model: str, call: Call
) -> None:
    """The same patch, by both ways Codex applies one. A model Codex knows calls its freeform
    ``apply_patch`` tool; a model it does not know has no such tool, and is told to run
    ``apply_patch`` in the shell: Codex intercepts that command and applies the patch itself,
    and its hooks see only a ``PreToolUse`` of ``Bash`` whose command is the heredoc (no
    ``PostToolUse``), so the files the patch names must be read off the command line."""
    script = Script(
        [
            Prompt("Make the files", (calls(MAKE_THE_FILES), done())),
            Prompt("Patch them", (calls(call), done())),
        ]
    )
    world = make_world(Codex(program, model=model), script)
    session = world.prompt("Make the files")
    world.prompt("Patch them", session)
    assert ("apply_patch" in offered(world.server.requests[0])) == (model == KNOWN_MODEL)
    assert "Success. Updated the following files" in tool_outputs(world.server.requests)[1]
    found = {path.name: path.read_text() for path in world.root.glob("*.txt")}
    assert found == {"added.txt": "new\n", "notes.txt": "ONE\n", "moved.txt": "A\n"}, found
    patched = {file["path"]: file["status"] for file in world.log(session)[1]["files"]}
    assert patched == PATCHED, patched
    world.check_every_turn_rewinds(session, ["Make the files", "Patch them"])


def offered(request: Request) -> dict[str, str]:
    """The tools the client offered the model in one request: each name and its type."""
    tools = request.body.get("tools") or []
    return {str(tool.get("name")): str(tool.get("type")) for tool in tools if tool.get("name")}


def tool_outputs(requests: list[Request]) -> list[str]:
    """The output of each tool call the client sent back to the model, in order, once each."""
    found: dict[str, str] = {}
    for request in requests:
        body = request.body if isinstance(request.body, dict) else {}
        for item in body.get("input") or []:
            if item.get("type") in ("function_call_output", "custom_tool_call_output"):
                found.setdefault(item["call_id"], str(item.get("output")))
    return list(found.values())
