"""Pi itself, from npm, driven by a scripted model: what rewind records of what the real client
does. The scenarios every client runs are in scenarios_test.py; here, Pi's own: rewind's
extension installed in both of the folders Pi loads extensions from (Pi loads it twice), and a
session continued with ``-c``, as a person continues the last one."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.clients.clients import PI
from tests.clients.conftest import MakeWorld
from tests.clients.pi import MODEL, PROVIDER, Pi, edit, write
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


def _rpc(process: subprocess.Popen[str], command: dict[str, object], until: str) -> None:
    """Sends one command of Pi's RPC mode; reads its output up to the event ``until``."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(command) + "\n")
    process.stdin.flush()
    for line in process.stdout:
        if json.loads(line).get("type") == until:
            return
    raise AssertionError(f"Pi ended before {until}")


def test_a_new_session_in_the_same_process_is_recorded(
    make_world: MakeWorld, program: Path
) -> None:
    """``/new`` (RPC ``new_session``; ``/resume``, ``/fork`` and ``/reload`` alike) loads the
    extensions again in the same process: rewind's must record the new session too."""
    prompts = ["Write the first", "Write the second"]
    script = Script(
        [
            Prompt(prompts[0], (calls(write("first.txt", "one\n")), done())),
            Prompt(prompts[1], (calls(write("second.txt", "two\n")), done())),
        ]
    )
    world = make_world(Pi(program), script)
    argv = [str(program), "--mode", "rpc", "--provider", PROVIDER, "--model", MODEL]
    with subprocess.Popen(
        argv,
        cwd=world.root,
        env=world.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            _rpc(process, {"type": "prompt", "message": prompts[0]}, "agent_end")
            _rpc(process, {"type": "new_session"}, "response")
            _rpc(process, {"type": "prompt", "message": prompts[1]}, "agent_end")
        finally:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=60)
    assert (world.root / "second.txt").read_text() == "two\n"
    newest = [entry for entry in world.log() if entry["agent"] == "pi"]  # the second session
    assert [entry["prompt"] for entry in newest] == [prompts[1]], newest
    assert [file["path"] for file in newest[0]["files"]] == ["second.txt"], newest
