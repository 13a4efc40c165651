"""Cursor with its tool hooks (preToolUse/postToolUse of Write and Delete), replayed through real
``rewind hook cursor`` processes as Cursor sends them, then rewound to every turn byte for byte.

The payloads are tests.support.agent_payloads.CursorToolHooks (cursor.com/docs/hooks.md, read
2026-12-01); a Cursor without tool hooks is tests.support.agent_payloads.Cursor, replayed in
tests/hooks/hooks_replay_test.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import files_by_path, hook, log_json, run_rewind, snapshot, store_dir
from tests.hooks.hooks_replay_test import hooks_in_parallel, replace_in
from tests.support.agent_payloads import CursorToolHooks, Payload, each

ORIGINAL = "def add(a, b):\n    return a + b\n"


@pytest.fixture
def workspace(project: Path) -> Path:
    (project / "a.py").write_text(ORIGINAL)
    (project / "old.txt").write_text("deleted by the Delete tool\n")
    (project / "gone.txt").write_text("deleted by rm\n")
    (project / "keep.txt").write_text("never touched\n")
    for i in range(3):
        (project / f"b{i}.txt").write_text(f"first\nline {i}\nlast\n")
    os.chmod(project / "a.py", 0o755)
    return project


def problems_logged(project: Path) -> str:
    path = store_dir(project) / "rewind" / "rewind.log"
    return path.read_text() if path.exists() else ""


def send_after(after: Payload | list[Payload] | None) -> None:
    for payload in each(after):
        hook("cursor", payload)


def test_tool_hooks_session_rewinds_byte_for_byte(workspace: Path) -> None:
    cursor = CursorToolHooks(workspace)
    snapshots = [snapshot(workspace)]

    hook("cursor", cursor.prompt("Make add() subtract and add notes"))
    before, after = cursor.edit("a.py", "return a + b", "return a - b")
    hook("cursor", before)
    replace_in(workspace / "a.py", "return a + b", "return a - b")
    send_after(after)
    before, after = cursor.write("notes/new.txt", "a new file\n")
    hook("cursor", before)
    (workspace / "notes").mkdir()
    (workspace / "notes" / "new.txt").write_text("a new file\n")
    send_after(after)
    hook("cursor", cursor.end())
    snapshots.append(snapshot(workspace))

    hook("cursor", cursor.prompt("Delete old.txt, rm gone.txt, swap the operands"))
    pre_delete, post_delete = cursor.delete("old.txt")
    hook("cursor", pre_delete)
    (workspace / "old.txt").unlink()
    hook("cursor", post_delete)
    before_shell, after_shell = cursor.shell("rm gone.txt")
    hook("cursor", before_shell)
    (workspace / "gone.txt").unlink()
    hook("cursor", after_shell)
    before, after = cursor.edit("a.py", "return a - b", "return b - a")
    hook("cursor", before)
    replace_in(workspace / "a.py", "return a - b", "return b - a")
    send_after(after)
    hook("cursor", cursor.end())
    snapshots.append(snapshot(workspace))

    hook("cursor", cursor.prompt("Three edits at once"))
    edits = [cursor.edit(f"b{i}.txt", f"line {i}", f"LINE {i}") for i in range(3)]
    hooks_in_parallel("cursor", [before for before, _ in edits])
    for i in range(3):
        replace_in(workspace / f"b{i}.txt", f"line {i}", f"LINE {i}")
    hooks_in_parallel("cursor", [payload for _, after in edits for payload in each(after)])
    hook("cursor", cursor.end())
    snapshots.append(snapshot(workspace))

    log = log_json("--session", cursor.session)
    assert [entry["turn"] for entry in log] == [1, 2, 3]
    first, second, third = (files_by_path(entry) for entry in log)
    assert set(first) == {"a.py", "notes/new.txt"}
    assert {path: f["source"] for path, f in second.items()} == {
        "old.txt": "edit",  # the Delete tool
        "gone.txt": "shell",  # rm, read by the quicksave
        "a.py": "edit",
    }
    assert set(third) == {"b0.txt", "b1.txt", "b2.txt"}
    assert problems_logged(workspace) == ""

    final = snapshots[-1]
    for turn in (3, 2, 1):
        result = run_rewind("restore", str(turn), "--yes", "--session", cursor.session)
        assert result.returncode == 0, result
        assert snapshot(workspace) == snapshots[turn - 1], f"restore to before turn {turn}"
        assert run_rewind("undo", "--yes", "--session", cursor.session).returncode == 0
        assert snapshot(workspace) == final


@pytest.mark.parametrize("key", ["file_path", "path", "target_file", "target_path"])
def test_a_file_the_delete_tool_removes_comes_back(workspace: Path, key: str) -> None:
    cursor = CursorToolHooks(workspace, path_key=key)
    hook("cursor", cursor.prompt("Delete old.txt"))
    before, after = cursor.delete("old.txt")
    hook("cursor", before)
    (workspace / "old.txt").unlink()
    hook("cursor", after)
    hook("cursor", cursor.end())
    assert run_rewind("restore", "1", "--yes", "--session", cursor.session).returncode == 0
    assert (workspace / "old.txt").read_text() == "deleted by the Delete tool\n"


def misleading_after_file_edit(cursor: CursorToolHooks, path: str) -> Payload:
    """An afterFileEdit whose replacements undo into something the file never was (a formatter
    ran between the edit and the event, say): rebuilt, it would be a wrong pre-image."""
    return {
        **cursor._common("afterFileEdit"),
        "file_path": str(cursor.root / path),
        "edits": [{"old_string": "WRONG", "new_string": "return a ** b"}],
    }


@pytest.mark.parametrize("order", ["post-first", "after-edit-first", "at-once"])
def test_the_exact_pre_image_wins_over_the_rebuilt_one(workspace: Path, order: str) -> None:
    """An edit reported by preToolUse/postToolUse and by afterFileEdit is recorded once, with
    the state preToolUse read, whatever order the after-events come in."""
    cursor = CursorToolHooks(workspace)
    hook("cursor", cursor.prompt("Power"))
    before, after = cursor.edit("a.py", "return a + b", "return a ** b")
    post = each(after)[0]
    hook("cursor", before)
    replace_in(workspace / "a.py", "return a + b", "return a ** b")
    rebuilt = misleading_after_file_edit(cursor, "a.py")
    if order == "post-first":
        hook("cursor", post)
        hook("cursor", rebuilt)
    elif order == "after-edit-first":
        hook("cursor", rebuilt)
        hook("cursor", post)
    else:
        hooks_in_parallel("cursor", [post, rebuilt])
    hook("cursor", cursor.end())
    [entry] = log_json("--session", cursor.session)
    assert list(files_by_path(entry)) == ["a.py"]
    assert run_rewind("restore", "1", "--yes", "--session", cursor.session).returncode == 0
    assert (workspace / "a.py").read_text() == ORIGINAL


def test_without_tool_hooks_the_misleading_event_would_rebuild_a_wrong_pre_image(
    workspace: Path,
) -> None:
    """The same afterFileEdit alone (a Cursor without tool hooks) rebuilds a state the file
    never had: what the test above guards against is real."""
    cursor = CursorToolHooks(workspace)
    hook("cursor", cursor.prompt("Power"))
    replace_in(workspace / "a.py", "return a + b", "return a ** b")
    hook("cursor", misleading_after_file_edit(cursor, "a.py"))
    hook("cursor", cursor.end())
    assert run_rewind("restore", "1", "--yes", "--session", cursor.session).returncode == 0
    assert (workspace / "a.py").read_text() == "def add(a, b):\n    WRONG\n"


def test_a_write_that_creates_a_file_and_fails_midway_is_recorded(workspace: Path) -> None:
    """postToolUseFailure records the after-state like postToolUse; the pre-image (absent)
    lets a restore remove the half-written file."""
    cursor = CursorToolHooks(workspace)
    hook("cursor", cursor.prompt("Write big.txt"))
    before, post = cursor._tool("Write", {"file_path": "big.txt", "contents": "x" * 10})
    hook("cursor", before)
    (workspace / "big.txt").write_text("xxx")
    hook("cursor", {**post, "hook_event_name": "postToolUseFailure", "error": "disk full"})
    hook("cursor", cursor.end())
    [entry] = log_json("--session", cursor.session)
    assert list(files_by_path(entry)) == ["big.txt"]
    assert run_rewind("restore", "1", "--yes", "--session", cursor.session).returncode == 0
    assert not (workspace / "big.txt").exists()


def test_other_tools_and_inputs_without_a_path_record_nothing(workspace: Path) -> None:
    cursor = CursorToolHooks(workspace)
    hook("cursor", cursor.prompt("Read"))
    calls: list[tuple[str, Payload]] = [
        ("Read", {"file_path": "a.py"}),
        ("Write", {"contents": "x"}),
    ]
    for tool, tool_input in calls:
        before, after = cursor._tool(tool, tool_input)
        hook("cursor", before)
        hook("cursor", after)
    hook("cursor", cursor.end())
    [entry] = log_json("--session", cursor.session)
    assert files_by_path(entry) == {}
    assert "Write: no file path in the tool's input" in problems_logged(workspace)


def test_tool_input_sent_as_a_json_string_is_read(workspace: Path) -> None:
    cursor = CursorToolHooks(workspace)
    hook("cursor", cursor.prompt("Delete"))
    before, after = cursor._tool("Delete", {})
    tool_input = json.dumps({"path": str(workspace / "old.txt")})
    hook("cursor", {**before, "tool_input": tool_input})
    (workspace / "old.txt").unlink()
    hook("cursor", {**after, "tool_input": tool_input})
    hook("cursor", cursor.end())
    assert run_rewind("restore", "1", "--yes", "--session", cursor.session).returncode == 0
    assert (workspace / "old.txt").exists()


@pytest.mark.parametrize(
    "tool_input",
    [None, 3, [], "not json", "[1]", {"file_path": 3}, {"file_path": ""}, {"path": ["a.py"]}],
    ids=repr,
)
@pytest.mark.parametrize("tool_name", ["Write", "Delete", None, 7])
def test_tool_events_of_the_wrong_shape_record_nothing_and_fail_nothing(
    workspace: Path, tool_input: object, tool_name: object
) -> None:
    cursor = CursorToolHooks(workspace)
    hook("cursor", cursor.prompt("Odd"))
    before, after = cursor._tool("Write", {})
    for event in (before, after):
        hook("cursor", {**event, "tool_name": tool_name, "tool_input": tool_input})
    hook("cursor", cursor.end())
    [entry] = log_json("--session", cursor.session)
    assert files_by_path(entry) == {}
    logged = problems_logged(workspace)
    assert "event preToolUse" not in logged and "event postToolUse" not in logged
