"""What an agent's client sends ``rewind mcp``, tried as an attacker would: every line gets an
answer (a lone surrogate, a line that is not JSON, one too long or too deep), an argument is
data and never a command-line option, a mistake is one sentence with no traceback anywhere,
and a call that only asks for a plan changes nothing, not even the agent's open turn. Each
test failed before its fix (no answer at all; "exit code 0" for ``turn="--help"``; a pydantic
dump with a URL; a plan request that closed the open turn)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from rewind.mcp.stdio import LINE_LIMIT
from tests.conftest import hook, log_json, ok
from tests.support.agent_payloads import ClaudeCode
from tests.support.mcp_client import McpClient, text_of

SESSION = "s"


@pytest.fixture
def two_turns(project: Path) -> Path:
    """Turn 1 makes a.txt and b.txt v1; turn 2 makes them v2."""
    for number in (1, 2):
        ok("begin", "--session", SESSION, "--prompt", f"make them v{number}")
        ok("track", "--session", SESSION, "a.txt", "b.txt")
        for name in ("a.txt", "b.txt"):
            (project / name).write_text(f"v{number}\n")
        ok("end", "--session", SESSION)
    return project


@pytest.fixture
def client(two_turns: Path) -> Iterator[McpClient]:
    started = McpClient(two_turns)
    yield started
    started.close()


def one_sentence(result: dict[str, object]) -> str:
    """The refusal's text, checked to be an error of one line without a traceback or a link."""
    assert result.get("isError") is True, result
    text = text_of(result)
    assert "\n" not in text and "Traceback" not in text and "http" not in text, text
    assert "validation error" not in text, text
    return text


def test_every_line_gets_an_answer_whatever_it_holds(client: McpClient) -> None:
    unknown = client.raw(
        rb'{"jsonrpc":"2.0","id":"u","method":"tools/call","params":{"name":"x\ud800",'
        rb'"arguments":{}}}'
    )
    assert unknown["id"] == "u"
    assert "there is no tool 'x\\ud800'" in one_sentence(unknown["result"])
    surrogate = client.raw(
        rb'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rewind_log",'
        rb'"arguments":{"grep":"x\ud800"}}}'
    )
    assert "lone surrogate" in one_sentence(surrogate["result"])
    for line in (
        b"not json",
        b'{"jsonrpc": "2.0", "id": 3, "method": ',  # cut short
        b'{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"x":"\xff\xfe"}}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"jsonrpc":"2.0","id":5,"method":"x","params":{"a":' + b'"' + b"y" * LINE_LIMIT + b'"}}',
    ):
        answer = client.raw(line)
        assert answer["id"] is None and answer["error"]["code"] == -32700, answer
    invalid = client.raw(b'{"id": 6, "method": 7}')
    assert invalid["id"] == 6 and invalid["error"]["code"] == -32600, invalid
    for odd in (b"1.5", b"1E2", b"true", b"null", b"{}", b"[]"):
        line = b'{"jsonrpc":"2.0","id":' + odd + b',"method":"tools/list"}'
        answer = client.raw(line)  # read as a notification before: never answered
        assert answer["id"] is None and answer["error"]["code"] == -32600, (odd, answer)
    # The server is still there, and answers what it is asked.
    assert "make them v2" in text_of(client.call("rewind_log"))


def test_arguments_are_data_never_options(client: McpClient, two_turns: Path) -> None:
    for turn in ("--help", "-C/etc", "1; rm -rf /", ""):
        refused = client.call("rewind_show", turn=turn)
        assert "turn is a turn's number or id" in one_sentence(refused), turn
    assert "NUL" in one_sentence(client.call("rewind_history", path="a\0b"))
    assert "at most 1000" in one_sentence(client.call("rewind_log", grep="x" * 300_000))
    # A value that starts like an option is searched for, as data.
    assert text_of(client.call("rewind_log", grep="--help")) == "nothing recorded matches."
    unknown = text_of(client.call("rewind_history", path="-n"))
    assert unknown == "rewind has recorded no version of -n."
    # A turn may come as a number, and a path that starts with '-' is a path.
    assert "-v1\n+v2\n" in text_of(client.call("rewind_show", turn=2))


def test_a_wrong_argument_is_one_sentence(client: McpClient) -> None:
    cases = {
        ("rewind_log", "count", -5): "greater than or equal to 1",
        ("rewind_log", "count", "5"): "valid integer",
        ("rewind_log", "count", 10_000): "less than or equal to 200",
        ("rewind_undo", "force", "yes"): "valid boolean",
        ("rewind_blame", "start_line", 0): "greater than or equal to 1",
    }
    for (tool, name, value), reason in cases.items():
        arguments = {name: value, **({"path": "a.txt"} if tool == "rewind_blame" else {})}
        answer = client.request("tools/call", {"name": tool, "arguments": arguments})
        text = one_sentence(answer["result"])
        assert f"the argument {name} of {tool} is wrong" in text and reason in text, text
    missing = client.request("tools/call", {"name": "rewind_show", "arguments": {}})
    assert "rewind_show needs the argument turn" in one_sentence(missing["result"])
    # An argument the tool does not take is refused, not dropped: with 'path' for 'paths'
    # the plan would have been every file of the turn.
    # The sentence names what the tool takes.
    extra: list[tuple[str, dict[str, object], str]] = [
        ("rewind_restore", {"turn": "1", "path": "b.txt"}, "path"),
        ("rewind_undo", {"forse": True}, "forse"),
        ("rewind_log", {"max_count": 2}, "max_count"),
    ]
    for tool, arguments, unknown in extra:
        answer = client.request("tools/call", {"name": tool, "arguments": arguments})
        text = one_sentence(answer["result"])
        assert f"{tool} takes no argument '{unknown}'; it takes " in text, text
        assert text.endswith(", and nothing was done.")
    answer = client.request("tools/call", {"name": "rewind_log", "arguments": {"max_count": 2}})
    assert one_sentence(answer["result"]) == (
        "rewind_log takes no argument 'max_count'; it takes count, since, grep, path, session, "
        "and nothing was done."
    )


