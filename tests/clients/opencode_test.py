"""OpenCode itself, from npm, driven by a scripted model: what only it does. The scenarios every
client runs are in scenarios_test.py, its resume in resume_test.py, its MCP server in
mcp_test.py; here, a subagent (the ``task`` tool), whose own session's calls rewind's plugin
records in the turn of the person's prompt."""

from __future__ import annotations

from tests.clients.clients import OPENCODE
from tests.clients.conftest import MakeWorld
from tests.clients.opencode import OpenCode, write
from tests.clients.scenario import Call, Prompt, Script, calls, done

DELEGATE, SUBTASK = "Delegate the notes", "Subagent writes the notes"


def test_a_subagents_edits_are_in_the_turn_of_the_prompt_that_started_it(
    make_world: MakeWorld,
) -> None:
    task = Call("task", {"description": "notes", "prompt": SUBTASK, "subagent_type": "general"})
    script = Script(
        [
            Prompt(DELEGATE, (calls(task), done())),
            Prompt(SUBTASK, (calls(write("notes.txt", "by the subagent\n")), done())),
        ]
    )
    world = make_world(OpenCode(OPENCODE.program()), script)
    session = world.prompt(DELEGATE)
    assert (world.root / "notes.txt").read_text() == "by the subagent\n"
    assert world.ok("sessions", "--ids").split() == [session]  # none of the subagent's own
    assert world.changes(session) == [{"notes.txt": ("edit", "added")}]
    world.check_every_turn_rewinds(session, [DELEGATE])
