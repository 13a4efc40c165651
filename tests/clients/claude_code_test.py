"""Claude Code itself, from npm, driven by a scripted model: what rewind records of what the
real client does, prompt by prompt, resumed with ``--resume`` as a person continues a session."""

from __future__ import annotations

import json
import os
import signal
import time
from typing import Any

import pytest

from tests.clients.claude_code import ClaudeCode
from tests.clients.clients import CLAUDE_CODE
from tests.clients.conftest import MakeWorld
from tests.clients.scenario import Call, Prompt, Script, calls, done
from tests.clients.shared_scenarios import (
    check_programs_rewind,
    check_two_sessions_at_once,
    edit_by_hand_then_change_the_config,
    prepare_programs,
    programs,
    two_at_once,
)


@pytest.fixture(scope="module")
def program() -> Any:
    return CLAUDE_CODE.program()


def write(path: str, content: str) -> Call:
    return Call("Write", {"file_path": "{root}/" + path, "content": content})


def edit(path: str, old: str, new: str) -> Call:
    return Call("Edit", {"file_path": "{root}/" + path, "old_string": old, "new_string": new})


def bash(command: str) -> Call:
    return Call("Bash", {"command": command, "description": "run"})


WORKING = Script(
    [
        Prompt(  # a new file, and two tool calls in one model message
            "Start the notes",
            (calls(write("notes.txt", "one\ntwo\n"), write("draft.txt", "draft\n")), done()),
        ),
        Prompt(  # read, then edit
            "Polish the notes",
            (
                calls(Call("Read", {"file_path": "{root}/notes.txt"})),
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


def test_files_written_edited_and_changed_by_the_shell_rewind(
    make_world: MakeWorld, program: Any
) -> None:
    world = make_world(ClaudeCode(program), WORKING)
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
                calls(bash("echo half > half.txt; exit 3")),  # fails after writing a file
                calls(write("secret.txt", "secret\n")),  # refused by the person's deny rule
                done(),
            ),
        ),
        Prompt("Change the config", (calls(edit("config.ini", "a=1", "a=100")), done())),
    ]
)


def test_failing_and_refused_calls_and_a_hand_edit_rewind(
    make_world: MakeWorld, program: Any
) -> None:
    world = make_world(ClaudeCode(program, deny=("Edit(**/secret.txt)",)), FAILING)
    session = world.prompt("Write the config")
    world.prompt("Try what fails", session)
    results = tool_results(world.server.requests)
    assert len(results) == 4 and all(result.get("is_error") for result in results[1:]), results
    assert (world.root / "half.txt").read_text() == "half\n"
    assert not (world.root / "secret.txt").exists()
    edit_by_hand_then_change_the_config(world, session)
    sources = [{file["source"] for file in entry["files"]} for entry in world.log(session)]
    assert sources == [{"edit"}, {"shell"}, {"external"}, {"edit"}], sources
    world.check_every_turn_rewinds(
        session, ["Write the config", "Try what fails", "Change the config"], force=True
    )


def test_what_programs_change_rewinds_by_default(make_world: MakeWorld, program: Any) -> None:
    check_programs_rewind(make_world(ClaudeCode(program), programs(bash)))


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


TWO_AT_ONCE = two_at_once(write, edit)


def test_two_sessions_at_once_in_one_project(make_world: MakeWorld, program: Any) -> None:
    check_two_sessions_at_once(make_world(ClaudeCode(program), TWO_AT_ONCE))


def tool_results(requests: list[Any]) -> list[dict[str, Any]]:
    """The tool results the client sent back to the model, in order, once each."""
    found: dict[str, dict[str, Any]] = {}
    for request in requests:
        body = request.body if isinstance(request.body, dict) else {}
        for message in body.get("messages") or []:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found.setdefault(block["tool_use_id"], block)
    return list(found.values())