def test_nothing_reaches_standard_error(two_turns: Path) -> None:
    started = McpClient(two_turns)
    started.call("rewind_history", path="a\0b")
    started.call("rewind_show", turn="--help")
    started.raw(b"not json")
    started.request("tools/call", {"name": "rewind_log", "arguments": {"count": "x"}})
    started.call("rewind_blame", path="b.txt", start_line=1)
    assert started.close() == ""


def test_a_plan_request_leaves_the_agents_open_turn_open(two_turns: Path) -> None:
    agent = ClaudeCode(two_turns, session=SESSION)
    hook("claude-code", agent.prompt("make a.txt v3"))
    before, after = agent.write("a.txt", "v3\n")
    hook("claude-code", before)
    (two_turns / "a.txt").write_text("v3\n")
    hook("claude-code", after)
    client = McpClient(two_turns)
    try:
        refused = client.call("rewind_restore", turn="1")
        assert "still open and has changed a.txt" in one_sentence(refused)
        plan = client.call("rewind_restore", turn="1", paths=["b.txt"])
        assert plan["structuredContent"]["applied"] is False
        assert log_json("--session", SESSION)[-1]["ended"] is None  # still open
        # Asked again, the whole turn is still refused: the open turn still edits a.txt.
        assert "still open" in one_sentence(client.call("rewind_restore", turn="1"))
        undo = client.call("rewind_undo")
        assert "no restore to undo" in one_sentence(undo)
        assert log_json("--session", SESSION)[-1]["ended"] is None
        # Applied, the restore closes the turn under it and opens its continuation, so
        # what the agent does next for that prompt is still that prompt's.
        plan_id = plan["structuredContent"]["plan_id"]
        done = client.call("rewind_restore", turn="1", paths=["b.txt"], plan_id=plan_id)
        assert done["structuredContent"]["applied"] is True, done
    finally:
        client.close()
    assert not (two_turns / "b.txt").exists() and (two_turns / "a.txt").read_text() == "v3\n"
    before, after = agent.write("c.txt", "new\n")
    hook("claude-code", before)
    (two_turns / "c.txt").write_text("new\n")
    hook("claude-code", after)
    entries = log_json("--session", SESSION)
    assert [(e["kind"], e["prompt"]) for e in entries[2:]] == [
        ("turn", "make a.txt v3"),
        ("restore", "restore to before turn 1"),
        ("turn", "make a.txt v3"),
    ]
    assert [f["path"] for f in entries[-1]["files"]] == ["c.txt"]


def test_a_restore_skips_a_path_through_a_folder_linked_out_and_the_session_goes_on(
    project: Path, tmp_path: Path
) -> None:
    (project / "sub").mkdir()
    (project / "sub" / "x.txt").write_text("one\n")
    ok("begin", "--session", SESSION, "--prompt", "change both")
    ok("track", "--session", SESSION, "sub/x.txt", "a.txt")
    (project / "sub" / "x.txt").write_text("two\n")
    (project / "a.txt").write_text("made\n")
    ok("end", "--session", SESSION)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.txt").write_text("not the project's\n")
    (project / "sub").rename(project / "sub.moved")
    (project / "sub").symlink_to(elsewhere)
    client = McpClient(project)
    try:
        plan = client.call("rewind_restore", turn="1", force=True)["structuredContent"]
        actions = {item["path"]: item["action"] for item in plan["files"]}
        assert actions == {"sub/x.txt": "cannot", "a.txt": "delete"}, plan
        done = client.call("rewind_restore", turn="1", force=True, plan_id=plan["plan_id"])
        assert "Left as they are: sub/x.txt (rewind never writes it" in text_of(done)
    finally:
        client.close()
    assert (elsewhere / "x.txt").read_text() == "not the project's\n"
    assert not (project / "a.txt").exists()
    status = ok("status")
    assert "waiting to be finished" not in status.stdout + status.stderr
    ok("begin", "--session", SESSION, "--prompt", "go on")
    # Nothing from outside the project was kept: the file behind the link is not drift.
    assert [e["prompt"] for e in log_json("--session", SESSION)] == [
        "change both",
        "restore to before turn 1",
        "go on",
    ]


def test_a_restore_left_waiting_on_a_folder_linked_out_is_finished(
    project: Path, tmp_path: Path
) -> None:
    """A journal such a restore left behind (before the fix) is finished by the next command:
    the path is left as it is, the journal removed, the session goes on."""
    (project / "sub").mkdir()
    (project / "sub" / "x.txt").write_text("one\n")
    ok("begin", "--session", SESSION, "--prompt", "change it")
    ok("track", "--session", SESSION, "sub/x.txt")
    (project / "sub" / "x.txt").write_text("two\n")
    ok("end", "--session", SESSION)
    ok("restore", "1", "--yes")
    restore_id = log_json("--session", SESSION)[-1]["id"]
    from tests.conftest import store_dir

    journal = store_dir(project) / "rewind" / "restore-journal.json"
    journal.write_text(json.dumps({"session": SESSION, "entry": restore_id, "pid": 1}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "sub").rename(project / "sub.moved")
    (project / "sub").symlink_to(elsewhere)
    done = ok("begin", "--session", SESSION, "--prompt", "go on")
    assert "cannot write them: sub/x.txt" in done.stderr
    assert not journal.exists() and not (elsewhere / "x.txt").exists()
    assert "waiting to be finished" not in ok("status").stdout
