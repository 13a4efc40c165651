"""``rewind mcp``: the project's history over MCP, as a real process on stdio. The tools that
read answer text and the command line's JSON; the tools that change files answer a plan first
and apply it only when called again with its id, by the command line's rules."""

from __future__ import annotations

import signal
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from rewind.mcp.names import CHANGE_TOOLS, READ_TOOLS, SDK_REQUIREMENT
from tests.conftest import error_line, hook, log_json, ok, run_rewind
from tests.support.agent_payloads import ClaudeCode
from tests.support.mcp_client import McpClient, text_of
from tests.support.paths import ROOT

SESSION = "s"


@pytest.fixture
def three_turns(project: Path) -> Path:
    """a.txt as v1, v2, v3 by three turns."""
    path = project / "a.txt"
    for number in (1, 2, 3):
        ok("begin", "--session", SESSION, "--prompt", f"turn {number}: make it v{number}")
        ok("track", "--session", SESSION, "a.txt")
        path.write_text(f"v{number}\n")
        ok("end", "--session", SESSION)
    return path


@pytest.fixture
def client(three_turns: Path, project: Path) -> Iterator[McpClient]:
    started = McpClient(project)
    yield started
    started.close()


def test_the_tools_and_how_they_may_be_approved(client: McpClient) -> None:
    assert client.initialized["result"]["serverInfo"]["name"] == "rewind"
    tools = client.tools()
    reading = {"rewind_log", "rewind_show", "rewind_diff", "rewind_history", "rewind_blame"}
    changing = {"rewind_restore", "rewind_undo", "rewind_redo"}
    assert reading | changing | {"rewind_status"} == set(tools)
    # What 'rewind install --mcp' pre-approves (and never) is what the server serves.
    assert set(READ_TOOLS) == reading | {"rewind_status"} and set(CHANGE_TOOLS) == changing
    for name in reading | {"rewind_status"}:
        assert tools[name]["annotations"]["readOnlyHint"] is True, name
    for name in changing:
        annotations = tools[name]["annotations"]
        assert annotations["readOnlyHint"] is False and annotations["destructiveHint"] is True


def test_the_reading_tools_answer_text_and_the_commands_json(client: McpClient) -> None:
    logged = client.call("rewind_log")
    assert not logged.get("isError")
    assert "turn 2 (" in text_of(logged) and "make it v2" in text_of(logged)
    entries = logged["structuredContent"]["entries"]
    assert [entry["turn"] for entry in entries] == [1, 2, 3]
    assert all(entry["format"] == 1 for entry in entries)
    shown = client.call("rewind_show", turn="2")
    assert "-v1\n+v2\n" in text_of(shown)
    history = client.call("rewind_history", path="a.txt")
    assert text_of(history).count("\n") >= 2
    blamed = client.call("rewind_blame", path="a.txt")
    assert "1: [turn 3" in text_of(blamed) and "v3" in text_of(blamed)
    assert '"session"' in text_of(client.call("rewind_status"))


def test_a_refusal_is_the_tools_error_in_one_sentence(client: McpClient) -> None:
    refused = client.call("rewind_show", turn="99")
    assert refused["isError"] is True
    assert text_of(refused).count("\n") == 0 and "99" in text_of(refused)


def test_a_restore_is_planned_then_applied_with_the_plans_id(
    client: McpClient, three_turns: Path
) -> None:
    planned = client.call("rewind_restore", turn="2")
    assert not planned.get("isError"), planned
    plan = planned["structuredContent"]
    assert plan["applied"] is False
    assert [f["path"] for f in plan["files"]] == ["a.txt"]
    assert f"plan_id={plan['plan_id']!r}" in text_of(planned)
    assert three_turns.read_text() == "v3\n"  # a plan changes nothing
    done = client.call("rewind_restore", turn="2", plan_id=plan["plan_id"])
    assert done["structuredContent"]["applied"] is True, done
    assert three_turns.read_text() == "v1\n"
    assert log_json("--session", SESSION)[-1]["kind"] == "restore"
    undo_plan = client.call("rewind_undo")["structuredContent"]
    client.call("rewind_undo", plan_id=undo_plan["plan_id"])
    assert three_turns.read_text() == "v3\n"
    redo_plan = client.call("rewind_redo")["structuredContent"]
    client.call("rewind_redo", plan_id=redo_plan["plan_id"])
    assert three_turns.read_text() == "v1\n"


