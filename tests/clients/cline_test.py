"""The Cline CLI itself, from npm, driven by a scripted model: what rewind records of what the
real client does, prompt by prompt, in a session ``cline --acp`` holds open as an editor drives
it.

Cline offers this provider's model ``editor`` (creates a file, or replaces one exact text),
``read_files`` and ``run_commands`` (command lines, run by a shell from the workspace's root);
its hooks report all three (``tool_call``/``tool_result``)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.clients.clients import CLINE
from tests.clients.cline import Cline, ClineOneShot, ClineSession
from tests.clients.conftest import MakeWorld
from tests.clients.scenario import Call, Prompt, Script, calls, done
from tests.clients.shared_scenarios import (
    HOOKED_BEFORE_THE_CHECK,
    check_programs_rewind,
    check_two_sessions_at_once,
    edit_by_hand_then_change_the_config,
    programs,
    two_at_once,
)
from tests.clients.world import World


@pytest.fixture(scope="module")
def program() -> Any:
    return CLINE.program()


def write(path: str, content: str) -> Call:
    return Call("editor", {"path": "{root}/" + path, "new_text": content})


def edit(path: str, old: str, new: str) -> Call:
    return Call("editor", {"path": "{root}/" + path, "old_text": old, "new_text": new})


def shell(command: str) -> Call:
    return Call("run_commands", {"commands": [command]})


WORKING = Script(
    [
        Prompt(  # a new file, and two tool calls in one model message
            "Start the notes",
            (calls(write("notes.txt", "one\ntwo\n"), write("draft.txt", "draft\n")), done()),
        ),
        Prompt(  # read, then edit
            "Polish the notes",
            (
                calls(Call("read_files", {"files": [{"path": "{root}/notes.txt"}]})),
                calls(edit("notes.txt", "two", "TWO")),
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


def test_files_edited_and_changed_by_the_shell_rewind(make_world: MakeWorld, program: Any) -> None:
    world = make_world(Cline(program), WORKING)
    session = world.prompt("Start the notes")
    world.prompt("Polish the notes", session)
    world.prompt("Tidy up with the shell", session)
    assert (world.root / "NOTES.txt").read_text() == "ONE\nTWO\nmore\n"
    assert not (world.root / "draft.txt").exists()
    world.check_every_turn_rewinds(
        session, ["Start the notes", "Polish the notes", "Tidy up with the shell"]
    )


FAILING = Script(
    [
        Prompt("Write the config", (calls(write("config.ini", "a=1\n")), done())),
        Prompt(
            "Try what fails",
            (
                calls(edit("config.ini", "missing", "x")),  # the client refuses: no such text
                calls(shell("echo half > half.txt; exit 3")),  # fails after writing a file
                calls(write("secret.txt", "secret\n")),  # refused by the person
                done(),
            ),
        ),
        Prompt("Change the config", (calls(edit("config.ini", "a=1", "a=100")), done())),
    ]
)


def refuse_secrets(call: dict[str, Any]) -> bool:
    """The person's answer when Cline asks to run a tool call: no to anything on secret.txt."""
    return "secret.txt" in str(call.get("rawInput"))


def test_failing_and_refused_calls_and_a_hand_edit_rewind(
    make_world: MakeWorld, program: Any
) -> None:
    world = make_world(Cline(program, refuse=refuse_secrets), FAILING)
    session = world.prompt("Write the config")
    world.prompt("Try what fails", session)
    answers = [choice for call, choice in held(world, session).agent.permissions]
    assert answers == ["allow_once"] * 3 + ["reject_once"], answers
    outputs = held(world, session).tool_outputs()
    assert len(outputs) == 4, outputs
    assert "No replacement performed: text not found" in outputs[1], outputs[1]
    assert "Command exited with code 3" in outputs[2], outputs[2]
    assert "User rejected the tool call" in outputs[3], outputs[3]
    assert (world.root / "half.txt").read_text() == "half\n"
    assert not (world.root / "secret.txt").exists()
    edit_by_hand_then_change_the_config(world, session)
    changes = world.changes(session)
    # Cline runs the PreToolUse hook before it tries an edit or asks the person: the edit
    # it could not make and the one the person refused are in the turn, unchanged.
    assert changes == HOOKED_BEFORE_THE_CHECK, changes
    world.check_every_turn_rewinds(
        session, ["Write the config", "Try what fails", "Change the config"], force=True
    )


def test_what_programs_change_rewinds_by_default(make_world: MakeWorld, program: Any) -> None:
    check_programs_rewind(make_world(Cline(program), programs(shell)))


TWO_AT_ONCE = two_at_once(write, edit)


def test_two_sessions_at_once_in_one_project(make_world: MakeWorld, program: Any) -> None:
    check_two_sessions_at_once(make_world(Cline(program), TWO_AT_ONCE))


def test_one_prompt_of_cline_json_is_a_turn_named_after_it(
    make_world: MakeWorld, program: Any
) -> None:
    """``cline --json PROMPT``, the headless run of one prompt: its session is that one turn,
    named from Cline's session file once the run's end hook (which outlives the process) ran."""
    prompt = "Write the note"
    script = Script([Prompt(prompt, (calls(write("note.txt", "note\n")), done()))])
    world = make_world(ClineOneShot(program), script)
    session = world.prompt(prompt)
    deadline = time.monotonic() + 30
    while not world.log(session)[-1]["ended"] and time.monotonic() < deadline:
        time.sleep(0.1)
    world.check_every_turn_rewinds(session, [prompt])


def patch(path: str, old: str, new: str) -> Call:
    """``apply_patch``, the one file tool of the model a loaded session runs with."""
    hunk = f"*** Update File: {path}\n@@\n-{old}\n+{new}\n"
    return Call("apply_patch", {"input": f"*** Begin Patch\n{hunk}*** End Patch\n"})


RESUMED = Script(
    [
        Prompt("Start the notes", (calls(write("notes.txt", "one\ntwo\n")), done())),
        Prompt("Finish the notes", (calls(patch("notes.txt", "two", "TWO")), done())),
    ]
)


def test_a_session_resumed_in_a_new_process_goes_on_in_its_rewind_session(
    make_world: MakeWorld, program: Any
) -> None:
    """The editor closes Cline, then loads the session again (ACP's ``session/load``) in a new
    process. Cline's ``taskId`` is new in every process (``conv_...``, the agent's
    conversation): keyed on it, the resumed prompt began a rewind session of its own. The
    session's id, ``sessionContext.rootSessionId``, stays."""
    client = Cline(program)
    world = make_world(client, RESUMED)
    session = world.prompt("Start the notes")
    held(world, session).close()
    world.held[session] = client.load_session(world, session)
    assert world.prompt("Finish the notes", session) == session
    assert (world.root / "notes.txt").read_text() == "one\nTWO\n"
    assert len(held(world, session).task_ids()) == 2  # one per process
    listed = [line for line in world.ok("sessions").splitlines() if "cline" in line]
    assert len(listed) == 1 and session in listed[0] and "2 entries" in listed[0], listed
    world.check_every_turn_rewinds(session, ["Start the notes", "Finish the notes"])


def held(world: World, session: str) -> ClineSession:
    found = world.held[session]
    assert isinstance(found, ClineSession)
    return found
