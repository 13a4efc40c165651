"""Pi itself, from npm, driven by a scripted model: what rewind records of what the real client
does. The scenarios every client runs are in scenarios_test.py; here, Pi's own: rewind's
extension installed in both of the folders Pi loads extensions from (Pi loads it twice), and a
session continued with ``-c``, as a person continues the last one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients.clients import PI
from tests.clients.conftest import MakeWorld
from tests.clients.pi import Pi, edit, write
from tests.clients.scenario import Prompt, Script, calls, done


@pytest.fixture(scope="module")
def program() -> Path:
    return PI.program()


def test_installed_twice_each_event_is_recorded_once_and_c_continues(
    make_world: MakeWorld, program: Path
) -> None:
    prompts = ["Write the plan", "Sharpen the plan"]
    script = Script(
        [
            Prompt(prompts[0], (calls(write("plan.txt", "draft\n")), done())),
            Prompt(prompts[1], (calls(edit("plan.txt", "draft", "final")), done())),
        ]
    )
    world = make_world(Pi(program, continued=True), script)
    installed = world.ok("install", "pi", "--user")  # the project's is there already
    assert "uninstall one of them" in installed, installed
    session = world.prompt(prompts[0])
    assert world.prompt(prompts[1], session) == session  # -c: the same session
    assert (world.root / "plan.txt").read_text() == "final\n"
    assert world.changes(session) == [
        {"plan.txt": ("edit", "added")},
        {"plan.txt": ("edit", "modified")},
    ]
    # One call of 'rewind hook pi' per event: the session's start, the prompt, the call before
    # and after, the run's end and the session's, for each of the two runs of Pi (in the
    # order they ended: Pi does not wait for the run's end before the session's). Loaded twice
    # without its guard, the extension would also register its tools twice, which Pi refuses.
    [calls_log] = world.home.glob("rewind-home/**/hook-calls.log")
    lines = [line.split() for line in calls_log.read_text().splitlines()]
    events = [word.removeprefix("event=") for line in lines for word in line if "event=" in word]
    once = ["session_start", "prompt", "tool_call", "tool_result", "agent_end", "session_shutdown"]
    assert sorted(events) == sorted(once * 2), events
    world.check_every_turn_rewinds(session, prompts)
    for scope in ("--user", "--project"):
        world.ok("uninstall", "pi", scope)
    assert not (world.home / ".pi" / "agent" / "extensions").exists()
    assert not (world.root / ".pi").exists()