def test_a_file_changed_since_the_plan_gives_a_new_plan_not_a_surprise(
    client: McpClient, three_turns: Path
) -> None:
    plan = client.call("rewind_restore", turn="2")["structuredContent"]
    three_turns.write_text("changed by hand\n")
    again = client.call("rewind_restore", turn="2", plan_id=plan["plan_id"])
    assert again["structuredContent"]["applied"] is False
    assert again["structuredContent"]["plan_id"] != plan["plan_id"]
    assert "changed since that plan" in text_of(again)
    assert three_turns.read_text() == "changed by hand\n"
    refused = client.call("rewind_restore", turn="2", plan_id=again["structuredContent"]["plan_id"])
    assert refused["isError"] is True  # a conflict
    assert "call again with force=true" in text_of(refused)
    assert three_turns.read_text() == "changed by hand\n"


def test_a_restore_of_a_file_the_open_turn_edits_is_refused(
    project: Path, three_turns: Path
) -> None:
    agent = ClaudeCode(project, session=SESSION)
    hook("claude-code", agent.prompt("make it v4"))
    before, after = agent.write("a.txt", "v4\n")
    hook("claude-code", before)
    three_turns.write_text("v4\n")
    hook("claude-code", after)
    started = McpClient(project)
    try:
        refused = started.call("rewind_restore", turn="2")
        assert refused["isError"] is True
        assert "still open and has changed a.txt" in text_of(refused)
        assert three_turns.read_text() == "v4\n"
    finally:
        started.close()


def test_without_the_sdk_one_sentence_says_how_to_install_it(project: Path, tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "mcp"  # an mcp package without the SDK's modules
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    done = run_rewind("mcp", env={"PYTHONPATH": str(shadow.parent)}, input="")
    # The way to install it names the Python running rewind: the package itself is on no index.
    assert error_line(done) == (
        "rewind: rewind's MCP server needs the 'mcp' package, which the Python running rewind "
        f"({sys.executable}) does not have: install it with '{sys.executable} -m pip install "
        "\"mcp>=2.3\"' (for a pipx install, 'pipx inject rewind-files mcp')."
    )


def test_the_sdk_named_is_the_extras() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["optional-dependencies"]["mcp"] == [SDK_REQUIREMENT]


def test_an_answer_too_large_is_bounded_and_says_how_to_narrow_it(project: Path) -> None:
    names = [f"f{index:04d}.txt" for index in range(600)]
    ok("begin", "--session", SESSION, "--prompt", "many files")
    ok("track", "--session", SESSION, *names)
    for name in names:
        (project / name).write_text("x\n" * 3)
    ok("end", "--session", SESSION)
    started = McpClient(project)
    try:
        shown = started.call("rewind_show", turn="1")
        assert "structuredContent" not in shown
        text = text_of(shown)
        assert len(text) < 21_000 and "[cut:" in text and "path set to one file" in text
        assert "narrow the request" in text
    finally:
        started.close()


def test_paths_are_the_projects_whatever_directory_the_server_started_in(
    three_turns: Path, project: Path
) -> None:
    (project / "sub").mkdir()
    started = McpClient(project / "sub")  # a client that starts its servers in a subfolder
    try:
        plan = started.call("rewind_restore", turn="2", paths=["a.txt"])
        assert not plan.get("isError"), plan
        assert [f["path"] for f in plan["structuredContent"]["files"]] == ["a.txt"]
    finally:
        started.close()


def test_an_interrupt_ends_the_server_at_once(client: McpClient) -> None:
    """A client stops its server with SIGINT (Claude Code gives it 100 ms before SIGTERM): a
    thread blocked reading standard input must not keep the process alive."""
    client.process.send_signal(signal.SIGINT)
    code = client.process.wait(timeout=10)
    assert code == 130, (code, client.close())
