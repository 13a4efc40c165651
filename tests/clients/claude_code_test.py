"""Claude Code itself, from npm, driven by a scripted model: what rewind records of what the
real client does, prompt by prompt, resumed with ``--resume`` as a person continues a session.
The scenarios every client runs are in scenarios_test.py; here, Claude Code's own."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from typing import Any

import pytest

from tests.clients import claude_code
from tests.clients.claude_code import ClaudeCode, bash
from tests.clients.clients import CLAUDE_CODE
from tests.clients.conftest import MakeWorld
from tests.clients.scenario import Prompt, Script, calls, done
from tests.clients.shared_scenarios import prepare_programs, working


@pytest.fixture(scope="module")
def program() -> Any:
    return CLAUDE_CODE.program()


# A server in a session of its own, as a dev server outlives the client's run.
SERVER = (
    "setsid sh -c 'sleep 1; echo up > server.log; sleep 1; echo ready >> server.log'"
    " >/dev/null 2>&1 &"
)
AROUND_THE_WATCHER = Script(
    [
        Prompt("Regenerate", (calls(bash("python3 gen.py")), done())),
        Prompt("Build it", (calls(bash("sh build.sh")), done())),
        Prompt("Start the server", (calls(bash(SERVER)), done())),
    ]
)


def test_a_killed_watcher_and_a_server_left_running(make_world: MakeWorld, program: Any) -> None:
    """The watcher killed between two prompts: the next prompt notices, logs the gap and starts
    another, and that turn's programs are recorded; a server the agent leaves running keeps
    writing after its call returned, which is recorded and holds no hook."""
    world = make_world(ClaudeCode(program), AROUND_THE_WATCHER)
    prepare_programs(world)
    session = world.prompt("Regenerate")
    watch = world.root.parent / "home" / "rewind-home" / "stores"
    [info] = watch.glob("*/rewind/watch.json")
    pid = json.loads(info.read_text())["pid"]
    os.kill(pid, signal.SIGKILL)
    world.prompt("Build it", session)
    logged = "".join(path.read_text() for path in watch.glob("*/rewind/rewind.log"))
    assert "ended without stopping (killed?)" in logged, logged
    world.prompt("Start the server", session)
    assert world.seconds[-1] < 30
    server_log = world.root / "server.log"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
        server_log.exists() and server_log.read_text() == "up\nready\n"
    ):
        time.sleep(0.2)
    while "server.log" not in json.dumps(world.log(session)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert server_log.read_text() == "up\nready\n"
    assert "server.log" in json.dumps(world.log(session))
    programs_of = [
        {path for path, (source, _) in entry.items() if source == "program"}
        for entry in world.changes(session)[:2]
    ]
    assert programs_of == [
        {"src/calc.py", "src/generated.py", "notes.txt"},
        {"bundle.txt", "scratch.txt", "src/calc.py"},
    ]
    for turn, text in ((2, "Build it"), (1, "Regenerate")):
        world.ok("restore", str(turn), "--yes", "--session", session, "--force")
        before = {k: v for k, v in world.before[text].items() if k != b"server.log"}
        assert {k: v for k, v in world.tree().items() if k != b"server.log"} == before


def test_no_record_is_lost_when_the_resident_recorder_cannot_run(
    make_world: MakeWorld, program: Any
) -> None:
    """The port the HTTP hooks post to is taken for the whole session (bound by this test,
    refusing every connection), so no resident ever runs and Claude Code's every post of an
    after-event fails: Claude Code goes on, and every turn still restores byte for byte (each
    file's state before a change was taken by a process, and each turn's end by the next
    prompt, the session's end, or the command hooks' own handling)."""
    script = working(claude_code.TOOLS)
    world = make_world(ClaudeCode(program), script)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", int(world.rewind.env["REWIND_RESIDENT_PORT"])))
        session = None
        for prompt in script.prompts:
            session = world.prompt(prompt.text, session)
        assert session is not None
        world.check_every_turn_rewinds(session, [prompt.text for prompt in script.prompts])
    resident = world.root.parent / "home" / "rewind-home" / "resident"
    assert not list(resident.glob("*.json"))
    home = world.root.parent / "home" / "rewind-home"
    calls = "".join(path.read_text() for path in home.glob("stores/*/rewind/stats/hook-calls.log"))
    assert "event=PreToolUse" in calls and "via=" not in calls
