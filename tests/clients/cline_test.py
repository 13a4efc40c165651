"""The Cline CLI itself, from npm, driven by a scripted model: what rewind records of what the
real client does, prompt by prompt, in a session ``cline --acp`` holds open as an editor drives
it. The scenarios every client runs are in scenarios_test.py; here, Cline's own.

Cline offers this provider's model ``editor`` (creates a file, or replaces one exact text),
``read_files`` and ``run_commands`` (command lines, run by a shell from the workspace's root);
its hooks report all three (``tool_call``/``tool_result``)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.clients.clients import CLINE
from tests.clients.cline import Cline, ClineOneShot, held, write
from tests.clients.conftest import MakeWorld
from tests.clients.scenario import Call, Prompt, Script, calls, done


@pytest.fixture(scope="module")
def program() -> Any:
    return CLINE.program()


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
